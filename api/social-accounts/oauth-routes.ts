// Connecting social accounts: oauth/start, the platforms' callbacks (no bearer), Bluesky app passwords,
// LinkedIn page choices and the Bluesky client metadata document. Connected accounts go through the commands.
import { createHash, randomBytes } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  connectSocialAccounts,
  socialAccountDeps,
  type SocialAccountView,
} from '../../commands/social-accounts/social-account-commands.js';
import type { CommandMetadata } from '../../commands/shared/command-handler.js';
import { platformNames, type Platform } from '../../domain/post-groups/post-content.js';
import {
  Forbidden,
  NotFound,
  ServiceUnavailable,
  ValidationError,
  type AppError,
  type ErrorDetail,
} from '../../domain/shared/errors.js';
import { permissionsOf, isRole } from '../../domain/workspaces/roles.js';
import { blueskyClientMetadata } from '../../infra/connectors/bluesky/client-metadata.js';
import { isConnectorError, type PlatformConnector } from '../../infra/connectors/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import {
  OAuthStateStore,
  type LinkedinTarget,
  type PendingAuthorization,
} from '../../infra/social-accounts/oauth-state-store.js';
import { findMembershipRole } from '../../projections/workspaces/queries.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { commandMetadata, idempotentWrite } from '../shared/write.js';
import { keyedWriteOptions, okAnswer } from './answers.js';
import {
  blueskyConnectBody,
  callbackQuery,
  linkedinCallbackQuery,
  linkedinPagesBody,
  linkedinPagesQuery,
  linkedinPagesResult,
  oauthStartBody,
  oauthStartResult,
  pageOptionSchema,
  platformParams,
} from './oauth-schemas.js';
import { socialAccountSchema } from './schemas.js';

/** Where a platform sends the user back; LinkedIn pages have a callback of their own (the spec's table). */
export function oauthCallbackUrl(
  publicBaseUrl: string,
  platform: Platform,
  linkedinTarget?: LinkedinTarget,
): string {
  const name = platform === 'linkedin' && linkedinTarget === 'page' ? 'linkedin-pages' : platform;
  return `${publicBaseUrl}/v1/marketing/oauth/${name}/callback`;
}

/** 503 `platform_not_configured` naming the environment variables a live connector still needs. */
function requireConfigured(connector: PlatformConnector): void {
  const missing = connector.missingConfiguration();
  if (missing.length === 0) return;
  throw new ServiceUnavailable(
    `${platformNames[connector.platform]} is not configured on this server: set ${missing.join(', ')}`,
    'platform_not_configured',
    missing.map((name) => ({ path: `env.${name}`, message: 'not set' })),
  );
}

/**
 * A failed platform call as the spec's error body. The connector's own message stays out of the answer and the
 * log: platforms echo request parameters in error texts, and those may include a code or a token.
 */
function connectorFailure(platform: Platform, error: unknown, logger: Logger | undefined): AppError {
  if (!isConnectorError(error)) throw error;
  logger?.warn(
    { platform, kind: error.kind, status: error.details.status, platformCode: error.details.platformCode },
    'platform call failed while connecting an account',
  );
  const name = platformNames[platform];
  switch (error.kind) {
    case 'rate_limited':
      return new ServiceUnavailable(
        `${name} is limiting requests; try again in a few minutes`,
        'platform_rate_limited',
      );
    case 'auth':
    case 'permanent':
      return new ServiceUnavailable(
        `${name} refused the authorization; start connecting the account again`,
        'platform_authorization_failed',
      );
    case 'retryable':
    case 'unknown_outcome':
      return new ServiceUnavailable(`${name} did not answer; try again`, 'platform_unavailable');
  }
}

/** PKCE S256 (RFC 7636): a 64-character verifier and its SHA-256 challenge. */
function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

const accountsResponse = (description: string) =>
  jsonResponse(dataOf(z.array(socialAccountSchema)), description);

const callbackResult = z
  .discriminatedUnion('status', [
    z.object({
      status: z.literal('connected'),
      platform: z.string(),
      accounts: z.array(socialAccountSchema),
      redirectUri: z.string(),
    }),
    z.object({
      status: z.literal('choose_pages'),
      platform: z.literal('linkedin'),
      choice: z.string().openapi({ description: 'Pass to GET and POST ORG/marketing/linkedin-pages' }),
      pages: z.array(pageOptionSchema),
      redirectUri: z.string(),
    }),
    z.object({
      status: z.enum(['denied', 'error']),
      platform: z.string(),
      error: z.string(),
      errorDescription: z.string().nullable(),
      redirectUri: z.string(),
    }),
  ])
  .openapi('OAuthCallbackResult');

