// Which social account a platform call acts for, and its tokens: resolves a post's account, refreshes tokens
// ahead of expiry and after an auth error (once per account at a time), and marks the account `error` when refused.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import {
  accountLabel,
  type SocialAccount,
  type SocialAccountState,
} from '../../domain/social-accounts/social-account.js';
import {
  canRefresh,
  ConnectorError,
  isConnectorError,
  type AccountRef,
  type ConnectorRegistry,
  type TokenSet,
} from '../../infra/connectors/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { TokenStore } from '../../infra/social-accounts/token-store.js';
import { findAccountsForPlatform } from '../../projections/social-accounts/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { CommandDeps, CommandMetadata } from '../shared/command-handler.js';
import { loadSocialAccount, recordRefreshFailed, recordTokensRefreshed } from './social-account-commands.js';

/** Tokens expiring within this are refreshed before a call rather than after it fails. */
export const refreshAheadMs = 60_000;

export type ResolveAccountResult =
  | { ok: true; account: AccountRef }
  | { ok: false; reason: 'not_found' | 'not_connected' | 'none' | 'ambiguous'; message: string };

/**
 * What background work that calls platforms for an account needs of AccountAccess (which implements it): the
 * account a call acts for, and the call made with its tokens (refreshed ahead of expiry and once after an auth
 * error). The publisher and the metrics fetcher take this.
 */
export interface AccountCalls {
  resolve(input: {
    orgId: string;
    platform: Platform;
    socialAccountId: string | null;
  }): Promise<{ ok: true; account: AccountRef } | { ok: false; reason: string; message: string }>;
  withTokens<T>(account: AccountRef, call: (tokens: TokenSet) => Promise<T>): Promise<T>;
}

export type RefreshResult =
  /** New tokens from the platform, saved and recorded. */
  | { kind: 'refreshed'; tokens: TokenSet }
  /** Nothing to do: someone else refreshed meanwhile (or the tokens are not due). */
  | { kind: 'current'; tokens: TokenSet }
  /** Another holder has the account's lock (only with `skipIfLocked`). */
  | { kind: 'locked' };

export interface AccountAccessOptions {
  db: Kysely<ReadModels>;
  commands: CommandDeps;
  tokens: TokenStore;
  connectors: ConnectorRegistry;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  now?: () => Date;
}

export function accountRef(a: SocialAccount): AccountRef {
  return {
    id: a.id,
    orgId: a.orgId,
    platform: a.platform,
    accountExternalId: a.accountExternalId,
    accountHandle: a.accountHandle,
    xSubscription: a.platform === 'x' ? a.xSubscription : null,
  };
}

const reconnectMessage = (a: Pick<SocialAccount, 'platform'> & Parameters<typeof accountLabel>[0]) =>
  `The ${a.platform} account ${accountLabel(a)} needs reconnecting; reconnect ${accountLabel(a)} under Social accounts`;

export class AccountAccess {
  private readonly now: () => Date;

