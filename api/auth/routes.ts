// Auth endpoints: exchanging a token for one scoped to another of the user's workspaces, and the
// public keys of this service's tokens (so other services can verify them offline). Both stay routes, not
// operations (api/shared/operation.ts): the exchange re-issues the caller's bearer token itself, from its
// session and email, which an operation's caller does not carry; the key set is public and not `{ data }`.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { NotFound } from '../../domain/shared/errors.js';
import { roles, type Role } from '../../domain/workspaces/roles.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { preventCaching } from '../platform/no-store.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { canonicalUuid } from '../shared/params.js';
import type { AuthService } from './auth-service.js';
import { principalOf, secured } from './middleware.js';

export interface AuthRoutesDeps {
  auth: AuthService;
  /** The caller's role in that workspace, or null when not a member (or no such workspace). */
  lookupMembership(userId: string, orgId: string): Promise<Role | null>;
}

export const TokenExchangeRequest = z
  .strictObject({ orgId: canonicalUuid().openapi({ description: 'Workspace the new token is scoped to' }) })
  .openapi('TokenExchangeRequest');

export const AccessToken = z
  .object({
    accessToken: z.string(),
    tokenType: z.literal('Bearer'),
    expiresAt: z.iso.datetime().openapi({ description: 'ts' }),
    orgId: z.uuid(),
    role: z.enum(roles),
  })
  .openapi('AccessToken');

const Jwks = z
  .object({ keys: z.array(z.record(z.string(), z.unknown())) })
  .openapi('JsonWebKeySet', { description: 'RFC 7517 key set' });

export function createAuthRoutes(deps: AuthRoutesDeps) {
  // A route: it needs the bearer token's session and email (the Principal), not only the caller.
  const exchangeToken = createRoute({
    ...secured({ auth: deps.auth, workspace: false }),
    method: 'post',
    path: '/v1/auth/token',
    operationId: 'exchangeToken',
    tags: ['auth'],
    summary: 'Exchange the bearer token for one scoped to another workspace of the same user',
    description:
      'The new token carries the role and permissions the user holds in that workspace. A workspace the ' +
      'user does not belong to answers 404, whether or not it exists. The new token belongs to the same ' +
      'session as the one exchanged and expires at the end of that session at the latest.',
    request: { body: jsonBody(TokenExchangeRequest) },
    responses: {
      200: jsonResponse(dataOf(AccessToken), 'A token scoped to the requested workspace'),
      ...errorResponses(400, 401, 404, 413, 415),
    },
  });

  // A route: public (no bearer), and the key set is answered as RFC 7517 has it, not in `{ data }`.
  const jwks = createRoute({
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'getJwks',
    security: [],
    tags: ['auth'],
    summary: "Public keys of this service's access tokens",
    responses: { 200: jsonResponse(Jwks, 'JSON Web Key Set') },
  });

  return (app: OpenAPIHono<AppEnv>): void => {
    app.openapi(exchangeToken, async (c) => {
      const principal = principalOf(c);
      const { orgId } = c.req.valid('json');
      const role = await deps.lookupMembership(principal.userId, orgId);
      if (role === null) throw new NotFound('Workspace not found');
      preventCaching(c); // a token: never kept by a browser or proxy, whatever the app-wide default
      const issued = await deps.auth.issueAccessToken({
        userId: principal.userId,
        ...(principal.email !== undefined ? { email: principal.email } : {}),
        orgId,
        role,
        // The same session: exchanging renews the token, never the session.
        session: principal.session,
      });
      return c.json(
        {
          data: {
            accessToken: issued.token,
            tokenType: 'Bearer' as const,
            expiresAt: issued.expiresAt,
            orgId,
            role,
          },
        },
        200,
      );
    });

    app.openapi(jwks, (c) => {
      c.header('Cache-Control', 'public, max-age=300');
      return c.json(deps.auth.publicJwks(), 200);
    });
  };
}
