// Connected apps in the app API: the signed-in user's live assistant connections, and disconnecting one, which
// ends it at once with every token issued for it (spec "Assistant-tool server": revocation in the app).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { assistantScopes } from '../../domain/shared/caller.js';
import { NotFound } from '../../domain/shared/errors.js';
import { callerOf } from '../auth/caller.js';
import { authenticate } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonResponse } from '../platform/responses.js';
import { canonicalUuid } from '../shared/params.js';
import { isAssistantScope } from './assistant-tokens.js';
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

const listConnectedApps = createRoute({
  method: 'get',
  path: '/v1/users/me/connected-apps',
  operationId: 'listConnectedApps',
  tags: ['users'],
  summary: "The signed-in user's connected AI assistants (live connections)",
  security: [{ bearerAuth: [] }],
  middleware: [authenticate()] as const,
  responses: {
    200: jsonResponse(dataOf(z.array(connectedAppSchema)), 'Live connections, newest first'),
    ...errorResponses(401),
  },
});

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

export function connectedAppRoutes(db: OAuthDb) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listConnectedApps, async (c) => {
      const caller = callerOf(c);
      const rows = await db
        .selectFrom('assistant_connections')
        .select(['id', 'client_id', 'client_name', 'org_id', 'scopes', 'created_at', 'last_used_at'])
        .where('user_id', '=', caller.userId)
        .where('revoked_at', 'is', null)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .execute();
      return c.json(
        {
          data: rows.map((r) => ({
            id: r.id,
            clientId: r.client_id,
            clientName: r.client_name,
            orgId: r.org_id,
            scopes: r.scopes.filter(isAssistantScope),
            connectedAt: r.created_at,
            lastUsedAt: r.last_used_at,
          })),
        },
        200,
      );
    });

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
