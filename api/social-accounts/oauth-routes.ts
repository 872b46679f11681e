// Connecting social accounts, the routes that stay routes: oauth/start (behind the bearer, but its answer sets
// the cookie binding the authorization to the caller's browser, which an operation's `{ data }` answer cannot
// carry), our begin URL (public, a redirect: only that browser is sent on to the platform), the platforms'
// callbacks (public: the state names the starter) and the Bluesky client metadata document (public). Bluesky app
// passwords and LinkedIn page choices are operations (operations.ts). Connected accounts go through the commands.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import {
  connectorFailure,
  newSecret,
  startOAuth,
  type ConnectionDeps,
} from '../../commands/social-accounts/connection-use-cases.js';
import {
  connectSocialAccounts,
  socialAccountDeps,
} from '../../commands/social-accounts/social-account-commands.js';
import type { CommandMetadata } from '../../commands/shared/command-handler.js';
import { platformNames, type Platform } from '../../domain/shared/platforms.js';
import { AppError, Forbidden, ValidationError } from '../../domain/shared/errors.js';
import { permissionsOf, isRole } from '../../domain/workspaces/roles.js';
import { blueskyClientMetadata } from '../../infra/connectors/bluesky/client-metadata.js';
import {
  authorizationLifetimeMinutes,
  OAuthStateStore,
  secretDigest,
  type LinkedinTarget,
  type PendingAuthorization,
} from '../../infra/social-accounts/oauth-state-store.js';
import type { Logger } from '../../infra/logging/logger.js';
import { findMembershipRole } from '../../projections/workspaces/queries.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses, zodDetails } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import type { RouteServices } from '../shared/services.js';
import {
  callbackQuery,
  linkedinCallbackQuery,
  oauthStartBody,
  oauthStartResult,
  pageOptionSchema,
  platformParams,
} from './oauth-schemas.js';
import { socialAccountSchema } from './schemas.js';

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

/** A callback name in operationIds: `beginXOAuth`, `completeLinkedinPagesOAuth`. */
const operationNames: Record<CallbackName, string> = {
  bluesky: 'Bluesky',
  facebook: 'Facebook',
  instagram: 'Instagram',
  linkedin: 'Linkedin',
  'linkedin-pages': 'LinkedinPages',
  reddit: 'Reddit',
  x: 'X',
  threads: 'Threads',
  tiktok: 'Tiktok',
  youtube: 'Youtube',
};

/** An authorization's path segment: its platform, or `linkedin-pages` for LinkedIn pages. */
function callbackNameOf(platform: Platform, linkedinTarget?: LinkedinTarget | null): CallbackName {
  return platform === 'linkedin' && linkedinTarget === 'page' ? 'linkedin-pages' : platform;
}

/** Which authorizations a callback or begin path serves: its platform and, for LinkedIn, the target. */
function authorizationsOf(name: CallbackName): { platform: Platform; linkedinTarget?: LinkedinTarget } {
  if (name === 'linkedin-pages') return { platform: 'linkedin', linkedinTarget: 'page' };
  if (name === 'linkedin') return { platform: 'linkedin', linkedinTarget: 'profile' };
  return { platform: name };
}

/** Where a platform sends the user back; LinkedIn pages have a callback of their own (the spec's table). */
export function oauthCallbackUrl(
  publicBaseUrl: string,
  platform: Platform,
  linkedinTarget?: LinkedinTarget,
): string {
  return `${publicBaseUrl}/v1/marketing/oauth/${callbackNameOf(platform, linkedinTarget)}/callback`;
}

/**
 * The cookie binding an authorization to the browser that started it (set by oauth/start's answer): one per state (two
 * authorizations in one browser do not clash), named after a prefix of the state's digest, holding a random
 * nonce whose digest the pending authorization keeps. HttpOnly; SameSite=Lax, which a top-level GET redirect
 * from the platform still carries; scoped to the platform's OAuth path as the browser sees it (under
 * PUBLIC_BASE_URL's own path); Secure, with the `__Secure-` prefix, when PUBLIC_BASE_URL is https.
 */
