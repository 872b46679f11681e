// Social account use cases for a caller: set an account's profile URL and delete an account (members who manage
// accounts; no assistant scope covers this), and TikTok's creator info read through the account's tokens.
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { Conflict, ServiceUnavailable, ValidationError } from '../../domain/shared/errors.js';
import type { SocialAccountView } from '../../domain/social-accounts/social-account.js';
import { isConnectorError, type TikTokCreatorInfo } from '../../infra/connectors/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { IdempotencyStore } from '../shared/idempotency.js';
import { runWrite, type WriteRequest, type WriteStep, type Written } from '../shared/write-pipeline.js';
import { AccountAccess } from './account-access.js';
import {
  deleteSocialAccount as deleteAccount,
  getLiveSocialAccount,
  updateSocialAccountProfileUrl,
  type SocialAccountDeps,
  type SocialAccountWriteOptions,
} from './social-account-commands.js';

export interface SocialAccountWriteDeps extends SocialAccountDeps {
  idempotency: IdempotencyStore;
}

const managing = (orgId: string) => ({ orgId, permission: 'accounts:manage', scope: null }) as const;

/** The answer goes with the append when the request has a key; event ids come from the key. */
export function keyedOptions(step: WriteStep<SocialAccountView>): SocialAccountWriteOptions {
  return {
    ...(step.record ? { sideWrite: step.record } : {}),
    ...(step.idempotencySeed ? { idempotencySeed: step.idempotencySeed } : {}),
  };
}

/** The profile URL: an http(s) URL, or null to clear it; kept over the platform's on a reconnect. */
export async function updateSocialAccount(
  deps: SocialAccountWriteDeps,
  caller: Caller,
  input: { orgId: string; accountId: string; profileUrl: string | null },
  request: WriteRequest,
): Promise<Written<SocialAccountView>> {
  authorize(caller, managing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async (step) => {
    const { orgId, accountId, profileUrl } = input;
    const result = await updateSocialAccountProfileUrl(
      deps,
      orgId,
      accountId,
      profileUrl,
      step.metadata,
      keyedOptions(step),
    );
    return result.account;
  });
}

/** The account leaves the list and its stored access is dropped; answers the account as it was. */
export async function deleteSocialAccount(
  deps: SocialAccountWriteDeps,
  caller: Caller,
  input: { orgId: string; accountId: string },
  request: WriteRequest,
): Promise<Written<SocialAccountView>> {
  authorize(caller, managing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async (step) => {
    const result = await deleteAccount(deps, input.orgId, input.accountId, step.metadata, keyedOptions(step));
    return result.account;
  });
}

/**
 * What TikTok lets this creator post now. Unknown, deleted or another workspace's account: 404; an account of
 * another platform exists but has no creator info: 400 naming the path's accountId.
 */
export async function getTiktokCreatorInfo(
  deps: SocialAccountDeps & { logger: Pick<Logger, 'info' | 'warn' | 'error'> },
  caller: Caller,
  input: { orgId: string; accountId: string },
  options: { signal?: AbortSignal } = {},
): Promise<TikTokCreatorInfo> {
  const { orgId, accountId } = input;
  authorize(caller, { orgId, permission: 'posts:read', scope: 'mcp:read' });
  const access = new AccountAccess({
    db: deps.readModels,
    commands: deps.commands,
    tokens: deps.tokens,
    connectors: deps.connectors,
    logger: deps.logger,
    now: deps.now,
  });
  const account = await getLiveSocialAccount(deps.commands, orgId, accountId);
  if (account.platform !== 'tiktok')
    throw new ValidationError('Creator info exists for TikTok accounts only', 'not_a_tiktok_account', [
      { path: 'accountId', message: `a ${account.platform} account, not a TikTok one` },
    ]);
  const resolved = await access.resolve({ orgId, platform: 'tiktok', socialAccountId: accountId });
  if (!resolved.ok) throw new Conflict(resolved.message, 'account_needs_reconnecting');
  const connector = deps.connectors.get('tiktok');
  const creatorInfo = connector.creatorInfo?.bind(connector);
  if (!creatorInfo)
    throw new ServiceUnavailable('The TikTok connector does not offer creator info', 'platform_unavailable');
  try {
    return await access.withTokens(resolved.account, (tokens) =>
      creatorInfo({
        account: resolved.account,
        tokens,
        fetchMedia: () => Promise.reject(new Error('creator info fetches no media')),
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
  } catch (error) {
    // A platform failure as the API says it; never the platform's raw answer.
    if (!isConnectorError(error)) throw error;
    if (error.kind === 'auth') throw new Conflict(error.message, 'account_needs_reconnecting');
    throw new ServiceUnavailable(
      'TikTok did not answer the creator info request; try again shortly',
      'platform_unavailable',
    );
  }
}
