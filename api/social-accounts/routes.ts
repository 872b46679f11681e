// Social account routes: GET ORG/marketing/accounts, PATCH and DELETE ORG/marketing/accounts/{accountId}, and
// GET …/{accountId}/tiktok/creator-info. Writes answer from the aggregate; the list comes from the read model.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { AccountAccess } from '../../commands/social-accounts/account-access.js';
import {
  deleteSocialAccount,
  getLiveSocialAccount,
  socialAccountDeps,
  updateSocialAccountProfileUrl,
} from '../../commands/social-accounts/social-account-commands.js';
import { Conflict, ServiceUnavailable, ValidationError } from '../../domain/shared/errors.js';
import { isConnectorError, type ConnectorErrorKind } from '../../infra/connectors/port.js';
import { listSocialAccounts } from '../../projections/social-accounts/queries.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { commandMetadata, idempotentWrite } from '../shared/write.js';
import { keyedWriteOptions, okAnswer } from './answers.js';
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
  tags: ['marketing'],
  summary:
    'What TikTok lets this creator post now (privacy levels, interactions, video length); 400 for accounts of other platforms',
  request: { params: accountParams },
  responses: {
    200: jsonResponse(dataOf(tiktokCreatorInfoSchema), 'Creator info, as TikTok answers it'),
    ...errorResponses(400, 401, 403, 404, 409, 503),
  },
});

/** A platform failure behind creator-info, as the API says it; never the platform's raw answer. */
function platformFailure(kind: ConnectorErrorKind, message: string): Error {
  if (kind === 'auth') return new Conflict(message, 'account_needs_reconnecting');
  return new ServiceUnavailable(
    'TikTok did not answer the creator info request; try again shortly',
    'platform_unavailable',
  );
}

export function socialAccountRoutes(services: RouteServices) {
  const deps = socialAccountDeps(services);
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await listSocialAccounts(services.readModels, orgId) }, 200);
    });

    app.openapi(updateRouteDef, async (c) => {
      const { orgId, accountId } = c.req.valid('param');
      const body = c.req.valid('json');
      return idempotentWrite(c, services, body, async (write) => {
        const { account, appended } = await updateSocialAccountProfileUrl(
          deps,
          orgId,
          accountId,
          body.profileUrl,
          commandMetadata(c, services),
          keyedWriteOptions(write),
        );
        return { response: okAnswer(account), appended };
      }) as never;
    });

    app.openapi(deleteRouteDef, async (c) => {
      const { orgId, accountId } = c.req.valid('param');
      return idempotentWrite(c, services, undefined, async (write) => {
        const { account, appended } = await deleteSocialAccount(
          deps,
          orgId,
          accountId,
          commandMetadata(c, services),
          keyedWriteOptions(write),
        );
        return { response: okAnswer(account), appended };
      }) as never;
    });

    app.openapi(creatorInfoRouteDef, async (c) => {
      const { orgId, accountId } = c.req.valid('param');
      const access = new AccountAccess({
        db: services.readModels,
        commands: services.commands,
        tokens: deps.tokens,
        connectors: services.connectors,
        logger: c.get('logger'),
        now: deps.now,
      });
      // Unknown, deleted or another workspace's: 404. Another platform's account exists but has no TikTok
      // creator info: the path names the wrong kind of account, a 400.
      const account = await getLiveSocialAccount(services.commands, orgId, accountId);
      if (account.platform !== 'tiktok')
        throw new ValidationError('Creator info exists for TikTok accounts only', 'not_a_tiktok_account', [
          { path: 'param.accountId', message: `a ${account.platform} account, not a TikTok one` },
        ]);
      const resolved = await access.resolve({ orgId, platform: 'tiktok', socialAccountId: accountId });
      if (!resolved.ok) throw new Conflict(resolved.message, 'account_needs_reconnecting');
      const connector = services.connectors.get('tiktok');
      const creatorInfo = connector.creatorInfo?.bind(connector);
      if (!creatorInfo)
        throw new ServiceUnavailable(
          'The TikTok connector does not offer creator info',
          'platform_unavailable',
        );
      try {
        const info = await access.withTokens(resolved.account, (tokens) =>
          creatorInfo({
            account: resolved.account,
            tokens,
            fetchMedia: () => Promise.reject(new Error('creator info fetches no media')),
            signal: c.req.raw.signal,
          }),
        );
        return c.json({ data: info }, 200);
      } catch (error) {
        if (isConnectorError(error)) throw platformFailure(error.kind, error.message);
        throw error;
      }
    });
  };
}
