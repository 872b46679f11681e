// The media slice: the workspace's media library (uploads, imports, and what other slices store in it).
import { mediaProjection } from '../../projections/media/media-projection.js';
import type { Slice } from '../shared/slice.js';
import { mediaRoutes } from './routes.js';
import { mediaServicesOf } from './services.js';
import { mediaTools } from './tools.js';

export const mediaSlice: Slice = {
  name: 'media',
  projections: [mediaProjection],
  routes: (ctx) => [mediaRoutes(ctx.services, mediaServicesOf(ctx).deps)],
  tools: mediaTools,
};