/** What a callback ends in, before the redirectUri every answer carries. */
type CallbackOutcome<R = z.infer<typeof callbackResult>> = R extends unknown ? Omit<R, 'redirectUri'> : never;

/** The routes a member who manages the workspace's accounts calls. */
const managingAccounts = { ...secured({ permission: 'accounts:manage' }), tags: ['marketing'] };

const startRouteDef = createRoute({
  ...managingAccounts,
  method: 'post',
  path: '/v1/orgs/{orgId}/marketing/accounts/{platform}/oauth/start',
  summary: 'Start connecting an account: the URL to send the user to, and the single-use state',
  request: { params: platformParams, body: jsonBody(oauthStartBody) },
  responses: {
    200: jsonResponse(dataOf(oauthStartResult), 'Where to send the user'),
    ...errorResponses(400, 401, 403, 413, 503),
  },
});

const blueskyConnectRouteDef = createRoute({
  ...managingAccounts,
  method: 'post',
  path: '/v1/orgs/{orgId}/marketing/accounts/bluesky/connect',
  summary: 'Connect a Bluesky account with an app password (the password is used once and never kept)',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(blueskyConnectBody) },
  responses: {
    200: jsonResponse(dataOf(socialAccountSchema), 'The connected account'),
    ...errorResponses(400, 401, 403, 413, 422, 503),
  },
});

const pagesListRouteDef = createRoute({
  ...managingAccounts,
  method: 'get',
  path: '/v1/orgs/{orgId}/marketing/linkedin-pages',
  summary: 'The LinkedIn pages a pending choice offers',
  request: { params: orgParams, query: linkedinPagesQuery },
  responses: {
    200: jsonResponse(dataOf(linkedinPagesResult), 'Pages the member administers'),
    ...errorResponses(400, 401, 403, 404),
  },
});

const pagesConnectRouteDef = createRoute({
  ...managingAccounts,
  method: 'post',
  path: '/v1/orgs/{orgId}/marketing/linkedin-pages',
  summary: 'Connect the LinkedIn pages picked from a pending choice',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(linkedinPagesBody) },
  responses: {
    200: accountsResponse('The connected pages'),
    ...errorResponses(400, 401, 403, 404, 413, 422, 503),
  },
});

const clientMetadataRouteDef = createRoute({
  method: 'get',
  path: '/v1/marketing/oauth/bluesky/client-metadata',
  tags: ['oauth'],
  summary: 'Client metadata document for AT Protocol OAuth (its URL is the client_id)',
  responses: {
    200: jsonResponse(z.record(z.string(), z.unknown()), 'The client metadata document'),
  },
});

/** The callback family: every platform, plus LinkedIn pages (the spec's table and the ones it leaves out). */
const callbackNames = [
  'bluesky',
  'facebook',
  'instagram',
  'linkedin',
  'linkedin-pages',
  'reddit',
  'x',
  'threads',
  'tiktok',
  'youtube',
] as const;
type CallbackName = (typeof callbackNames)[number];

function callbackRouteDef(name: CallbackName) {
  return createRoute({
    method: 'get',
    path: `/v1/marketing/oauth/${name}/callback`,
    tags: ['oauth'],
    summary: `Where ${name === 'linkedin-pages' ? 'LinkedIn (pages)' : platformNames[name]} sends the user back`,
    request: { query: name === 'linkedin' ? linkedinCallbackQuery : callbackQuery },
    responses: {
      200: jsonResponse(dataOf(callbackResult), 'Connected, denied, or pages to choose from'),
      ...errorResponses(400, 403, 503),
    },
  });
}

// OAuth's `access_denied`, Facebook's `user_denied` reason, LinkedIn's `user_cancelled_*`: the user said no.
const denialCodes = /^(access_denied|user_denied|user_cancelled_login|user_cancelled_authorize)$/;

type CallbackQuery = z.infer<typeof callbackQuery>;

