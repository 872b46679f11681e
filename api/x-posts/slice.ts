// The X posts slice: deleting a post published on X.
import type { Slice } from '../shared/slice.js';
import { xPostTools } from './tools.js';
import { xPostRoutes } from './routes.js';

export const xPostsSlice: Slice = {
  name: 'x-posts',
  routes: ({ services }) => [xPostRoutes(services)],
  tools: xPostTools,
};
