// Connecting social accounts, for a caller who manages the workspace's accounts (no assistant scope covers it):
// start an OAuth authorization, connect a Bluesky account with an app password, and list and connect the
// LinkedIn pages of a pending choice. The platforms' callbacks (no caller: the state names the starter) stay
// with the API, which shares the platform-failure mapping and the secrets below.
import { pkceChallenge } from '../../infra/crypto/digests.js';
import { randomBytes } from 'node:crypto';
import { platformNames, type Platform } from '../../domain/shared/platforms.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  NotFound,
  ServiceUnavailable,
  ValidationError,
  type AppError,
  type ErrorDetail,
} from '../../domain/shared/errors.js';
import type { SocialAccountView } from '../../domain/social-accounts/social-account.js';
import { isConnectorError, type PlatformConnector } from '../../infra/connectors/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import type {
  LinkedinTarget,
  OAuthStateStore,
  PageOption,
} from '../../infra/social-accounts/oauth-state-store.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import { connectSocialAccounts } from './social-account-commands.js';
import type { SocialAccountWriteDeps } from './social-account-use-cases.js';

export interface ConnectionDeps extends SocialAccountWriteDeps {
  oauthStates: OAuthStateStore;
  /** The origins a redirectUri may be on: PUBLIC_BASE_URL's and APP_ORIGINS. */
  redirectOrigins: ReadonlySet<string>;
  /** Where a platform sends the user back (the API's callback URL for the platform and LinkedIn target). */
  callbackUrl: (platform: Platform, linkedinTarget?: LinkedinTarget) => string;
  logger?: Pick<Logger, 'warn'>;
}

const managing = (orgId: string) => ({ orgId, permission: 'accounts:manage', scope: null }) as const;

/** 503 `platform_not_configured` naming the environment variables a live connector still needs. */
export function requireConfigured(connector: PlatformConnector): void {
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
export function connectorFailure(
  platform: Platform,
  error: unknown,
  logger: Pick<Logger, 'warn'> | undefined,
): AppError {
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
  return { verifier, challenge: pkceChallenge(verifier) };
}

/** A single-use secret: an OAuth state, a browser nonce, a page choice. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A Bluesky handle as given, without a leading `@`. */
export const blueskyHandleOf = (handle: string) => handle.replace(/^@/, '');

// ------------------------------------------------------------------------------------------- OAuth start

export interface StartOAuthInput {
  orgId: string;
  platform: Platform;
  /** Where the app wants the user back after the callback; on an allowed origin. */
  redirectUri: string;
  linkedinTarget?: LinkedinTarget;
  blueskyHandle?: string;
}

export interface StartedOAuth {
  /** Single use; the platform brings it back to the callback. */
  state: string;
  /** For the starter's browser only: the begin URL and the callback want it back (its digest is kept). */
  browserNonce: string;
  /** LinkedIn's target (profile unless asked), null for other platforms. */
  linkedinTarget: LinkedinTarget | null;
}

/** Opens an authorization for the caller: the state, the PKCE verifier and the platform's URL, kept sealed. */
export async function startOAuth(
  deps: ConnectionDeps,
  caller: Caller,
  input: StartOAuthInput,
): Promise<StartedOAuth> {
  const { orgId, platform } = input;
  authorize(caller, managing(orgId));
  const problems: ErrorDetail[] = [];
  if (!deps.redirectOrigins.has(new URL(input.redirectUri).origin))
    problems.push({
      path: 'redirectUri',
      message: 'must be on an allowed origin (PUBLIC_BASE_URL or APP_ORIGINS)',
    });
  if (input.linkedinTarget !== undefined && platform !== 'linkedin')
    problems.push({ path: 'linkedinTarget', message: 'Only for linkedin' });
  if (input.blueskyHandle !== undefined && platform !== 'bluesky')
    problems.push({ path: 'blueskyHandle', message: 'Only for bluesky' });
  if (problems.length > 0) throw new ValidationError('Invalid request', undefined, problems);

  const connector = deps.connectors.get(platform);
  requireConfigured(connector);
  const state = newSecret();
  const pkce = pkcePair();
  const blueskyHandle = input.blueskyHandle === undefined ? undefined : blueskyHandleOf(input.blueskyHandle);
  let start;
  try {
    start = await connector.startAuthorization({
      state,
      callbackUrl: deps.callbackUrl(platform, input.linkedinTarget),
      codeChallenge: pkce.challenge,
      ...(input.linkedinTarget ? { linkedinTarget: input.linkedinTarget } : {}),
      ...(blueskyHandle ? { blueskyHandle } : {}),
    });
  } catch (error) {
    // A Bluesky handle that does not resolve is the caller's input, not a platform outage. Without a handle
    // the flow starts at the entryway (https://bsky.social), so a failure there is the platform's.
    if (blueskyHandle && isConnectorError(error) && error.kind === 'permanent')
      throw new ValidationError('Invalid request', undefined, [
        { path: 'blueskyHandle', message: 'Bluesky could not find an account server for this handle' },
      ]);
    throw connectorFailure(platform, error, deps.logger);
  }
  const linkedinTarget = platform === 'linkedin' ? (input.linkedinTarget ?? 'profile') : null;
  const browserNonce = newSecret();
  await deps.oauthStates.saveAuthorization(state, {
    orgId,
    userId: caller.userId,
    platform,
    redirectUri: input.redirectUri,
    linkedinTarget,
    blueskyHandle: blueskyHandle ?? null,
    codeVerifier: pkce.verifier,
    context: start.context,
    platformAuthorizationUrl: start.authorizationUrl,
    browserNonce,
  });
  return { state, browserNonce, linkedinTarget };
}

// ------------------------------------------------------------------------------ Bluesky app password

/**
 * Connects a Bluesky account with an app password, used once and never kept. Entry points leave the password
 * out of the request an Idempotency-Key is bound to (the handle only), so no record holds a digest of it.
 */
export async function connectBlueskyAccount(
  deps: ConnectionDeps,
  caller: Caller,
  input: { orgId: string; handle: string; appPassword: string },
  request: WriteRequest,
): Promise<Written<SocialAccountView>> {
  const { orgId, appPassword } = input;
  authorize(caller, managing(orgId));
  const handle = blueskyHandleOf(input.handle);
  const connector = deps.connectors.get('bluesky');
  requireConfigured(connector);
  if (!connector.connectWithAppPassword)
    throw new ServiceUnavailable(
      'Bluesky app passwords are not supported by this server',
      'platform_not_configured',
    );
  const connectWithAppPassword = connector.connectWithAppPassword.bind(connector);
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    let account;
    try {
      account = await connectWithAppPassword(handle, appPassword);
    } catch (error) {
      if (isConnectorError(error) && (error.kind === 'auth' || error.kind === 'permanent'))
        throw new ValidationError('Bluesky did not accept this handle and app password', undefined, [
          { path: 'appPassword', message: 'not accepted for this handle' },
        ]);
      throw connectorFailure('bluesky', error, deps.logger);
    }
    const views = await connectSocialAccounts(
      deps,
      { orgId, platform: 'bluesky', accounts: [account] },
      metadata,
      {
        ...(record ? { sideWrite: (trx, answer) => record(trx, onlyOf(answer)) } : {}),
        ...(idempotencySeed ? { idempotencySeed } : {}),
      },
    );
    return onlyOf(views);
  });
}

