// The metrics fetcher: sweeps the fetch schedule for readings that are due, claims each post's row under a lease
// (`for update skip locked`, then lease owner and expiry), reads the posts' numbers through their platform
// connector with the account's tokens, within the platform's request budget, and records PostMetricsFetched. The
// analytics refresh reads a workspace's posts now through the same path and the same leases. A post gone from
// the platform or the workspace, or an account that is gone, stops the post's readings; a post over its
// platform's budget waits for the budget's next window; any other failure is tried again on a later round.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { AccountCalls } from '../../commands/social-accounts/account-access.js';
import type {
  MetricsReading,
  MetricsSubject,
  PostMetricsState,
} from '../../domain/analytics/post-metrics.js';
import { platformNames, type Platform } from '../../domain/shared/platforms.js';
import { loadPostMetrics, recordPostMetrics } from '../../commands/analytics/post-metrics-commands.js';
import {
  awaitReadModels,
  type CommandDeps,
  type CommandMetadata,
} from '../../commands/shared/command-handler.js';
import { limiter, mapLimited } from '../../infra/async/each-limited.js';
import { Rounds } from '../../infra/async/rounds.js';
import { metricsReadLimitsOf } from '../../infra/connectors/analytics-access.js';
import {
  ConnectorError,
  isConnectorError,
  type AccountRef,
  type CallContext,
  type ConnectorRegistry,
  type MetricsBatchAnswer,
  type MetricsFetch,
  type MetricsReadLimits,
  type MetricsRequest,
  type PlatformConnector,
  type TokenSet,
} from '../../infra/connectors/port.js';
import type { Checkpoint } from '../../infra/event-store/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { PostMetricsFetchesTable, PostMetricsFetchTables } from './migrations.js';
import { METRICS_WINDOW_MS, nextFetchAt } from './post-metrics-schedule.js';
import { ReadBudget } from './read-budget.js';

/** The social accounts a reading acts for (commands/social-accounts AccountAccess implements it). */
export type MetricsAccounts = AccountCalls;

export interface MetricsFetcherOptions {
  // Only the schedule and budget tables and the posts read model are touched directly; commands go through the
  // event store.
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
  /** Rows claimed at once; default 200. */
  batchSize?: number;
  /**
   * Platform reads and recordings under way at once; default 16. Fewer leave the projection runner folding a
   * page per append or two (10.9 statements per post at 4, 6.9 at 8, 3.2 at 16 in the refresh benchmark); more
   * hold more of the connection pool (10 by default) while a large refresh runs.
   */
  concurrency?: number;
  /** Per platform call; default 30 seconds. */
  callTimeoutMs?: number;
  /** What metrics reads cost against a platform's limits; default the connector's (infra/connectors/analytics-access.ts). */
  readLimits?: (connector: PlatformConnector) => MetricsReadLimits;
}

export interface FetchRound {
  recorded: number;
  stopped: number;
  retried: number;
  /** Not read this round: over the platform's request budget, due again when its next window opens. */
  deferred: number;
}

export interface RefreshOptions {
  now?: Date;
  /**
   * How many of the posts it wants to read the refresh may read (its fair use, asked once with their number);
   * the rest count in skippedFairUse. Default: all of them.
   */
  allowance?: (wanted: number) => Promise<number>;
  /** Posts read this recently are not read again (they count in skippedFairUse); default 10 minutes. */
  freshMs?: number;
  /** Waits for the read models to show the readings (default true). */
  awaitReadModels?: boolean;
}

export interface RefreshResult {
  /** Posts whose platform was asked (or that were found gone). */
  processed: number;
  /** Of those, posts with a new reading recorded. */
  updated: number;
  /** Of those, posts not read: a failure, or the post or its account gone. */
  failed: number;
  /** Posts left out by the refresh's fair use: read moments ago, or beyond the call's allowance. */
  skippedFairUse: number;
  /** Per platform: why posts failed, and posts waiting for the platform's request budget. */
  errors: Array<{ platform: string; message: string }>;
  /** Posts over their platform's budget now; the background fetcher reads them when it allows. */
  deferred: number;
  /** Posts another reader (the background fetcher, another refresh) held at the time. */
  busy: number;
}

