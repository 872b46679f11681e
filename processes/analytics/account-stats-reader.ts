// The account-stats reader: sweeps the follower-count schedule (account_stats_reads) for accounts due, claims each
// row under a lease (`for update skip locked`, owner and expiry, as the metrics fetcher does), reads the account's
// followers (following and posts where offered) through its platform connector, and records AccountStatsRead on
// the account's own stream. A grant without the scope the platform needs is recorded as AccountStatsUnavailable
// without asking the platform; a removed account ends its reads; other failures are tried again sooner.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { recordAccountAudience } from '../../commands/analytics/audience-commands.js';
import type { AccountCalls } from '../../commands/social-accounts/account-access.js';
import type { CommandDeps, CommandMetadata } from '../../commands/shared/command-handler.js';
import type { Platform } from '../../domain/shared/platforms.js';
import { mapLimited } from '../../infra/async/each-limited.js';
import { Rounds } from '../../infra/async/rounds.js';
import { missingAudienceScopes } from '../../infra/connectors/analytics-access.js';
import {
  ConnectorError,
  isConnectorError,
  type AccountStats,
  type ConnectorRegistry,
} from '../../infra/connectors/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import { ACCOUNT_STATS_INTERVAL_MS } from './account-stats-schedule.js';
import type { AccountStatsReadsTable, PostMetricsFetchTables } from './migrations.js';
import { metricsRetryDelayMs } from './metrics-fetcher.js';

export interface AccountStatsReaderOptions {
  // Only the schedule table is touched directly; readings go through the event store.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  commands: CommandDeps;
  connectors: ConnectorRegistry;
  accounts: AccountCalls;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** This process's lease owner name (`host:pid`). */
  owner: string;
  now?: () => Date;
  /** Between rounds; default five minutes. */
  intervalMs?: number;
  /** How long a claimed row stays with this instance; default 5 minutes. */
  leaseMs?: number;
  /** Rows claimed at once; default 50. */
  batchSize?: number;
  /** Per platform call; default 30 seconds. */
  callTimeoutMs?: number;
}

export interface StatsRound {
  /** Accounts whose counts were recorded. */
  read: number;
  /** Accounts whose grant does not allow the read. */
  unavailable: number;
  /** Accounts tried again later (a failure, or not connected now). */
  retried: number;
  /** Accounts removed: their reads end. */
  stopped: number;
}

type Row = AccountStatsReadsTable;

type Outcome =
  | { kind: 'read'; stats: AccountStats }
  | { kind: 'unavailable'; message: string; missingScopes: string[] }
  | { kind: 'stopped'; reason: string }
  | { kind: 'retry'; error: unknown };

