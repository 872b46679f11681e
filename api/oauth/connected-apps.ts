// Connected apps in the app API: the signed-in user's live assistant connections (an operation), and
// disconnecting one, which ends it at once with every token issued for it (spec "Assistant-tool server":
// revocation in the app); disconnecting stays a route, as it answers 204 without a `{ data }` body.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { assistantScopes } from '../../domain/shared/caller.js';
import { NotFound } from '../../domain/shared/errors.js';
import { callerOf } from '../auth/caller.js';
import { authenticate } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { canonicalUuid } from '../shared/params.js';
import { isAssistantScope, oauthDbOf } from './assistant-tokens.js';
import { revokeConnection, type OAuthDb } from './store.js';

export const connectedAppSchema = z
  .object({
    id: z.uuid(),
    clientId: z
      .string()
      .openapi({ description: 'The OAuth client (an id, or the URL of its metadata document)' }),
    clientName: z.string(),
    orgId: z.uuid().openapi({ description: 'The one workspace the connection acts in' }),
    scopes: z
      .array(z.enum(assistantScopes))
      .openapi({ description: 'Granted scopes; always includes mcp:read' }),
    connectedAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .openapi('ConnectedApp');

// A route, not an operation: it answers 204 without a `{ data }` body.
const revokeConnectedApp = createRoute({
  method: 'delete',
  path: '/v1/users/me/connected-apps/{id}',
  operationId: 'revokeConnectedApp',
  tags: ['users'],
  summary: 'Disconnect an assistant: the connection and every token issued for it end at once',
  security: [{ bearerAuth: [] }],
  middleware: [authenticate()] as const,
  request: { params: z.object({ id: canonicalUuid().openapi({ param: { name: 'id', in: 'path' } }) }) },
  responses: {
    204: { description: 'Disconnected' },
    ...errorResponses(400, 401, 404),
  },
});

const operation = operationsWith<OAuthDb>();

export const connectedAppOperations = operationGroup(oauthDbOf, [
  operation({
    name: 'listConnectedApps',
    kind: 'read',
    method: 'get',
    path: '/v1/users/me/connected-apps',
    tags: ['users'],
    summary: "The signed-in user's connected AI assistants (live connections)",
    output: z.array(connectedAppSchema),
    outputDescription: 'Live connections, newest first',
    errors: [401],
    access: { workspace: false },
    run: async (db, { caller }) => {
      const rows = await db
        .selectFrom('assistant_connections')
        .select(['id', 'client_id', 'client_name', 'org_id', 'scopes', 'created_at', 'last_used_at'])
        .where('user_id', '=', caller.userId)
        .where('revoked_at', 'is', null)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .execute();
      return rows.map((r) => ({
        id: r.id,
        clientId: r.client_id,
        clientName: r.client_name,
        orgId: r.org_id,
        scopes: r.scopes.filter(isAssistantScope),
        connectedAt: r.created_at,
        lastUsedAt: r.last_used_at,
      }));
    },
  }),
]);

export function connectedAppRoutes(db: OAuthDb) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(revokeConnectedApp, async (c) => {
      const { id } = c.req.valid('param');
      const caller = callerOf(c);
      const row = await db
        .selectFrom('assistant_connections')
        .select('id')
        .where('id', '=', id)
        .where('user_id', '=', caller.userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (!row) throw new NotFound('No such connected app');
      await revokeConnection(db, row.id);
      return c.body(null, 204);
    });
  };
}