/** Failed readings are tried again after 5 minutes, doubling to 6 hours. */
export function metricsRetryDelayMs(attempts: number): number {
  return Math.min(6 * 3_600_000, 5 * 60_000 * 2 ** Math.max(0, attempts - 1));
}

/** A post whose readings keep failing is given up this long after its last scheduled reading. */
export const METRICS_GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;

/** A post read this recently is not read again by a refresh. */
export const METRICS_FRESH_MS = 10 * 60_000;

const noMedia = async (): Promise<never> => {
  throw new ConnectorError('permanent', 'reading metrics uploads no media');
};

type Row = PostMetricsFetchesTable;
type Subject = MetricsSubject;
type Loaded = { state: PostMetricsState; revision: number | null };
type Mode = 'scheduled' | 'refresh';

/** What became of one claimed row. */
type Verdict =
  | { kind: 'recorded'; platform: string; fetchCount: number; at: Date; position: Checkpoint | null }
  /** `platform` null: the post is no longer in the workspace (deleted), so a refresh does not count it. */
  | { kind: 'stopped'; platform: string | null; reason: string }
  | { kind: 'failed'; platform: string; error: unknown }
  | { kind: 'deferred'; platform: string; until: Date | null };

/** What one pass (a round, a refresh) keeps across its batches. */
interface Pass {
  zones: Map<string, Promise<string>>;
  accounts: Map<string, ReturnType<MetricsAccounts['resolve']>>;
  /** Places for recordings (one append each) under way at once, across the accounts of the pass. */
  recording: <R>(fn: () => Promise<R>) => Promise<R>;
}