  constructor(private readonly options: AccountAccessOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * The account a post publishes with. A named account is read from its stream (the source of truth, so an
   * acknowledged deletion is always seen); without one, the workspace's only connected account of the platform.
   */
  async resolve(input: {
    orgId: string;
    platform: Platform;
    socialAccountId: string | null;
  }): Promise<ResolveAccountResult> {
    const { orgId, platform } = input;
    if (input.socialAccountId !== null) return this.resolveNamed(orgId, platform, input.socialAccountId);

    const candidates = await findAccountsForPlatform(this.options.db, orgId, platform);
    const connected = candidates.filter((a) => a.status === 'connected');
    if (connected.length > 1) {
      return {
        ok: false,
        reason: 'ambiguous',
        message: `The workspace has ${connected.length} connected ${platform} accounts (${connected
          .map((a) => accountLabel(a))
          .join(', ')}); choose one with socialAccountId`,
      };
    }
    const only = connected[0];
    if (only) return this.resolveNamed(orgId, platform, only.id);
    const [unusable, ...more] = candidates;
    if (unusable && more.length === 0) return this.resolveNamed(orgId, platform, unusable.id);
    return {
      ok: false,
      reason: 'none',
      message:
        candidates.length === 0
          ? `No ${platform} account is connected to this workspace; connect one under Social accounts`
          : `No ${platform} account of this workspace is connected (${candidates
              .map((a) => `${accountLabel(a)}: ${a.status}`)
              .join(', ')}); reconnect one under Social accounts`,
    };
  }

  private async resolveNamed(
    orgId: string,
    platform: Platform,
    accountId: string,
  ): Promise<ResolveAccountResult> {
    const state = await this.load(accountId);
    if (state.kind !== 'active' || state.account.orgId !== orgId) {
      return {
        ok: false,
        reason: 'not_found',
        message: `Social account ${accountId} is not connected to this workspace; pick one of its accounts`,
      };
    }
    const a = state.account;
    if (a.platform !== platform) {
      return {
        ok: false,
        reason: 'not_found',
        message: `Social account ${accountLabel(a)} is a ${a.platform} account, not a ${platform} one`,
      };
    }
    if (a.status !== 'connected') {
      return { ok: false, reason: 'not_connected', message: `${reconnectMessage(a)} (status ${a.status})` };
    }
    return { ok: true, account: accountRef(a) };
  }

  /** The account's tokens, refreshed first when they expire within a minute and the platform refreshes. */
  async tokensFor(account: AccountRef): Promise<TokenSet> {
    const tokens = await this.options.tokens.load(account.orgId, account.id);
    if (!tokens) throw new ConnectorError('auth', `${reconnectMessage(account)} (no access is stored)`);
    const connector = this.options.connectors.get(account.platform);
    if (
      canRefresh(connector, Boolean(tokens.refreshToken)) &&
      expiresWithin(tokens, refreshAheadMs, this.now())
    ) {
      const result = await this.refresh(account, { staleAccessToken: tokens.accessToken });
      if (result.kind !== 'locked') return result.tokens;
    }
    return tokens;
  }

  /**
   * Calls with the account's tokens. An `auth` failure refreshes once and calls again; a refused refresh marks
   * the account `error` (one event) and throws ConnectorError `auth` saying the account needs reconnecting.
   */
  async withTokens<T>(account: AccountRef, call: (tokens: TokenSet) => Promise<T>): Promise<T> {
    const tokens = await this.tokensFor(account);
    try {
      return await call(tokens);
    } catch (error) {
      if (!isConnectorError(error) || error.kind !== 'auth') throw error;
      const result = await this.refresh(account, { staleAccessToken: tokens.accessToken, force: true });
      if (result.kind === 'locked') throw error;
      return call(result.tokens);
    }
  }

  /**
   * Refreshes the account's tokens under its lock, so concurrent callers never spend one refresh token twice:
   * whoever gets the lock second finds the tokens changed (`staleAccessToken` no longer stored) and uses them.
   * Without `force`, tokens that no longer expire within `dueWithinMs` (default one minute) are left alone.
   * `now` is the caller's clock (the refresher's round), else the access's own.
   */
  async refresh(
    account: AccountRef,
    options: {
      staleAccessToken?: string;
      force?: boolean;
      dueWithinMs?: number;
      skipIfLocked?: boolean;
      now?: Date;
    } = {},
  ): Promise<RefreshResult> {
    const store = this.options.tokens;
    const now = options.now ?? this.now();
    const locked = await store.withAccountLock(
      account.id,
      async (): Promise<RefreshResult> => {
        const state = await this.load(account.id);
        const current = await store.load(account.orgId, account.id);
        if (state.kind !== 'active' || state.account.orgId !== account.orgId || !current)
          throw new ConnectorError('auth', `${reconnectMessage(account)} (it is no longer connected here)`);
        const a = state.account;
        if (a.status !== 'connected')
          throw new ConnectorError('auth', `${reconnectMessage(a)} (status ${a.status})`);
        const changed =
          options.staleAccessToken !== undefined && current.accessToken !== options.staleAccessToken;
        if (changed) return { kind: 'current', tokens: current };
        if (!options.force && !expiresWithin(current, options.dueWithinMs ?? refreshAheadMs, now))
          return { kind: 'current', tokens: current };

        const connector = this.options.connectors.get(a.platform);
        if (!canRefresh(connector, Boolean(current.refreshToken)))
          return this.refused(a, `${a.platform} no longer accepts the access granted at connection`, now);
        let fresh: TokenSet;
        try {
          fresh = await connector.refresh(accountRef(a), current);
        } catch (error) {
          if (isConnectorError(error) && error.kind === 'auth')
            return this.refused(a, `${a.platform} refused to renew access (revoked or expired)`, now);
          throw error;
        }
        // Platforms that do not rotate refresh tokens answer without one: the one we have stays valid.
        const next: TokenSet = { ...fresh, refreshToken: fresh.refreshToken ?? current.refreshToken };
        await store.save(a.orgId, a.id, next);
        await recordTokensRefreshed(this.options, a, next.expiresAt, systemMetadata(a.orgId, now));
        this.options.logger.info(
          { accountId: a.id, platform: a.platform },
          'social account tokens refreshed',
        );
        return { kind: 'refreshed', tokens: next };
      },
      { skipIfLocked: options.skipIfLocked ?? false },
    );
    return locked.locked ? locked.value : { kind: 'locked' };
  }

  private async refused(a: SocialAccount, reason: string, now: Date): Promise<never> {
    const recorded = await recordRefreshFailed(this.options, a, reason, systemMetadata(a.orgId, now));
    if (recorded)
      this.options.logger.warn(
        { accountId: a.id, platform: a.platform, reason },
        'social account needs reconnecting',
      );
    throw new ConnectorError('auth', `${reconnectMessage(a)}: ${reason}`);
  }

  private load(accountId: string): Promise<SocialAccountState> {
    return loadSocialAccount(this.options.commands, accountId);
  }
}

function expiresWithin(tokens: TokenSet, ms: number, now: Date): boolean {
  return tokens.expiresAt !== null && Date.parse(tokens.expiresAt) - now.getTime() <= ms;
}

function systemMetadata(orgId: string, now: Date): CommandMetadata {
  return { orgId, actor: 'system', correlationId: randomUUID(), now: now.toISOString() };
}
