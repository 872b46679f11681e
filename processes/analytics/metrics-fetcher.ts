// The metrics fetcher: sweeps the fetch schedule for readings that are due, claims each post's row under a lease
// (`for update skip locked`, then lease owner and expiry), reads the post's numbers through its platform connector
// with the account's tokens, and records PostMetricsFetched. A post gone from the platform, or from the workspace,
// or an account that is gone stops the post's readings; any other failure is tried again on a later round.
import type { AccountCalls } from '../../commands/social-accounts/account-access.js';
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { MetricsReading, PostMetricsState } from '../../domain/analytics/post-metrics.js';
import { NotFound } from '../../domain/shared/errors.js';
import { loadPostGroup } from '../../commands/post-groups/post-group-commands.js';
import { loadPostMetrics, recordPostMetrics } from '../../commands/analytics/post-metrics-commands.js';
import {
  awaitReadModels,
  type CommandDeps,
  type CommandMetadata,
} from '../../commands/shared/command-handler.js';
import { Rounds } from '../../infra/async/rounds.js';
import {
  ConnectorError,
  isConnectorError,
  type ConnectorRegistry,
  type MetricsFetch,
} from '../../infra/connectors/port.js';
import type { Checkpoint } from '../../infra/event-store/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { PostMetricsFetchesTable, PostMetricsFetchTables } from './migrations.js';
import { METRICS_FETCH_OFFSETS_MS, nextFetchAt } from './post-metrics-schedule.js';

/** The social accounts a reading acts for (commands/social-accounts AccountAccess implements it). */
export type MetricsAccounts = AccountCalls;

export interface MetricsFetcherOptions {
  // Only the schedule table is touched directly; commands go through the event store.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  commands: CommandDeps;
  connectors: ConnectorRegistry;
  accounts: MetricsAccounts;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** This process's lease owner name (`host:pid`). */
  owner: string;
  /** The workspace's effective time zone (the sandbox's numbers depend on it); UTC unless given. */
  timezoneOf?: (orgId: string) => Promise<string>;
  now?: () => Date;
  /** Between rounds; default one minute. */
  intervalMs?: number;
  /** How long a claimed row stays with this instance; default 5 minutes (well above a platform call). */
  leaseMs?: number;
  /** Rows claimed at once; default 20. */
  batchSize?: number;
  /** Per platform call; default 30 seconds. */
  callTimeoutMs?: number;
}

export type FetchResult =
  /** A reading was recorded (or found recorded already by an instance that crashed before moving on). */
  | 'recorded'
  /** The post's readings end here: it is gone from the platform or the workspace, or its account is gone. */
  | 'stopped'
  /** Not read this time; tried again on a later round. */
  | 'retry_later'
  /** Another instance holds the post. */
  | 'skipped';

export interface FetchRound {
  recorded: number;
  stopped: number;
  retried: number;
}

export interface RefreshResult {
  processed: number;
  updated: number;
  failed: number;
  errors: Array<{ platform: string; message: string }>;
}

/** Failed readings are tried again after 5 minutes, doubling to 6 hours. */
export function metricsRetryDelayMs(attempts: number): number {
  return Math.min(6 * 3_600_000, 5 * 60_000 * 2 ** Math.max(0, attempts - 1));
}

/** A post whose readings keep failing is given up this long after its last scheduled reading. */
export const METRICS_GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;

/** Ends the post's readings, with why. */
class Stop extends Error {}

const noMedia = async (): Promise<never> => {
  throw new ConnectorError('permanent', 'reading metrics uploads no media');
};

export class MetricsFetcher {
  private readonly db: Kysely<PostMetricsFetchTables>;
  private readonly now: () => Date;
  private readonly intervalMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly callTimeoutMs: number;
  private readonly timezoneOf: (orgId: string) => Promise<string>;
  private rounds: Rounds | undefined;