/** The row as it is written back: every column a verdict may change. */
interface RowChange {
  post_id: string;
  status: Row['status'];
  next_fetch_at: string | null;
  fetches: number;
  attempts: number;
  last_error: string | null;
  stopped_reason: string | null;
  last_fetched_at: string | null;
  updated_at: string;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class MetricsFetcher {
  private readonly db: Kysely<PostMetricsFetchTables>;
  private readonly now: () => Date;
  private readonly intervalMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly callTimeoutMs: number;
  private readonly timezoneOf: (orgId: string) => Promise<string>;
  private readonly budget: ReadBudget;
  private rounds: Rounds | undefined;

  constructor(private readonly options: MetricsFetcherOptions) {
    this.db = options.db as Kysely<PostMetricsFetchTables>;
    this.now = options.now ?? (() => new Date());
    this.intervalMs = options.intervalMs ?? 60_000;
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.batchSize = options.batchSize ?? 200;
    this.concurrency = options.concurrency ?? 16;
    this.callTimeoutMs = options.callTimeoutMs ?? 30_000;
    this.timezoneOf = options.timezoneOf ?? (async () => 'UTC');
    this.budget = new ReadBudget(options.db);
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

  /** Ends the loop after the batch in progress. */
  async stop(): Promise<void> {
    await this.rounds?.stop();
  }

  /** Reads every post whose reading is due at `now`, a batch of claimed rows at a time. */
  async runOnce(now: Date = this.now()): Promise<FetchRound> {
    const round: FetchRound = { recorded: 0, stopped: 0, retried: 0, deferred: 0 };
    const pass = newPass(this.concurrency);
    for (let batch = 0; batch < 50 && !this.rounds?.stopping; batch += 1) {
      const rows = await this.claimDue(now);
      if (rows.length === 0) break;
      const verdicts = await this.readBatch(rows, now, 'scheduled', this.options.owner, pass);
      for (const verdict of verdicts.values()) {
        if (verdict.kind === 'recorded') round.recorded++;
        else if (verdict.kind === 'stopped') round.stopped++;
        else if (verdict.kind === 'failed') round.retried++;
        else round.deferred++;
      }
      if (rows.length < this.batchSize) break;
    }
    return round;
  }

  /**
   * Reads now the workspace's posts still on the cadence (published within the last 30 days, not stopped): those
   * due first, then the newest. Posts read within `freshMs` and those beyond the allowance are skipped (fair use);
   * posts another reader holds are left to it. Each call leases its rows under an owner of its own, so two
   * refreshes and the background fetcher never read one post at once. The schedule moves on from each reading.
   */
  async refreshWorkspace(orgId: string, options: RefreshOptions = {}): Promise<RefreshResult> {
    const now = options.now ?? this.now();
    const freshSince = now.getTime() - (options.freshMs ?? METRICS_FRESH_MS);
    const candidates = await this.db
      .selectFrom('post_metrics_fetches')
      .select(['post_id', 'last_fetched_at'])
      .where('org_id', '=', orgId)
      .where('status', '=', 'active')
      .orderBy(sql`next_fetch_at <= ${now.toISOString()} desc nulls last`)
      .orderBy('published_at', 'desc')
      .execute();
    const stale = candidates.filter(
      (c) => c.last_fetched_at === null || Date.parse(c.last_fetched_at) <= freshSince,
    );
    const allowed = options.allowance ? await options.allowance(stale.length) : stale.length;
    const chosen = stale.slice(0, Math.max(0, Math.min(stale.length, allowed)));
    const result: RefreshResult = {
      processed: 0,
      updated: 0,
      failed: 0,
      skippedFairUse: candidates.length - chosen.length,
      errors: [],
      deferred: 0,
      busy: 0,
    };
    const owner = `${this.options.owner}:refresh:${randomUUID()}`;
    const pass = newPass(this.concurrency);
    const problems = new ProblemsByPlatform();
    let last: Checkpoint | null = null;
    for (let start = 0; start < chosen.length; start += this.batchSize) {
      const ids = chosen.slice(start, start + this.batchSize).map((c) => c.post_id);
      const rows = await this.claimIds(ids, owner, now);
      result.busy += ids.length - rows.length;
      if (rows.length === 0) continue;
      const verdicts = await this.readBatch(rows, now, 'refresh', owner, pass);
      for (const verdict of verdicts.values()) {
        if (verdict.kind === 'deferred') {
          result.deferred++;
          problems.defer(verdict.platform);
          continue;
        }
        if (verdict.kind === 'stopped' && verdict.platform === null) continue;
        result.processed++;
        if (verdict.kind === 'recorded') {
          result.updated++;
          if (verdict.position && (!last || this.compare(verdict.position, last) > 0))
            last = verdict.position;
        } else {
          result.failed++;
          problems.add(
            verdict.platform ?? 'unknown',
            verdict.kind === 'stopped' ? verdict.reason : messageOf(verdict.error),
          );
        }
      }
    }
    result.errors = problems.summary();
    if (last && options.awaitReadModels !== false) await awaitReadModels(this.options.commands, last);
    return result;
  }

  private compare(a: Checkpoint, b: Checkpoint): number {
    return this.options.commands.eventStore.compareCheckpoints(a, b);
  }

  /** Claims due rows no live lease holds, oldest due first; other instances skip them. */
  private async claimDue(now: Date): Promise<Row[]> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const { rows } = await sql<Row>`
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

  /** Claims these rows whatever their due time, but those another reader holds. */
  private async claimIds(ids: readonly string[], owner: string, now: Date): Promise<Row[]> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const { rows } = await sql<Row>`
      update post_metrics_fetches set lease_owner = ${owner}, lease_until = ${until}
      where post_id in (
        select post_id from post_metrics_fetches
        where post_id = any(${ids}::uuid[]) and status = 'active'
          and (lease_until is null or lease_until < ${at})
        for update skip locked)
      returning *`.execute(this.db);
    return rows;
  }

  /**
   * Reads a batch of claimed rows: what each post is (the posts read model), the account it was published with
   * (once per account and pass), the platform budget for the account's posts, one read per request the platform
   * takes, one recording per reading, then every row's schedule in one statement.
   */
  private async readBatch(
    rows: readonly Row[],
    now: Date,
    mode: Mode,
    owner: string,
    pass: Pass,
  ): Promise<Map<string, Verdict>> {
    const verdicts = new Map<string, Verdict>();
    const subjects = await this.subjectsOf(rows);
    const pending: Array<{ row: Row; subject: Subject; loaded: Loaded }> = [];
    await mapLimited(rows, this.concurrency, async (row) => {
      const subject = subjects.get(row.post_id) ?? 'the post was deleted';
      if (typeof subject === 'string') {
        verdicts.set(row.post_id, { kind: 'stopped', platform: null, reason: subject });
        return;
      }
      try {
        const loaded = await this.loadedFor(row, subject, mode);
        // An instance that crashed after recording this reading, before moving the schedule on: it is taken.
        if (
          mode === 'scheduled' &&
          loaded.state.kind === 'tracked' &&
          row.next_fetch_at !== null &&
          Date.parse(loaded.state.lastFetchedAt) >= Date.parse(row.next_fetch_at)
        ) {
          const at = new Date(loaded.state.lastFetchedAt);
          verdicts.set(row.post_id, {
            kind: 'recorded',
            platform: subject.platform,
            fetchCount: loaded.state.fetchCount,
            at,
            position: null,
          });
          return;
        }
        pending.push({ row, subject, loaded });
      } catch (error) {
        verdicts.set(row.post_id, { kind: 'failed', platform: subject.platform, error });
      }
    });

    const byAccount = new Map<string, typeof pending>();
    for (const item of pending) {
      const key = `${item.subject.platform}:${item.subject.socialAccountId}`;
      byAccount.set(key, [...(byAccount.get(key) ?? []), item]);
    }
    await mapLimited([...byAccount.values()], 4, (items) =>
      this.readAccountPosts(items, now, pass, verdicts),
    );

    await this.writeSchedule(rows, verdicts, now, mode, owner);
    this.log(verdicts, rows, mode);
    return verdicts;
  }

  /** The posts of one account: its budget, its reads, their recordings. */
  private async readAccountPosts(
    items: ReadonlyArray<{ row: Row; subject: Subject; loaded: Loaded }>,
    now: Date,
    pass: Pass,
    verdicts: Map<string, Verdict>,
  ): Promise<void> {
    const { subject: first } = items[0]!;
    const platform = first.platform;
    const settle = (item: (typeof items)[number], verdict: Verdict) =>
      verdicts.set(item.row.post_id, verdict);
    let resolved = pass.accounts.get(first.socialAccountId);
    if (!resolved) {
      resolved = this.options.accounts.resolve({
        orgId: first.orgId,
        platform,
        socialAccountId: first.socialAccountId,
      });
      pass.accounts.set(first.socialAccountId, resolved);
    }
    let account: AccountRef;
    try {
      const outcome = await resolved;
      if (!outcome.ok) {
        for (const item of items)
          settle(
            item,
            outcome.reason === 'not_found'
              ? { kind: 'stopped', platform, reason: `the account is gone: ${outcome.message}` }
              : { kind: 'failed', platform, error: new ConnectorError('auth', outcome.message) },
          );
        return;
      }
      account = outcome.account;
    } catch (error) {
      for (const item of items) settle(item, { kind: 'failed', platform, error });
      return;
    }

    const connector = this.options.connectors.get(platform);
    const limits = this.options.readLimits?.(connector) ?? metricsReadLimitsOf(connector);
    const perRequest = Math.max(1, limits.postsPerRequest);
    const requestsFor = (posts: number) => Math.ceil(posts / perRequest) * limits.requestsPerPost;
    const grant = await this.budget.take(platform, account.id, limits.limits, requestsFor(items.length), now);
    const allowed = Math.min(items.length, Math.floor(grant.granted / limits.requestsPerPost) * perRequest);
    const unused = grant.granted - requestsFor(allowed);
    if (unused > 0) await this.budget.refund(platform, account.id, limits.limits, unused, now);
    for (const item of items.slice(allowed))
      settle(item, { kind: 'deferred', platform, until: grant.nextWindowAt });
    const reading = items.slice(0, allowed);
    if (reading.length === 0) return;

    const requests = await Promise.all(
      reading.map(async ({ row, subject }): Promise<MetricsRequest> => {
        let zone = pass.zones.get(row.org_id);
        if (!zone) {
          zone = this.timezoneOf(row.org_id);
          pass.zones.set(row.org_id, zone);
        }
        return {
          externalId: subject.externalId,
          url: row.url,
          publishedAt: row.published_at,
          timezone: await zone,
        };
      }),
    );
    const context = (tokens: TokenSet): CallContext => ({
      account,
      tokens,
      fetchMedia: noMedia,
      signal: AbortSignal.timeout(this.callTimeoutMs),
    });
    const take = async (index: number, fetched: MetricsFetch) => {
      const item = reading[index]!;
      if (fetched.kind === 'not_found') {
        settle(item, { kind: 'stopped', platform, reason: `${platform} no longer has the post` });
        return;
      }
      try {
        settle(
          item,
          await pass.recording(() => this.record(item.row, item.subject, fetched.metrics, now, item.loaded)),
        );
      } catch (error) {
        settle(item, { kind: 'failed', platform, error });
      }
    };

    const batchRead = connector.fetchMetricsBatch?.bind(connector);
    if (batchRead && perRequest > 1) {
      const chunks: number[][] = [];
      for (let i = 0; i < reading.length; i += perRequest)
        chunks.push(Array.from({ length: Math.min(perRequest, reading.length - i) }, (_, k) => i + k));
      await mapLimited(chunks, 2, async (chunk) => {
        let answers: MetricsBatchAnswer[];
        try {
          answers = await this.options.accounts.withTokens(account, (tokens) =>
            batchRead(
              context(tokens),
              chunk.map((i) => requests[i]!),
            ),
          );
          if (answers.length !== chunk.length)
            throw new ConnectorError(
              'retryable',
              `${platform}: answered ${answers.length} readings for ${chunk.length} posts`,
            );
        } catch (error) {
          for (const i of chunk) settle(reading[i]!, { kind: 'failed', platform, error });
          return;
        }
        await Promise.all(
          chunk.map(async (i, k) => {
            const answer = answers[k]!;
            if (answer.kind === 'error')
              settle(reading[i]!, {
                kind: 'failed',
                platform,
                error: new ConnectorError('retryable', answer.message),
              });
            else await take(i, answer);
          }),
        );
      });
      return;
    }
    await mapLimited(reading, this.concurrency, async (item, index) => {
      let fetched: MetricsFetch;
      try {
        fetched = await this.options.accounts.withTokens(account, (tokens) =>
          connector.fetchMetrics(context(tokens), requests[index]!),
        );
      } catch (error) {
        settle(item, { kind: 'failed', platform, error });
        return;
      }
      await take(index, fetched);
    });
  }

  /**
   * What each post is, from the posts read model (one query for the batch): the post, or why its readings end
   * (the post was deleted, or names no account).
   */
  private async subjectsOf(rows: readonly Row[]): Promise<Map<string, Subject | string>> {
    const { rows: found } = await sql<{
      id: string;
      platform: Platform;
      social_account_id: string | null;
      external_id: string | null;
      content_type: string | null;
    }>`
      select p.id, p.platform, p.social_account_id, p.body->>'publishedExternalId' as external_id,
        g.body->>'contentType' as content_type
      from posts p left join post_groups g on g.id = p.group_id
      where p.id = any(${rows.map((r) => r.post_id)}::uuid[])`.execute(this.db);
    const posts = new Map(found.map((p) => [p.id, p]));
    const subjects = new Map<string, Subject | string>();
    for (const row of rows) {
      const post = posts.get(row.post_id);
      if (!post) subjects.set(row.post_id, 'the post was deleted');
      else if (!post.social_account_id)
        subjects.set(row.post_id, 'the post names no account it was published with');
      else
        subjects.set(row.post_id, {
          orgId: row.org_id,
          postId: row.post_id,
          groupId: row.group_id,
          platform: post.platform,
          socialAccountId: post.social_account_id,
          externalId: post.external_id ?? row.external_id,
          publishedAt: row.published_at,
          contentType: post.content_type,
        });
    }
    return subjects;
  }

  /**
   * The post's readings so far. The background reads its stream (an instance that crashed after recording is
   * noticed before the platform is asked again). A refresh reads a new reading anyway: it decides against the
   * schedule row (its readings' count and the last one's time) and reads the stream only when the row does not
   * know (a row from before issue 28) or the append finds the stream moved on.
   */
  private async loadedFor(row: Row, subject: Subject, mode: Mode): Promise<Loaded> {
    if (mode === 'refresh') {
      if (row.fetches === 0) return { state: { kind: 'untracked' }, revision: null };
      if (row.last_fetched_at !== null)
        return {
          state: {
            kind: 'tracked',
            subject,
            fetchCount: row.fetches,
            lastFetchedAt: new Date(row.last_fetched_at).toISOString(),
            latest: { likes: 0, reposts: 0, replies: 0, quotes: 0, bookmarks: null, impressions: null },
            engagement: 0,
          },
          revision: row.fetches - 1,
        };
    }
    return loadPostMetrics(this.options.commands, row.post_id);
  }

  private async record(
    row: Row,
    subject: Subject,
    metrics: MetricsReading,
    now: Date,
    loaded: Loaded,
  ): Promise<Verdict> {
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
      kind: 'recorded',
      platform: subject.platform,
      fetchCount: state.fetchCount,
      // A reading older than the last recorded one decided nothing: the schedule moves on from the newest.
      at: new Date(Math.max(now.getTime(), Date.parse(state.lastFetchedAt))),
      position: outcome.position,
    };
  }

  /**
   * Every row of the batch written back and released in one statement, only where this reader still holds it:
   * a reading moves the schedule on; a stop ends it; a failed due reading is tried again after a growing delay
   * (a refused one not before the next reading of the cadence), or given up long after the last one; a post
   * over budget waits for the budget's next window. A refresh's failures and waits leave the schedule as it was.
   */
  private async writeSchedule(
    rows: readonly Row[],
    verdicts: Map<string, Verdict>,
    now: Date,
    mode: Mode,
    owner: string,
  ): Promise<void> {
    const at = now.toISOString();
    const changes: RowChange[] = rows.map((row) => {
      const same: RowChange = {
        post_id: row.post_id,
        status: row.status,
        next_fetch_at: row.next_fetch_at,
        fetches: row.fetches,
        attempts: row.attempts,
        last_error: row.last_error,
        stopped_reason: row.stopped_reason,
        last_fetched_at: row.last_fetched_at,
        updated_at: at,
      };
      const verdict = verdicts.get(row.post_id);
      if (!verdict) return same;
      switch (verdict.kind) {
        case 'recorded': {
          const next = nextFetchAt(row.published_at, verdict.at);
          return {
            ...same,
            status: next === null ? 'done' : 'active',
            next_fetch_at: next,
            fetches: verdict.fetchCount,
            attempts: 0,
            last_error: null,
            last_fetched_at: verdict.at.toISOString(),
            updated_at: verdict.at.toISOString(),
          };
        }
        case 'stopped':
          return { ...same, status: 'stopped', next_fetch_at: null, stopped_reason: verdict.reason };
        case 'deferred': {
          if (mode === 'refresh') return same;
          const until = verdict.until ?? new Date(now.getTime() + 60_000);
          const due = row.next_fetch_at
            ? Math.max(Date.parse(row.next_fetch_at), until.getTime())
            : until.getTime();
          return { ...same, next_fetch_at: new Date(due).toISOString() };
        }
        case 'failed': {
          const message = messageOf(verdict.error).slice(0, 1000);
          if (mode === 'refresh') return { ...same, last_error: message };
          const attempts = row.attempts + 1;
          const lastDue = Date.parse(row.published_at) + METRICS_WINDOW_MS;
          if (now.getTime() > lastDue + METRICS_GIVE_UP_AFTER_MS) {
            const reason = `given up after ${attempts} failed readings: ${message}`;
            verdicts.set(row.post_id, { kind: 'stopped', platform: verdict.platform, reason });
            return {
              ...same,
              status: 'stopped',
              next_fetch_at: null,
              stopped_reason: reason,
              last_error: message,
            };
          }
          const error = verdict.error;
          const platformWait = isConnectorError(error) ? (error.details.retryAfterMs ?? 0) : 0;
          let retryAt = now.getTime() + Math.max(metricsRetryDelayMs(attempts), platformWait);
          // Refused for good this time (a permission the grant lacks): asking again before the next reading of
          // the cadence would spend the platform's budget on the same refusal.
          if (isConnectorError(error) && error.kind === 'permanent') {
            const next = nextFetchAt(row.published_at, now);
            if (next) retryAt = Math.max(retryAt, Date.parse(next));
          }
          return { ...same, attempts, next_fetch_at: new Date(retryAt).toISOString(), last_error: message };
        }
        default: {
          const never: never = verdict;
          return never;
        }
      }
    });
    await sql`
      update post_metrics_fetches f set
        status = v.status, next_fetch_at = v.next_fetch_at, fetches = v.fetches, attempts = v.attempts,
        last_error = v.last_error, stopped_reason = v.stopped_reason, last_fetched_at = v.last_fetched_at,
        updated_at = v.updated_at, lease_owner = null, lease_until = null
      from jsonb_to_recordset(${JSON.stringify(changes)}::jsonb) as v(
        post_id uuid, status text, next_fetch_at timestamptz, fetches integer, attempts integer, last_error text,
        stopped_reason text, last_fetched_at timestamptz, updated_at timestamptz)
      where f.post_id = v.post_id and f.lease_owner = ${owner}`.execute(this.db);
  }

  /** One line per kind of trouble in the batch (not one per post). */
  private log(verdicts: Map<string, Verdict>, rows: readonly Row[], mode: Mode): void {
    const { logger } = this.options;
    const orgOf = new Map(rows.map((r) => [r.post_id, r.org_id]));
    const stops = new Map<string, { platform: string | null; reason: string; posts: string[] }>();
    const failures = new Map<string, { platform: string; message: string; kind?: string; posts: string[] }>();
    for (const [postId, verdict] of verdicts) {
      if (verdict.kind === 'stopped') {
        const key = `${verdict.platform ?? ''}\n${verdict.reason}`;
        const entry = stops.get(key) ?? { platform: verdict.platform, reason: verdict.reason, posts: [] };
        entry.posts.push(postId);
        stops.set(key, entry);
      } else if (verdict.kind === 'failed') {
        const message = messageOf(verdict.error);
        const key = `${verdict.platform}\n${message}`;
        const entry = failures.get(key) ?? {
          platform: verdict.platform,
          message,
          ...(isConnectorError(verdict.error) ? { kind: verdict.error.kind } : {}),
          posts: [],
        };
        entry.posts.push(postId);
        failures.set(key, entry);
      }
    }
    for (const stop of stops.values())
      logger.info(
        {
          platform: stop.platform,
          reason: stop.reason,
          posts: stop.posts.length,
          postId: stop.posts[0],
          orgId: orgOf.get(stop.posts[0]!),
        },
        'post metrics: no further readings',
      );
    for (const failure of failures.values())
      logger.warn(
        {
          platform: failure.platform,
          kind: failure.kind,
          err: failure.message,
          posts: failure.posts.length,
          postId: failure.posts[0],
          orgId: orgOf.get(failure.posts[0]!),
          mode,
        },
        'post metrics reading postponed',
      );
  }
}

function newPass(concurrency: number): Pass {
  return { zones: new Map(), accounts: new Map(), recording: limiter(concurrency) };
}

/**
 * A refresh's errors, one entry per platform: each distinct reason with its number of posts, and the posts that
 * wait for the platform's request budget.
 */
class ProblemsByPlatform {
  private readonly reasons = new Map<string, Map<string, number>>();
  private readonly waiting = new Map<string, number>();

  add(platform: string, message: string): void {
    const reasons = this.reasons.get(platform) ?? new Map<string, number>();
    reasons.set(message, (reasons.get(message) ?? 0) + 1);
    this.reasons.set(platform, reasons);
  }

  defer(platform: string): void {
    this.waiting.set(platform, (this.waiting.get(platform) ?? 0) + 1);
  }

  summary(): Array<{ platform: string; message: string }> {
    const platforms = [...new Set([...this.reasons.keys(), ...this.waiting.keys()])].sort();
    return platforms.map((platform) => {
      const parts = [...(this.reasons.get(platform) ?? new Map<string, number>()).entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([message, posts]) => `${message} (${posts} ${posts === 1 ? 'post' : 'posts'})`);
      const shown = parts.slice(0, 3);
      if (parts.length > 3) shown.push(`${parts.length - 3} more reasons`);
      const waiting = this.waiting.get(platform);
      if (waiting) {
        const name = platform in platformNames ? platformNames[platform as Platform] : platform;
        shown.push(
          `${waiting} ${waiting === 1 ? 'post waits' : 'posts wait'} for ${name}'s rate limit and will be read when it allows`,
        );
      }
      return { platform, message: shown.join('; ') };
    });
  }
}
