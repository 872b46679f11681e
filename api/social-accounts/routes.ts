// Social account routes: GET ORG/marketing/accounts, PATCH and DELETE ORG/marketing/accounts/{accountId}, and
// GET …/{accountId}/tiktok/creator-info. Writes answer from the aggregate; the list comes from the read model.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { socialAccountDeps } from '../../commands/social-accounts/social-account-commands.js';
import {
  deleteSocialAccount,
  getTiktokCreatorInfo,
  updateSocialAccount,
} from '../../commands/social-accounts/social-account-use-cases.js';
import { listSocialAccounts } from '../../projections/social-accounts/queries.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import {
  accountParams,
  socialAccountSchema,
  tiktokCreatorInfoSchema,
  updateSocialAccountBody,
} from './schemas.js';

const listRouteDef = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/marketing/accounts',
  operationId: 'listSocialAccounts',
  tags: ['marketing'],
  summary: "The workspace's social accounts (deleted ones are not listed); an id is a post's socialAccountId",
  request: { params: orgParams },
  responses: {
    200: jsonResponse(
      dataOf(z.array(socialAccountSchema)),
      'Social accounts, by platform then connection time',
    ),
    ...errorResponses(400, 401, 403),
  },
});

const updateRouteDef = createRoute({
  ...secured({ permission: 'accounts:manage' }),
  method: 'patch',
  path: '/v1/orgs/{orgId}/marketing/accounts/{accountId}',
  operationId: 'updateSocialAccount',
  tags: ['marketing'],
  summary: "Set the account's profile URL (null clears it); it is kept over the platform's on a reconnect",
  request: { params: accountParams, headers: idempotencyHeaders, body: jsonBody(updateSocialAccountBody) },
  responses: {
    200: jsonResponse(dataOf(socialAccountSchema), 'The account'),
    ...errorResponses(400, 401, 403, 404, 409, 413, 422, 503),
  },
});

const deleteRouteDef = createRoute({
  ...secured({ permission: 'accounts:manage' }),
  method: 'delete',
  path: '/v1/orgs/{orgId}/marketing/accounts/{accountId}',
  operationId: 'deleteSocialAccount',
  tags: ['marketing'],
  summary: 'Remove the account and its stored access; answers with the account as it was',
  request: { params: accountParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(dataOf(socialAccountSchema), 'The deleted account'),
    ...errorResponses(400, 401, 403, 404, 409, 422, 503),
  },
});

const creatorInfoRouteDef = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/marketing/accounts/{accountId}/tiktok/creator-info',
  operationId: 'getTiktokCreatorInfo',
  tags: ['marketing'],
  summary:
    'What TikTok lets this creator post now (privacy levels, interactions, video length); 400 for accounts of other platforms',
  request: { params: accountParams },
  responses: {
    200: jsonResponse(dataOf(tiktokCreatorInfoSchema), 'Creator info, as TikTok answers it'),
    ...errorResponses(400, 401, 403, 404, 409, 503),
  },
});

export function socialAccountRoutes(services: RouteServices) {
  const deps = { ...socialAccountDeps(services), idempotency: services.idempotency };
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await listSocialAccounts(services.readModels, callerOf(c), { orgId }) }, 200);
    });

    app.openapi(updateRouteDef, async (c) => {
      const { orgId, accountId } = c.req.valid('param');
      const body = c.req.valid('json');
      const input = { orgId, accountId, profileUrl: body.profileUrl };
      const written = await updateSocialAccount(deps, callerOf(c), input, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(deleteRouteDef, async (c) => {
      const input = c.req.valid('param');
      const written = await deleteSocialAccount(
        deps,
        callerOf(c),
        input,
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(creatorInfoRouteDef, async (c) => {
      const info = await getTiktokCreatorInfo(
        { ...deps, logger: c.get('logger') },
        callerOf(c),
        c.req.valid('param'),
        { signal: c.req.raw.signal },
      );
      return c.json({ data: info }, 200);
    });
  };
}
