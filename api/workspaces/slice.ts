// The workspaces slice: workspaces, members and roles, slugs, the workspace logo.
import { workspacesProjection } from '../../projections/workspaces/workspaces-projection.js';
import type { Slice } from '../shared/slice.js';
import { workspaceOperations } from './operations.js';

export const workspacesSlice: Slice = {
  name: 'workspaces',
  projections: [workspacesProjection],
  operations: [workspaceOperations],
};
