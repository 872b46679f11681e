// The tags slice: a workspace's tags.
import { tagsProjection } from '../../projections/tags/tags-projection.js';
import type { Slice } from '../shared/slice.js';
import { tagRoutes } from './routes.js';

export const tagsSlice: Slice = {
  name: 'tags',
  projections: [tagsProjection],
  routes: ({ services }) => [tagRoutes(services)],
};