function onlyOf(views: readonly SocialAccountView[]): SocialAccountView {
  const [view] = views;
  if (!view || views.length !== 1) throw new Error(`expected one connected account, got ${views.length}`);
  return view;
}

// --------------------------------------------------------------------------------- LinkedIn pages

/** The open LinkedIn page choice of this member in this workspace; 404 otherwise. */
async function openPageChoice(
  deps: Pick<ConnectionDeps, 'oauthStates'>,
  choice: string,
  owner: { orgId: string; userId: string },
) {
  const pending = await deps.oauthStates.findPageChoice(choice, owner);
  if (!pending) throw new NotFound('No open LinkedIn page choice with this id');
  return pending;
}

/** The pages a pending choice of the caller's offers. */
export async function listLinkedinPages(
  deps: Pick<ConnectionDeps, 'oauthStates'>,
  caller: Caller,
  input: { orgId: string; choice: string },
): Promise<{ pages: PageOption[] }> {
  authorize(caller, managing(input.orgId));
  const pending = await openPageChoice(deps, input.choice, {
    orgId: input.orgId,
    userId: caller.userId,
  });
  return { pages: pending.options };
}

/**
 * Connects the pages picked from the caller's pending choice and closes it (a replay with the same key still
 * answers the first answer); an organization id the choice does not offer is a 400 naming it.
 */
export async function connectLinkedinPages(
  deps: ConnectionDeps,
  caller: Caller,
  input: { orgId: string; choice: string; organizationIds: string[] },
  request: WriteRequest,
): Promise<Written<SocialAccountView[]>> {
  const { orgId, choice } = input;
  authorize(caller, managing(orgId));
  const owner = { orgId, userId: caller.userId };
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const pending = await openPageChoice(deps, choice, owner);
    const offered = new Set(pending.options.map((o) => o.id));
    const unknown = input.organizationIds
      .map((id, index) => ({ id, index }))
      .filter(({ id }) => !offered.has(id));
    if (unknown.length > 0)
      throw new ValidationError(
        `Not among the pages of this choice: ${unknown.map((u) => u.id).join(', ')}`,
        undefined,
        unknown.map(({ id, index }) => ({
          path: `organizationIds.${index}`,
          message: `${id} is not a page of this choice`,
        })),
      );
    const connector = deps.connectors.get('linkedin');
    if (!connector.connectChoice)
      throw new ServiceUnavailable(
        'LinkedIn pages are not supported by this server',
        'platform_not_configured',
      );
    let connected;
    try {
      connected = await connector.connectChoice(pending.tokens, [...new Set(input.organizationIds)]);
    } catch (error) {
      throw connectorFailure('linkedin', error, deps.logger);
    }
    const views = await connectSocialAccounts(
      deps,
      { orgId, platform: 'linkedin', accounts: connected },
      metadata,
      { ...(record ? { sideWrite: record } : {}), ...(idempotencySeed ? { idempotencySeed } : {}) },
    );
    await deps.oauthStates.closePageChoice(choice, owner);
    return views;
  });
}