const noMedia = async (): Promise<never> => {
  throw new ConnectorError('permanent', 'reading follower counts uploads no media');
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class AccountStatsReader {
  private readonly db: Kysely<PostMetricsFetchTables>;
  private readonly now: () => Date;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly callTimeoutMs: number;
  private rounds: Rounds | undefined;

  constructor(private readonly options: AccountStatsReaderOptions) {
    this.db = options.db as Kysely<PostMetricsFetchTables>;
    this.now = options.now ?? (() => new Date());
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.batchSize = options.batchSize ?? 50;
    this.callTimeoutMs = options.callTimeoutMs ?? 30_000;
  }

  start(): Promise<void> {
    this.rounds ??= new Rounds(
      () => this.runOnce(),
      this.options.intervalMs ?? 5 * 60_000,
      (error) => this.options.logger.error({ err: error }, 'follower count round failed'),
    );
    this.rounds.start();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    await this.rounds?.stop();
  }

  /** Reads every account whose reading is due at `now`. */
  async runOnce(now: Date = this.now()): Promise<StatsRound> {
    const round: StatsRound = { read: 0, unavailable: 0, retried: 0, stopped: 0 };
    for (let batch = 0; batch < 20 && !this.rounds?.stopping; batch += 1) {
      const rows = await this.claimDue(now);
      if (rows.length === 0) break;
      await mapLimited(rows, 4, async (row) => {
        const outcome = await this.readOne(row);
        await this.settle(row, outcome, now);
        if (outcome.kind === 'read') round.read++;
        else if (outcome.kind === 'unavailable') round.unavailable++;
        else if (outcome.kind === 'stopped') round.stopped++;
        else round.retried++;
      });
      if (rows.length < this.batchSize) break;
    }
    return round;
  }

  private async claimDue(now: Date): Promise<Row[]> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const { rows } = await sql<Row>`
      update account_stats_reads set lease_owner = ${this.options.owner}, lease_until = ${until}
      where social_account_id in (
        select social_account_id from account_stats_reads
        where status = 'active' and next_read_at <= ${at} and (lease_until is null or lease_until < ${at})
        order by next_read_at
        limit ${this.batchSize}
        for update skip locked)
      returning *`.execute(this.db);
    return rows;
  }

  private async readOne(row: Row): Promise<Outcome> {
    const platform = row.platform as Platform;
    try {
      const resolved = await this.options.accounts.resolve({
        orgId: row.org_id,
        platform,
        socialAccountId: row.social_account_id,
      });
      if (!resolved.ok) {
        if (resolved.reason === 'not_found') return { kind: 'stopped', reason: resolved.message };
        // Not connected now (expired, revoked): a reconnection makes the read due at once.
        return { kind: 'retry', error: new ConnectorError('auth', resolved.message) };
      }
      const account = resolved.account;
      const connector = this.options.connectors.get(platform);
      const answer = await this.options.accounts.withTokens(account, async (tokens): Promise<Outcome> => {
        const missing = missingAudienceScopes(platform, account.accountExternalId, tokens.scopes);
        if (missing)
          return {
            kind: 'unavailable',
            message: `The grant lacks the ${missing.join(' or ')} scope the platform needs for follower counts; reconnect the account to grant it`,
            missingScopes: missing,
          };
        const stats = await connector.accountStats({
          account,
          tokens,
          fetchMedia: noMedia,
          signal: AbortSignal.timeout(this.callTimeoutMs),
        });
        return { kind: 'read', stats };
      });
      return answer;
    } catch (error) {
      if (isConnectorError(error) && error.details.platformCode === 'needs_permission')
        return { kind: 'unavailable', message: error.message, missingScopes: [] };
      return { kind: 'retry', error };
    }
  }

  /** Records what was found and writes the row back, only while this instance holds it. */
  private async settle(row: Row, outcome: Outcome, now: Date): Promise<void> {
    const at = now.toISOString();
    const platform = row.platform as Platform;
    const subject = { orgId: row.org_id, socialAccountId: row.social_account_id, platform };
    const metadata: CommandMetadata = {
      orgId: row.org_id,
      actor: 'system',
      correlationId: randomUUID(),
      now: at,
    };
    const nextDay = new Date(now.getTime() + ACCOUNT_STATS_INTERVAL_MS).toISOString();
    let changes: Partial<Row>;
    try {
      switch (outcome.kind) {
        case 'read':
          await recordAccountAudience(
            this.options.commands,
            { type: 'RecordAccountStats', ...subject, stats: outcome.stats, readAt: at },
            metadata,
            { awaitReadModels: false },
          );
          changes = { next_read_at: nextDay, last_read_at: at, attempts: 0, last_error: null };
          break;
        case 'unavailable':
          await recordAccountAudience(
            this.options.commands,
            {
              type: 'RecordAccountStatsUnavailable',
              ...subject,
              reason: 'needs_permission',
              message: outcome.message,
              missingScopes: outcome.missingScopes,
              at,
            },
            metadata,
            { awaitReadModels: false },
          );
          changes = { next_read_at: nextDay, attempts: 0, last_error: outcome.message.slice(0, 1000) };
          break;
        case 'stopped':
          this.options.logger.info(
            { accountId: row.social_account_id, reason: outcome.reason },
            'follower counts: no further readings',
          );
          changes = { status: 'stopped', next_read_at: null, last_error: outcome.reason.slice(0, 1000) };
          break;
        case 'retry': {
          const attempts = row.attempts + 1;
          const error = outcome.error;
          const platformWait = isConnectorError(error) ? (error.details.retryAfterMs ?? 0) : 0;
          // Never later than the next daily reading would have been; refused for good (a channel hiding its
          // count), not before it either.
          const permanent = isConnectorError(error) && error.kind === 'permanent';
          const wait = permanent
            ? ACCOUNT_STATS_INTERVAL_MS
            : Math.min(ACCOUNT_STATS_INTERVAL_MS, Math.max(metricsRetryDelayMs(attempts), platformWait));
          this.options.logger.warn(
            {
              accountId: row.social_account_id,
              platform,
              kind: isConnectorError(error) ? error.kind : undefined,
              err: error,
            },
            'follower count reading postponed',
          );
          changes = {
            next_read_at: new Date(now.getTime() + wait).toISOString(),
            attempts,
            last_error: messageOf(error).slice(0, 1000),
          };
          break;
        }
        default: {
          const never: never = outcome;
          return never;
        }
      }
    } catch (error) {
      // Recording failed (the store is unreachable): the read is tried again on a later round.
      this.options.logger.warn(
        { accountId: row.social_account_id, err: error },
        'follower count not recorded',
      );
      changes = {
        next_read_at: new Date(now.getTime() + metricsRetryDelayMs(row.attempts + 1)).toISOString(),
        attempts: row.attempts + 1,
        last_error: messageOf(error).slice(0, 1000),
      };
    }
    await this.db
      .updateTable('account_stats_reads')
      .set({ ...changes, lease_owner: null, lease_until: null, updated_at: at })
      .where('social_account_id', '=', row.social_account_id)
      .where('lease_owner', '=', this.options.owner)
      .execute();
  }
}