function browserCookie(publicBaseUrl: string, state: string, name: CallbackName) {
  const base = new URL(publicBaseUrl);
  const secure = base.protocol === 'https:';
  const options: CookieOptions = {
    path: `${base.pathname.replace(/\/$/, '')}/v1/marketing/oauth/${name}/`,
    httpOnly: true,
    sameSite: 'Lax',
    secure,
    ...(secure ? { prefix: 'secure' as const } : {}),
  };
  return { name: `oauth_${secretDigest(state).slice(0, 16)}`, options };
}

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
      status: z.literal('denied'),
      platform: z.string(),
      error: z.string().openapi({ description: "The platform's error code", example: 'access_denied' }),
      errorDescription: z.string().nullable(),
      redirectUri: z.string(),
    }),
    z.object({
      status: z.literal('error'),
      platform: z.string(),
      error: z.string().openapi({
        description:
          "The platform's error code, or ours when the callback matches no authorization it may complete (nothing " +
          'is connected or used up): `invalid_state` (unknown, expired, already used, or for another callback), ' +
          '`invalid_request` (neither code nor error, or a malformed query), `browser_mismatch` (started in ' +
          'another browser: only the one that called oauth/start may finish it)',
        example: 'invalid_state',
      }),
      errorDescription: z.string().nullable(),
      redirectUri: z.string().nullable().openapi({
        description: 'As given to oauth/start; null when the callback names no open authorization',
      }),
    }),
  ])
  .openapi('OAuthCallbackResult');

/** Why a callback completes nothing, as the `error` of a 200 `status: error` answer. */
type CallbackRefusal = 'invalid_state' | 'invalid_request' | 'browser_mismatch';

/** What a callback ends in, before the redirectUri every answer carries. */
type CallbackOutcome<R = z.infer<typeof callbackResult>> = R extends unknown ? Omit<R, 'redirectUri'> : never;

/** The routes a member who manages the workspace's accounts calls. */
const managingAccounts = { ...secured({ permission: 'accounts:manage' }), tags: ['marketing'] };

const startRouteDef = createRoute({
  ...managingAccounts,
  method: 'post',
  path: '/v1/orgs/{orgId}/marketing/accounts/{platform}/oauth/start',
  operationId: 'startOAuth',
  summary: 'Start connecting an account: the URL to send the user to, and the single-use state',
  description:
    "Call it from the browser that will go through the authorization (the web app, with the user's token): " +
    'the answer sets an HttpOnly cookie that binds the authorization to that browser. `authorizationUrl` ' +
    'opened in any other browser (a forwarded link) answers 403 and connects nothing.',
  request: { params: platformParams, body: jsonBody(oauthStartBody) },
  responses: {
    200: {
      ...jsonResponse(dataOf(oauthStartResult), 'Where to send the user'),
      headers: {
        'Set-Cookie': {
          description: 'The browser binding: `oauth_<id>=<nonce>`, HttpOnly, SameSite=Lax, on the OAuth path',
          schema: { type: 'string' },
        },
      },
    },
    ...errorResponses(400, 401, 403, 413, 503),
  },
});

const clientMetadataRouteDef = createRoute({
  method: 'get',
  path: '/v1/marketing/oauth/bluesky/client-metadata',
  operationId: 'getBlueskyClientMetadata',
  security: [],
  tags: ['oauth'],
  summary: 'Client metadata document for AT Protocol OAuth (its URL is the client_id)',
  responses: {
    200: jsonResponse(z.record(z.string(), z.unknown()), 'The client metadata document'),
  },
});

const beginQuery = z.object({
  state: z
    .string()
    .min(1)
    .max(1024)
    .openapi({ param: { name: 'state', in: 'query' }, description: 'The state oauth/start answered' }),
});

function beginRouteDef(name: CallbackName) {
  return createRoute({
    method: 'get',
    path: `/v1/marketing/oauth/${name}/begin`,
    operationId: `begin${operationNames[name]}OAuth`,
    security: [],
    tags: ['oauth'],
    summary: `The authorizationUrl of oauth/start for ${name === 'linkedin-pages' ? 'LinkedIn (pages)' : platformNames[name]}: on to the platform, for the browser that started it (its oauth/start cookie) only`,
    request: { query: beginQuery },
    responses: {
      302: {
        description: "To the platform's authorization page",
        headers: {
          Location: { description: "The platform's authorization page", schema: { type: 'string' } },
        },
      },
      ...errorResponses(400, 403),
    },
  });
}