  constructor(private readonly options: MetricsFetcherOptions) {
    this.db = options.db as Kysely<PostMetricsFetchTables>;
    this.now = options.now ?? (() => new Date());
    this.intervalMs = options.intervalMs ?? 60_000;
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.batchSize = options.batchSize ?? 20;
    this.callTimeoutMs = options.callTimeoutMs ?? 30_000;
    this.timezoneOf = options.timezoneOf ?? (async () => 'UTC');
  }

  start(): Promise<void> {
    this.rounds ??= new Rounds(
      () => this.runOnce(),
      this.intervalMs,
      (error) => this.options.logger.error({ err: error }, 'metrics fetch round failed'),
    );
    this.rounds.start();
    return Promise.resolve();
  }

  /** Ends the loop after the post in progress. */
  async stop(): Promise<void> {
    await this.rounds?.stop();
  }

  /** Reads every post whose reading is due at `now`, a batch of claimed rows at a time. */
  async runOnce(now: Date = this.now()): Promise<FetchRound> {
    const round: FetchRound = { recorded: 0, stopped: 0, retried: 0 };
    const zones = new Map<string, Promise<string>>();
    for (let batch = 0; batch < 50 && !this.rounds?.stopping; batch += 1) {
      const rows = await this.claimDue(now);
      for (const row of rows) {
        const result = await this.fetchOne(row, now, { zones, manual: false });
        if (result.result === 'recorded') round.recorded++;
        else if (result.result === 'stopped') round.stopped++;
        else if (result.result === 'retry_later') round.retried++;
      }
      if (rows.length < this.batchSize) break;
    }
    return round;
  }

  /**
   * Reads now every post of the workspace published in the last `days` days whose readings have not been
   * stopped, whether or not one is due (a later `analytics/refresh`); the schedule moves on from the reading.
   */
  async refreshWorkspace(
    orgId: string,
    options: { days?: number; now?: Date; awaitReadModels?: boolean } = {},
  ): Promise<RefreshResult> {
    const now = options.now ?? this.now();
    const since = new Date(now.getTime() - (options.days ?? 30) * 86_400_000).toISOString();
    const candidates = await this.db
      .selectFrom('post_metrics_fetches')
      .select('post_id')
      .where('org_id', '=', orgId)
      .where('published_at', '>=', since)
      .where('status', '!=', 'stopped')
      .orderBy('published_at')
      .execute();
    const result: RefreshResult = { processed: 0, updated: 0, failed: 0, errors: [] };
    const zones = new Map<string, Promise<string>>();
    let last: Checkpoint | null = null;
    for (const { post_id: postId } of candidates) {
      const row = await this.claim(postId, now);
      if (!row) continue;
      result.processed++;
      const outcome = await this.fetchOne(row, now, { zones, manual: true });
      if (outcome.result === 'recorded') {
        result.updated++;
        last = outcome.position ?? last;
      } else if (outcome.result !== 'skipped') {
        result.failed++;
        if (outcome.error) result.errors.push(outcome.error);
      }
    }
    if (last && options.awaitReadModels !== false) await awaitReadModels(this.options.commands, last);
    return result;
  }

