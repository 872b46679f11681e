// The users slice: registration, e-mail claims and profiles.
import { usersProjection } from '../../projections/users/users-projection.js';
import type { Slice } from '../shared/slice.js';
import { userRoutes } from './routes.js';

export const usersSlice: Slice = {
  name: 'users',
  projections: [usersProjection],
  routes: ({ services }) => [userRoutes(services)],
};