function callbackRouteDef(name: CallbackName) {
  return createRoute({
    method: 'get',
    path: `/v1/marketing/oauth/${name}/callback`,
    operationId: `complete${operationNames[name]}OAuth`,
    security: [],
    tags: ['oauth'],
    summary: `Where ${name === 'linkedin-pages' ? 'LinkedIn (pages)' : platformNames[name]} sends the user back`,
    request: { query: name === 'linkedin' ? linkedinCallbackQuery : callbackQuery },
    responses: {
      200: jsonResponse(
        dataOf(callbackResult),
        'Connected, pages to choose from, denied, or an error with its reason: an unknown, expired or used ' +
          'state, a malformed callback, one from another browser, a starter who can no longer manage ' +
          "accounts, the platform refusing or not answering (`error` is the stable code, e.g. 'invalid_state', " +
          "'browser_mismatch', 'not_allowed', 'platform_authorization_failed', 'platform_unavailable')",
      ),
    },
  });
}

// OAuth's `access_denied`, Facebook's `user_denied` reason, LinkedIn's `user_cancelled_*`: the user said no.
const denialCodes = /^(access_denied|user_denied|user_cancelled_login|user_cancelled_authorize)$/;

type CallbackQuery = z.infer<typeof callbackQuery>;

const startedElsewhere = () =>
  new Forbidden(
    'This authorization was started in another browser; start connecting the account again in this one',
  );

const unknownState = () =>
  new ValidationError(
    'Unknown, expired or already used state; start connecting the account again',
    undefined,
    [{ path: 'query.state', message: 'unknown, expired or already used' }],
  );

/**
 * A callback that completes nothing: 200 `status: error` with a stable code, as every callback answers (the app
 * reads one shape). Nothing is connected or used up; the state, if open, stays usable by its own browser.
 */
function refuseCallback(
  c: Context<AppEnv>,
  name: CallbackName,
  error: CallbackRefusal,
  errorDescription: string,
  redirectUri: string | null,
) {
  c.get('logger')?.info({ callback: name, error }, 'OAuth callback refused');
  const platform: Platform = name === 'linkedin-pages' ? 'linkedin' : name;
  return c.json({ data: { status: 'error' as const, platform, error, errorDescription, redirectUri } }, 200);
}

/** What the connection use cases need (oauth/start here, the operations in operations.ts), with a logger. */
export function connectionDepsOf(services: RouteServices): (logger: Logger | undefined) => ConnectionDeps {
  const store = new OAuthStateStore(services.readModels, services.tokenCipher);
  // The callback answer hands redirectUri to the app to navigate to: only our own address and the web apps'.
  const redirectOrigins = new Set([new URL(services.publicBaseUrl).origin, ...services.env.APP_ORIGINS]);
  const accounts = socialAccountDeps(services);
  return (logger) => ({
    ...accounts,
    idempotency: services.idempotency,
    oauthStates: store,
    redirectOrigins,
    callbackUrl: (platform, linkedinTarget) =>
      oauthCallbackUrl(services.publicBaseUrl, platform, linkedinTarget),
    ...(logger ? { logger } : {}),
  });
}

/**
 * The use case names the fields of its input; oauth/start's input fields (but the path's) are its body's.
 * The server's settings (`env.…`) are named as they are.
 */
async function inBody<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof AppError) || error.details === undefined) throw error;
    throw error.withDetails(
      error.details.map((d) => (d.path.startsWith('env.') ? d : { ...d, path: `body.${d.path}` })),
    );
  }
}

