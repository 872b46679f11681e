// The token refresher: every minute, refreshes social account tokens about to expire (one instance per account
// at a time), marks refused ones `error`, and warns once per expiry for platforms that cannot refresh.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AccountAccess, accountRef } from '../../commands/social-accounts/account-access.js';
import {
  loadSocialAccount,
  recordTokenExpiring,
  tokenStoreFor,
  type TokenHealthDeps,
} from '../../commands/social-accounts/social-account-commands.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import { Rounds } from '../../infra/async/rounds.js';
import { canRefresh, isConnectorError, type ConnectorRegistry } from '../../infra/connectors/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { TokenCipher } from '../../infra/crypto/token-cipher.js';
import type { TokenExpiry, TokenStore } from '../../infra/social-accounts/token-store.js';
import type { ReadModels } from '../../projections/read-models.js';

export interface TokenRefresherOptions {
  db: Kysely<ReadModels>;
  /** The refresher shares the process's token store for this database and cipher (and its lock queue). */
  tokenCipher: TokenCipher;
  commands: CommandDeps;
  connectors: ConnectorRegistry;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Between rounds; default one minute. */
  intervalMs?: number;
  /** Tokens expiring within this are refreshed; default 10 minutes. */
  refreshWithinMs?: number;
  /** Platforms without refresh are warned this long before expiry; default 7 days. */
  warnWithinMs?: number;
  now?: () => Date;
}

export interface RefreshRound {
  refreshed: number;
  failed: number;
  warned: number;
}

export class TokenRefresher {
  private readonly intervalMs: number;
  private readonly refreshWithinMs: number;
  private readonly warnWithinMs: number;
  private readonly now: () => Date;
  private readonly tokens: TokenStore;
  private readonly access: AccountAccess;
  private rounds: Rounds | undefined;

  constructor(private readonly options: TokenRefresherOptions) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.refreshWithinMs = options.refreshWithinMs ?? 10 * 60_000;
    this.warnWithinMs = options.warnWithinMs ?? 7 * 24 * 3_600_000;
    this.now = options.now ?? (() => new Date());
    this.tokens = tokenStoreFor(options.db, options.tokenCipher);
    this.access = new AccountAccess({
      db: options.db,
      commands: options.commands,
      tokens: this.tokens,
      connectors: options.connectors,
      logger: options.logger,
      now: this.now,
    });
  }

  start(): Promise<void> {
    this.rounds ??= new Rounds(
      () => this.runOnce(),
      this.intervalMs,
      (error) => this.options.logger.error({ err: error }, 'token refresh round failed'),
    );
    this.rounds.start();
    return Promise.resolve();
  }

  /** Ends the loop after the account in progress. */
  async stop(): Promise<void> {
    await this.rounds?.stop();
  }

  async runOnce(now: Date = this.now()): Promise<RefreshRound> {
    const round: RefreshRound = { refreshed: 0, failed: 0, warned: 0 };
    const horizon = new Date(now.getTime() + Math.max(this.warnWithinMs, this.refreshWithinMs));
    let after: TokenExpiry | undefined;
    for (;;) {
      const page = await this.tokens.expiringBefore(horizon, after ? { after } : {});
      for (const row of page) {
        try {
          await this.handle(row, now, round);
        } catch (error) {
          // A network failure or a platform hiccup: the next round tries again.
          this.options.logger.warn(
            { accountId: row.accountId, kind: isConnectorError(error) ? error.kind : undefined, err: error },
            'token refresh postponed',
          );
        }
      }
      after = page[page.length - 1];
      if (!after) return round;
    }
  }

  private async handle(row: TokenExpiry, now: Date, round: RefreshRound): Promise<void> {
    const { tokens, access } = this;
    const { connectors } = this.options;
    const state = await loadSocialAccount(this.options.commands, row.accountId);
    if (state.kind !== 'active' || state.account.orgId !== row.orgId) {
      // Tokens of a deleted account (its delete crashed before dropping them) are never needed again.
      await tokens.delete(row.orgId, row.accountId);
      return;
    }
    const account = state.account;
    if (account.status !== 'connected') return;
    const untilExpiry = Date.parse(row.expiresAt) - now.getTime();
    const connector = connectors.get(account.platform);
    if (canRefresh(connector, row.hasRefreshToken)) {
      if (untilExpiry > this.refreshWithinMs) return;
      try {
        const result = await access.refresh(accountRef(account), {
          dueWithinMs: this.refreshWithinMs,
          skipIfLocked: true,
          now,
        });
        if (result.kind === 'refreshed') round.refreshed++;
      } catch (error) {
        if (isConnectorError(error) && error.kind === 'auth') round.failed++;
        else throw error;
      }
      return;
    }
    if (untilExpiry > this.warnWithinMs) return;
    const health: TokenHealthDeps = { commands: this.options.commands };
    const warned = await recordTokenExpiring(health, account, row.expiresAt, {
      orgId: account.orgId,
      actor: 'system',
      correlationId: randomUUID(),
      now: now.toISOString(),
    });
    if (warned) round.warned++;
  }
}
