// The users slice: registration, e-mail claims and profiles, profile images, and the stable URLs of the images
// people show as themselves (profile images and workspace logos, api/users/asset-routes.ts).
import { usersProjection } from '../../projections/users/users-projection.js';
import { defineSlice } from '../shared/slice.js';
import { assetRoutes } from './asset-routes.js';
import { userOperations } from './operations.js';

export const usersSlice = defineSlice({
  name: 'users',
  projections: [usersProjection],
  operations: [userOperations],
  // Redirects to signed download URLs for <img> tags, which send no token: not operations.
  routes: ({ storage }) => [assetRoutes(storage)],
});