export function oauthRoutes(services: RouteServices) {
  const connectionWith = connectionDepsOf(services);
  const store = connectionWith(undefined).oauthStates;
  const accounts = socialAccountDeps(services);
  const now = () => services.now?.() ?? new Date();
  /** What the connection use cases need, with this request's logger. */
  const connection = (c: Context<AppEnv>): ConnectionDeps => connectionWith(c.get('logger'));

  /** The callback's user still has to manage accounts in the workspace: membership may have changed since start. */
  async function stillManaging(pending: PendingAuthorization): Promise<boolean> {
    const role = await findMembershipRole(services.readModels, pending.userId, pending.orgId);
    return role !== null && isRole(role) && permissionsOf(role).includes('accounts:manage');
  }

  /** Our begin URL: on to the platform, for the browser that started the authorization only. */
  async function handleBegin(c: Context<AppEnv>, name: CallbackName, state: string) {
    const where = authorizationsOf(name);
    const cookie = browserCookie(services.publicBaseUrl, state, name);
    const begun = await store.beginAuthorization(
      state,
      where,
      getCookie(c, cookie.name, cookie.options.prefix),
    );
    if (!begun) {
      if (await store.isOpen(state, where)) throw startedElsewhere();
      throw unknownState();
    }
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    return c.redirect(begun.platformAuthorizationUrl, 302);
  }

  async function handleCallback(c: Context<AppEnv>, name: CallbackName, query: CallbackQuery) {
    const platform: Platform = name === 'linkedin-pages' ? 'linkedin' : name;
    const where = authorizationsOf(name);
    if (query.error === undefined && query.code === undefined)
      return refuseCallback(
        c,
        name,
        'invalid_request',
        'The callback carries neither code nor error; start connecting the account again',
        await store.openRedirectUri(query.state, where),
      );
    const cookie = browserCookie(services.publicBaseUrl, query.state, name);
    // Only the browser that started the authorization carries the nonce: a code or a denial from any other
    // browser (someone the link was forwarded to, a leaked redirect) connects nothing and leaves the state alone.
    const nonce = getCookie(c, cookie.name, cookie.options.prefix);
    const pending = await store.consumeAuthorization(query.state, platform, where.linkedinTarget, nonce);
    if (!pending) {
      const openFor = await store.openRedirectUri(query.state, where);
      if (openFor !== null)
        return refuseCallback(c, name, 'browser_mismatch', startedElsewhere().message, openFor);
      return refuseCallback(c, name, 'invalid_state', unknownState().message, null);
    }
    deleteCookie(c, cookie.name, cookie.options);
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
    // The state is used up from here on: what goes wrong is answered as an outcome of this authorization.
    const failed = (error: string, errorDescription: string) =>
      answer({ status: 'error', platform, error, errorDescription });
    if (!(await stillManaging(pending)))
      return failed(
        'not_allowed',
        'The user who started this connection can no longer manage accounts in that workspace',
      );
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
      const failure = connectorFailure(platform, error, c.get('logger'));
      return failed(failure.code ?? 'platform_unavailable', failure.message);
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
      const started = await inBody(() =>
        startOAuth(connection(c), callerOf(c), { orgId, platform, ...body }),
      );
      // The caller's browser gets the cookie with this answer (the web app calls oauth/start from it, with the
      // user's bearer token): no other browser can get it, so a forwarded authorizationUrl leads nowhere.
      const name = callbackNameOf(platform, started.linkedinTarget);
      const cookie = browserCookie(services.publicBaseUrl, started.state, name);
      setCookie(c, cookie.name, started.browserNonce, {
        ...cookie.options,
        maxAge: authorizationLifetimeMinutes * 60,
      });
      c.header('Cache-Control', 'no-store');
      // The user goes to our begin URL first, which checks the cookie, then on to the platform.
      const begin = new URL(`${services.publicBaseUrl}/v1/marketing/oauth/${name}/begin`);
      begin.searchParams.set('state', started.state);
      return c.json({ data: { authorizationUrl: begin.toString(), state: started.state } }, 200);
    });

    app.openapi(clientMetadataRouteDef, (c) => c.json(blueskyClientMetadata(services.publicBaseUrl), 200));

    for (const name of callbackNames) {
      app.openapi(beginRouteDef(name), async (c) => handleBegin(c, name, c.req.valid('query').state));
      app.openapi(
        callbackRouteDef(name),
        async (c) => handleCallback(c, name, c.req.valid('query')),
        // A malformed query (no state, LinkedIn's member callback without code, oversized values) is answered
        // like any other refused callback, not with the API's 400.
        (result, c) => {
          if (result.success) return undefined;
          const problems = zodDetails(result.error, 'query').map((d) => `${d.path}: ${d.message}`);
          return refuseCallback(
            c,
            name,
            'invalid_request',
            `Invalid callback (${problems.join('; ')}); start connecting the account again`,
            null,
          );
        },
      );
    }
  };
}
