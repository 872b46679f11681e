// The workspaces slice: workspaces, members and roles, slugs, the workspace logo.
import { workspacesProjection } from '../../projections/workspaces/workspaces-projection.js';
import { defineSlice } from '../shared/slice.js';
import { workspaceOperations } from './operations.js';

export const workspacesSlice = defineSlice({
  name: 'workspaces',
  projections: [workspacesProjection],
  operations: [workspaceOperations],
});