export function oauthRoutes(services: RouteServices) {
  const store = new OAuthStateStore(services.readModels, services.tokenCipher);
  const accounts = socialAccountDeps(services);
  const now = () => services.now?.() ?? new Date();

  /** The open LinkedIn page choice of this member in this workspace; 404 otherwise. */
  async function openPageChoice(choice: string, owner: { orgId: string; userId: string }) {
    const pending = await store.findPageChoice(choice, owner);
    if (!pending) throw new NotFound('No open LinkedIn page choice with this id');
    return pending;
  }

  /** The callback's user still has to manage accounts in the workspace: membership may have changed since start. */
  async function requireStillManaging(pending: PendingAuthorization): Promise<void> {
    const role = await findMembershipRole(services.readModels, pending.userId, pending.orgId);
    if (!role || !isRole(role) || !permissionsOf(role).includes('accounts:manage'))
      throw new Forbidden(
        'The user who started this connection can no longer manage accounts in that workspace',
      );
  }

  async function handleCallback(
    c: Context<AppEnv>,
    name: CallbackName,
    query: CallbackQuery,
  ): Promise<Response> {
    const platform: Platform = name === 'linkedin-pages' ? 'linkedin' : name;
    if (query.error === undefined && query.code === undefined)
      throw new ValidationError('Invalid request', undefined, [
        { path: 'query.code', message: 'Required unless the platform sent an error' },
      ]);
    const pending = await store.consumeAuthorization(
      query.state,
      platform,
      platform === 'linkedin' ? (name === 'linkedin-pages' ? 'page' : 'profile') : undefined,
    );
    if (!pending)
      throw new ValidationError(
        'Unknown, expired or already used state; start connecting the account again',
        undefined,
        [{ path: 'query.state', message: 'unknown, expired or already used' }],
      );
    // Every outcome names where the app wants the user back, as oauth/start was told.
    const answer = (data: CallbackOutcome) =>
      c.json({ data: { ...data, redirectUri: pending.redirectUri } }, 200);
    if (query.error !== undefined) {
      const denied = denialCodes.test(query.error) || query.error_reason === 'user_denied';
      return answer({
        status: denied ? 'denied' : 'error',
        platform,
        error: query.error,
        errorDescription: query.error_description ?? null,
      });
    }
    await requireStillManaging(pending);
    const connector = services.connectors.get(platform);
    const params = Object.fromEntries(
      Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    let result;
    try {
      result = await connector.completeAuthorization({
        params,
        callbackUrl: oauthCallbackUrl(services.publicBaseUrl, platform, pending.linkedinTarget ?? undefined),
        codeVerifier: pending.codeVerifier,
        ...(pending.context ? { context: pending.context } : {}),
        ...(pending.linkedinTarget ? { linkedinTarget: pending.linkedinTarget } : {}),
      });
    } catch (error) {
      throw connectorFailure(platform, error, c.get('logger'));
    }
    if (result.kind === 'choice') {
      const choice = newSecret();
      await store.savePageChoice(choice, {
        orgId: pending.orgId,
        userId: pending.userId,
        options: result.choice.options,
        tokens: result.choice.tokens,
      });
      return answer({ status: 'choose_pages', platform: 'linkedin', choice, pages: result.choice.options });
    }
    // The state's user is the actor: the callback has no bearer, the authorization is what they started.
    const metadata: CommandMetadata = {
      orgId: pending.orgId,
      actor: pending.userId,
      correlationId: c.get('requestId'),
      causationId: null,
      now: now().toISOString(),
    };
    const connected = await connectSocialAccounts(
      accounts,
      { orgId: pending.orgId, platform, accounts: result.accounts },
      metadata,
    );
    return answer({ status: 'connected', platform, accounts: connected });
  }

  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(startRouteDef, async (c) => {
      const { orgId, platform } = c.req.valid('param');
      const body = c.req.valid('json');
      const problems: ErrorDetail[] = [];
      if (body.linkedinTarget !== undefined && platform !== 'linkedin')
        problems.push({ path: 'body.linkedinTarget', message: 'Only for linkedin' });
      if (platform === 'bluesky' && body.blueskyHandle === undefined)
        problems.push({ path: 'body.blueskyHandle', message: 'Required for bluesky' });
      if (body.blueskyHandle !== undefined && platform !== 'bluesky')
        problems.push({ path: 'body.blueskyHandle', message: 'Only for bluesky' });
      if (problems.length > 0) throw new ValidationError('Invalid request', undefined, problems);

      const connector = services.connectors.get(platform);
      requireConfigured(connector);
      const state = newSecret();
      const pkce = pkcePair();
      const blueskyHandle = body.blueskyHandle?.replace(/^@/, '');
      let start;
      try {
        start = await connector.startAuthorization({
          state,
          callbackUrl: oauthCallbackUrl(services.publicBaseUrl, platform, body.linkedinTarget),
          codeChallenge: pkce.challenge,
          ...(body.linkedinTarget ? { linkedinTarget: body.linkedinTarget } : {}),
          ...(blueskyHandle ? { blueskyHandle } : {}),
        });
      } catch (error) {
        // A Bluesky handle that does not resolve is the caller's input, not a platform outage.
        if (platform === 'bluesky' && isConnectorError(error) && error.kind === 'permanent')
          throw new ValidationError('Invalid request', undefined, [
            {
              path: 'body.blueskyHandle',
              message: 'Bluesky could not find an account server for this handle',
            },
          ]);
        throw connectorFailure(platform, error, c.get('logger'));
      }
      await store.saveAuthorization(state, {
        orgId,
        userId: c.get('principal').userId,
        platform,
        redirectUri: body.redirectUri,
        linkedinTarget: platform === 'linkedin' ? (body.linkedinTarget ?? 'profile') : null,
        blueskyHandle: blueskyHandle ?? null,
        codeVerifier: pkce.verifier,
        context: start.context,
      });
      return c.json({ data: { authorizationUrl: start.authorizationUrl, state } }, 200);
    });

    app.openapi(blueskyConnectRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const { appPassword, ...rest } = c.req.valid('json');
      const handle = rest.handle.replace(/^@/, '');
      const connector = services.connectors.get('bluesky');
      requireConfigured(connector);
      if (!connector.connectWithAppPassword)
        throw new ServiceUnavailable(
          'Bluesky app passwords are not supported by this server',
          'platform_not_configured',
        );
      const connectWithAppPassword = connector.connectWithAppPassword.bind(connector);
      // The request hash for Idempotency-Key covers the handle only, so no digest of the password is kept.
      return idempotentWrite(c, services, { handle }, async (write) => {
        let account;
        try {
          account = await connectWithAppPassword(handle, appPassword);
        } catch (error) {
          if (isConnectorError(error) && (error.kind === 'auth' || error.kind === 'permanent'))
            throw new ValidationError('Bluesky did not accept this handle and app password', undefined, [
              { path: 'body.appPassword', message: 'not accepted for this handle' },
            ]);
          throw connectorFailure('bluesky', error, c.get('logger'));
        }
        const [view] = await connectSocialAccounts(
          accounts,
          { orgId, platform: 'bluesky', accounts: [account] },
          commandMetadata(c, services),
          keyedWriteOptions(write, (views: SocialAccountView[]) => views[0]),
        );
        return { response: okAnswer(view), appended: true };
      }) as never;
    });

    app.openapi(pagesListRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const { choice } = c.req.valid('query');
      const pending = await openPageChoice(choice, { orgId, userId: c.get('principal').userId });
      return c.json({ data: { pages: pending.options } }, 200);
    });

    app.openapi(pagesConnectRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const owner = { orgId, userId: c.get('principal').userId };
      return idempotentWrite(c, services, body, async (write) => {
        const pending = await openPageChoice(body.choice, owner);
        const offered = new Set(pending.options.map((o) => o.id));
        const unknown = body.organizationIds
          .map((id, index) => ({ id, index }))
          .filter(({ id }) => !offered.has(id));
        if (unknown.length > 0)
          throw new ValidationError(
            `Not among the pages of this choice: ${unknown.map((u) => u.id).join(', ')}`,
            undefined,
            unknown.map(({ id, index }) => ({
              path: `body.organizationIds.${index}`,
              message: `${id} is not a page of this choice`,
            })),
          );
        const connector = services.connectors.get('linkedin');
        if (!connector.connectChoice)
          throw new ServiceUnavailable(
            'LinkedIn pages are not supported by this server',
            'platform_not_configured',
          );
        let connected;
        try {
          connected = await connector.connectChoice(pending.tokens, [...new Set(body.organizationIds)]);
        } catch (error) {
          throw connectorFailure('linkedin', error, c.get('logger'));
        }
        const views = await connectSocialAccounts(
          accounts,
          { orgId, platform: 'linkedin', accounts: connected },
          commandMetadata(c, services),
          keyedWriteOptions(write),
        );
        await store.closePageChoice(body.choice, owner);
        return { response: okAnswer(views), appended: true };
      }) as never;
    });

    app.openapi(clientMetadataRouteDef, (c) => c.json(blueskyClientMetadata(services.publicBaseUrl), 200));

    for (const name of callbackNames) {
      app.openapi(
        callbackRouteDef(name),
        async (c) => handleCallback(c, name, c.req.valid('query')) as never,
      );
    }
  };
}
