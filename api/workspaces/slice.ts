// The workspaces slice: workspaces, members and roles, slugs.
import { workspacesProjection } from '../../projections/workspaces/workspaces-projection.js';
import type { Slice } from '../shared/slice.js';
import { logoRoutes } from './logo-routes.js';
import { workspaceRoutes } from './routes.js';

export const workspacesSlice: Slice = {
  name: 'workspaces',
  projections: [workspacesProjection],
  routes: ({ services, storage }) => [
    workspaceRoutes({ ...services, storage }),
    logoRoutes({ ...services, storage }),
  ],
};