  /** Claims due rows no live lease holds, oldest due first; other instances skip them. */
  private async claimDue(now: Date): Promise<PostMetricsFetchesTable[]> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const { rows } = await sql<PostMetricsFetchesTable>`
      update post_metrics_fetches set lease_owner = ${this.options.owner}, lease_until = ${until}
      where post_id in (
        select post_id from post_metrics_fetches
        where status = 'active' and next_fetch_at <= ${at} and (lease_until is null or lease_until < ${at})
        order by next_fetch_at
        limit ${this.batchSize}
        for update skip locked)
      returning *`.execute(this.db);
    return [...rows].sort((a, b) => Date.parse(a.next_fetch_at!) - Date.parse(b.next_fetch_at!));
  }

  /** Claims one row whatever its due time, unless another instance holds it. */
  private async claim(postId: string, now: Date): Promise<PostMetricsFetchesTable | undefined> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const { rows } = await sql<PostMetricsFetchesTable>`
      update post_metrics_fetches set lease_owner = ${this.options.owner}, lease_until = ${until}
      where post_id = (
        select post_id from post_metrics_fetches
        where post_id = ${postId} and status != 'stopped' and (lease_until is null or lease_until < ${at})
        for update skip locked)
      returning *`.execute(this.db);
    return rows[0];
  }

  private async fetchOne(
    row: PostMetricsFetchesTable,
    now: Date,
    context: { zones: Map<string, Promise<string>>; manual: boolean },
  ): Promise<{
    result: FetchResult;
    position?: Checkpoint | null;
    error?: { platform: string; message: string };
  }> {
    const { logger } = this.options;
    let platform = 'unknown';
    try {
      const loaded = await loadPostMetrics(this.options.commands, row.post_id);
      // An instance that crashed after recording this reading, before moving the schedule on: it is taken.
      if (
        !context.manual &&
        loaded.state.kind === 'tracked' &&
        row.next_fetch_at !== null &&
        Date.parse(loaded.state.lastFetchedAt) >= Date.parse(row.next_fetch_at)
      ) {
        await this.advance(row, loaded.state.fetchCount, new Date(loaded.state.lastFetchedAt));
        return { result: 'recorded' };
      }
      const subject = await this.subjectOf(row);
      platform = subject.platform;
      const resolved = await this.options.accounts.resolve({
        orgId: row.org_id,
        platform: subject.platform,
        socialAccountId: subject.socialAccountId,
      });
      if (!resolved.ok) {
        if (resolved.reason === 'not_found') throw new Stop(`the account is gone: ${resolved.message}`);
        throw new ConnectorError('auth', resolved.message);
      }
      const zone = context.zones.get(row.org_id) ?? this.timezoneOf(row.org_id);
      context.zones.set(row.org_id, zone);
      const timezone = await zone;
      const connector = this.options.connectors.get(subject.platform);
      const fetched: MetricsFetch = await this.options.accounts.withTokens(resolved.account, (tokens) =>
        connector.fetchMetrics(
          {
            account: resolved.account,
            tokens,
            fetchMedia: noMedia,
            signal: AbortSignal.timeout(this.callTimeoutMs),
          },
          { externalId: subject.externalId, url: row.url, publishedAt: row.published_at, timezone },
        ),
      );
      if (fetched.kind === 'not_found') throw new Stop(`${subject.platform} no longer has the post`);
      const recorded = await this.record(row, subject, fetched.metrics, now, loaded);
      // A reading older than the last recorded one decided nothing: the schedule moves on from the newest.
      await this.advance(row, recorded.fetchCount, recorded.lastFetchedAt);
      return { result: 'recorded', position: recorded.position };
    } catch (error) {
      if (error instanceof Stop) {
        await this.stopRow(row, error.message, now);
        logger.info(
          { postId: row.post_id, orgId: row.org_id, reason: error.message },
          'post metrics: no further readings',
        );
        return { result: 'stopped', error: { platform, message: error.message } };
      }
      const message = error instanceof Error ? error.message : String(error);
      const gaveUp = await this.postpone(row, error, now, context.manual);
      logger.warn(
        {
          postId: row.post_id,
          orgId: row.org_id,
          platform,
          kind: isConnectorError(error) ? error.kind : undefined,
          err: error,
          ...(gaveUp ? { gaveUp: true } : {}),
        },
        gaveUp ? 'post metrics: given up after repeated failures' : 'post metrics reading postponed',
      );
      return { result: gaveUp ? 'stopped' : 'retry_later', error: { platform, message } };
    }
  }

  /** What the reading is of, from the post's group as its stream has it now. */
  private async subjectOf(row: PostMetricsFetchesTable) {
    let group;
    try {
      ({ group } = await loadPostGroup(this.options.commands, row.org_id, row.group_id));
    } catch (error) {
      if (error instanceof NotFound) throw new Stop('the post group was deleted');
      throw error;
    }
    const post = group.posts.find((p) => p.id === row.post_id);
    if (!post) throw new Stop('the post was deleted');
    if (!post.socialAccountId) throw new Stop('the post names no account it was published with');
    return {
      orgId: row.org_id,
      postId: row.post_id,
      groupId: row.group_id,
      platform: post.platform,
      socialAccountId: post.socialAccountId,
      externalId: post.publishedExternalId ?? row.external_id,
      publishedAt: row.published_at,
      contentType: group.strategy.contentType,
    };
  }

  private async record(
    row: PostMetricsFetchesTable,
    subject: Awaited<ReturnType<MetricsFetcher['subjectOf']>>,
    metrics: MetricsReading,
    now: Date,
    loaded: { state: PostMetricsState; revision: number | null },
  ): Promise<{ fetchCount: number; lastFetchedAt: Date; position: Checkpoint | null }> {
    const metadata: CommandMetadata = {
      orgId: row.org_id,
      actor: 'system',
      correlationId: randomUUID(),
      now: now.toISOString(),
    };
    const outcome = await recordPostMetrics(
      this.options.commands,
      { ...subject, metrics, fetchedAt: now.toISOString() },
      metadata,
      { awaitReadModels: false, loaded },
    );
    const state = outcome.state;
    if (state.kind !== 'tracked') throw new Error(`post ${row.post_id}: a reading left no metrics`);
    return {
      fetchCount: state.fetchCount,
      lastFetchedAt: new Date(Math.max(now.getTime(), Date.parse(state.lastFetchedAt))),
      position: outcome.position,
    };
  }

  /** After a reading at `at`: the next one due, or done. Only while this instance still holds the row. */
  private async advance(row: PostMetricsFetchesTable, fetches: number, at: Date): Promise<void> {
    const next = nextFetchAt(row.published_at, at);
    await this.release(row, at, {
      status: next === null ? 'done' : 'active',
      next_fetch_at: next,
      fetches,
      attempts: 0,
      last_error: null,
    });
  }

  private async stopRow(row: PostMetricsFetchesTable, reason: string, now: Date): Promise<void> {
    await this.release(row, now, { status: 'stopped', next_fetch_at: null, stopped_reason: reason });
  }

  /** Writes the row's new schedule and gives up this instance's lease on it (only while it holds the lease). */
  private async release(
    row: PostMetricsFetchesTable,
    at: Date,
    changes: Partial<Omit<PostMetricsFetchesTable, 'lease_owner' | 'lease_until' | 'updated_at'>>,
  ): Promise<void> {
    await this.db
      .updateTable('post_metrics_fetches')
      .set({ ...changes, lease_owner: null, lease_until: null, updated_at: at.toISOString() })
      .where('post_id', '=', row.post_id)
      .where('lease_owner', '=', this.options.owner)
      .execute();
  }

  /**
   * A failed due reading is tried again after a growing delay (or the platform's retry time); true when the post
   * is given up instead, its last scheduled reading being long past. A failed refresh (`manual`) only notes the
   * error: the schedule stays as it was.
   */
  private async postpone(
    row: PostMetricsFetchesTable,
    error: unknown,
    now: Date,
    manual: boolean,
  ): Promise<boolean> {
    const attempts = row.attempts + 1;
    const message = error instanceof Error ? error.message : String(error);
    const lastDue =
      Date.parse(row.published_at) + METRICS_FETCH_OFFSETS_MS[METRICS_FETCH_OFFSETS_MS.length - 1]!;
    const scheduled = row.status === 'active' && !manual;
    if (scheduled && now.getTime() > lastDue + METRICS_GIVE_UP_AFTER_MS) {
      await this.stopRow(row, `given up after ${attempts} failed readings: ${message}`, now);
      return true;
    }
    const platformWait = isConnectorError(error) ? (error.details.retryAfterMs ?? 0) : 0;
    const retryAt = new Date(now.getTime() + Math.max(metricsRetryDelayMs(attempts), platformWait));
    await this.release(row, now, {
      last_error: message.slice(0, 1000),
      ...(scheduled ? { attempts, next_fetch_at: retryAt.toISOString() } : {}),
    });
    return false;
  }
}
