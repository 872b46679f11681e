// The auth slice: the token exchange and the service's signing keys (`/.well-known/jwks.json`). The
// AuthService itself is built by the runtime, since every secured route of every slice needs it.
import { authSettings } from './settings.js';
import { isRole } from '../../domain/workspaces/roles.js';
import { requireMembershipRole } from '../../projections/workspaces/queries.js';
import { defineSlice } from '../shared/slice.js';
import { createAuthRoutes } from './routes.js';

export const authSlice = defineSlice({
  name: 'auth',
  settings: [authSettings],
  routes: ({ auth, readModels }) => [
    createAuthRoutes({
      auth,
      lookupMembership: async (userId, orgId) => {
        const role = await requireMembershipRole(readModels, userId, orgId);
        return role && isRole(role) ? role : null;
      },
    }),
  ],
});
