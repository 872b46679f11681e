// The publishing clock and its workers: the lease holder sweeps the posts read model for due work and enqueues
// jobs on the bus (in-process, or NATS JetStream shared by any number of workers); every instance runs jobs.
// Between sweeps the holder sleeps until the next post falls due, or until a projection the sweep reads commits
// (a post scheduled or published now, a workspace deleted, a subscription that may publish again), not on a timer.
import { sql, type Kysely } from 'kysely';
import type { Bus, Consumer } from '../../infra/bus/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import { PerKeyQueue } from '../../infra/async/per-key-queue.js';
import { sleep } from '../../infra/async/sleep.js';
import { mayPublishSql } from '../../projections/billing/subscriptions-projection.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { ProjectionCommitWaits } from '../../projections/engine/commits.js';
import type { JobResult, PublishJob, Publisher } from './publisher.js';

export const PUBLISHING_QUEUE = 'publishing';

export interface PublishingServiceOptions {
  db: Kysely<ReadModels>;
  bus: Bus;
  publisher: Publisher;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  /** Lease owner, unique per process. */
  owner: string;
  /** The shortest time between two sweeps (a burst of commits sweeps at most this often). */
  sweepIntervalMs: number;
  /**
   * Wake-ups on the commits of `wakeOn` (the projections the sweep reads). Without them the holder sweeps every
   * sweepIntervalMs, as it does with a `now` seam (a clock it does not own cannot be slept on).
   */
  commits?: ProjectionCommitWaits;
  wakeOn?: readonly string[];
  /** The longest sleep between sweeps without a commit or due work (a safety net for a lost notification). */
  idleSweepMs?: number;
  staleAttemptMs: number;
  concurrency: number;
  /** How long a job may run before the bus hands it to another worker. */
  ackWaitMs: number;
  /** Whether this instance sweeps (the lease holder does) and runs jobs. */
  sweep?: boolean;
  work?: boolean;
  leaseTtlMs?: number;
  /**
   * A job enqueued for the same work is sent again after this long, in case its message was lost (the bus keeps
   * it otherwise: JetStream redelivers unacknowledged work itself). Short values flood a busy queue with copies.
   */
  redispatchMs?: number;
  now?: () => Date;
  onJobDone?: (job: PublishJob, result: JobResult) => void;
}

interface Dispatched {
  key: string;
  at: number;
  sends: number;
}

export class PublishingService {
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private consumer: Consumer | undefined;
  private readonly dispatched = new Map<string, Dispatched>();
  private holdsLease = false;
  /** Whether the last sweep found as many rows as it takes (more are due: sweep again soon). */
  private sweptFull = false;
  /** Whether the billing subscriptions read model exists yet (its first build makes it; checked until then). */
  private billingReadModel = false;
  /** Per post group, the job of this process running or queued last: jobs of one group run one at a time. */
  /** The jobs of one group one after another (see start()). */
  private readonly groups = new PerKeyQueue();

  constructor(private readonly options: PublishingServiceOptions) {}

  async start(): Promise<void> {
    const { bus, publisher, concurrency, ackWaitMs, logger } = this.options;
    if (this.options.work !== false) {
      this.consumer = await bus.consume(
        PUBLISHING_QUEUE,
        async (message) => {
          const job = message.data as PublishJob;
          // The posts of a group are due together and append to the group's one stream: run side by side they
          // conflicted on almost every claim (0.8 retries per post, each reading the stream again).
          const result = await this.groups.run(job.groupId, () => publisher.run(job));
          logger.debug({ postId: job.postId, result }, 'publishing job done');
          this.options.onJobDone?.(job, result);
        },
        { concurrency, ackWaitMs, maxDeliver: 5 },
      );
    }
    if (this.options.sweep !== false) this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.consumer?.stop();
    if (this.holdsLease) {
      await sql`delete from publishing_leases where name = 'sweep' and owner = ${this.options.owner}`
        .execute(this.options.db)
        .catch(() => undefined);
    }
  }

  private async run(): Promise<void> {
    const { logger, sweepIntervalMs, commits } = this.options;
    const signal = this.abort.signal;
    const ttl = this.options.leaseTtlMs ?? 5000;
    // Without wake-ups (or with a clock we do not own), sweep on a timer as before.
    const sleeps = commits !== undefined && this.options.now === undefined;
    let failures = 0;
    /** When the next sweep is due (wall clock, ms); 0 for at once. */
    let sweepAt = 0;
    let lastSweep = 0;
    /**
     * The wait for a commit, always armed (re-armed the moment it ends), so a commit that lands while a sweep reads
     * counts; kept across the lease renewals in between.
     */
    let committed: Promise<void> | null = null;
    /** A commit (or the safety timeout) since the last sweep began to read. */
    let woken = false;
    const arm = (): void => {
      if (!sleeps || signal.aborted) return;
      committed = commits.wait(this.options.wakeOn ?? [], this.idleSweepMs, signal).then(() => {
        woken = true;
        arm();
      });
    };
    arm();
    while (!signal.aborted) {
      try {
        let wait: number;
        if (await this.lease()) {
          if (woken || Date.now() >= sweepAt) {
            const sinceLast = Date.now() - lastSweep;
            if (sinceLast < sweepIntervalMs) await sleep(sweepIntervalMs - sinceLast, signal);
            if (signal.aborted) break;
            lastSweep = Date.now();
            woken = false;
            const now = this.options.now?.() ?? new Date();
            await this.sweepOnce(now);
            sweepAt = sleeps ? await this.nextSweepAt(now) : lastSweep + sweepIntervalMs;
            // A commit during the sweep may have missed its read: sweep again.
            if (woken) sweepAt = 0;
          }
          // The holder renews its lease twice per time to live, sweeping or not.
          wait = Math.min(sweepAt - Date.now(), ttl / 2);
        } else {
          // Standing by: try the lease again often enough to take over soon after the holder's lapses.
          wait = Math.max(sweepIntervalMs, Math.floor(ttl / 5));
          // Commits are the holder's business; taking the lease, this one sweeps at once.
          sweepAt = 0;
          woken = false;
        }
        failures = 0;
        if (wait > 0 && !woken) await this.sleepUnless(wait, committed, signal);
      } catch (error) {
        failures += 1;
        logger.error({ err: error, attempt: failures }, 'publishing sweep failed; retrying');
        await sleep(Math.min(10_000, sweepIntervalMs * 2 ** Math.min(failures, 6)), signal);
        sweepAt = 0;
      }
    }
    while (committed) {
      const last: Promise<void> = committed;
      await last;
      if (committed === last) break;
    }
  }

  /** Sleeps `ms`, or less when `ended` ends first (or the signal aborts). */
  private async sleepUnless(ms: number, ended: Promise<void> | null, signal: AbortSignal): Promise<void> {
    if (!ended) return sleep(ms, signal);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  private get idleSweepMs(): number {
    return this.options.idleSweepMs ?? 30_000;
  }

  /**
   * When the sweep after `now`'s must run (wall clock, ms): when the next post falls due, when a job sent for work
   * still due may be sent again (redispatchMs), or after idleSweepMs, whichever is first. Work due by `now` that
   * the sweep left (already sent, or held by billing) waits for a commit that changes it.
   */
  private async nextSweepAt(now: Date): Promise<number> {
    let next = Date.now() + this.idleSweepMs;
    if (this.sweptFull) return Date.now();
    const redispatchMs = this.options.redispatchMs ?? 60_000;
    for (const sent of this.dispatched.values()) next = Math.min(next, sent.at + redispatchMs);
    const { staleAttemptMs } = this.options;
    const staleBefore = new Date(now.getTime() - staleAttemptMs).toISOString();
    // Two index walks (posts by publish_due_at): work other than reconciling is due at its time, a reconcile
    // staleAttemptMs after it (see sweepOnce).
    const row = (
      await sql<{ due: Date | string | null; reconcile: Date | string | null }>`
        select
          (select min(publish_due_at) from posts
            where publish_due_at > ${now.toISOString()} and publish_action != 'reconcile') as due,
          (select min(publish_due_at) from posts
            where publish_due_at > ${staleBefore} and publish_action = 'reconcile') as reconcile`.execute(
        this.options.db,
      )
    ).rows[0];
    if (row?.due) next = Math.min(next, new Date(row.due).getTime());
    if (row?.reconcile) next = Math.min(next, new Date(row.reconcile).getTime() + staleAttemptMs);
    return next;
  }

  private async lease(): Promise<boolean> {
    const ttl = this.options.leaseTtlMs ?? 5000;
    const result = await sql<{ owner: string }>`
      insert into publishing_leases (name, owner, expires_at)
      values ('sweep', ${this.options.owner}, now() + ${ttl} * interval '1 millisecond')
      on conflict (name) do update set owner = excluded.owner, expires_at = excluded.expires_at
      where publishing_leases.owner = excluded.owner or publishing_leases.expires_at < now()
      returning owner`.execute(this.options.db);
    const held = result.rows.length > 0;
    if (held !== this.holdsLease)
      this.options.logger.info(
        { owner: this.options.owner, held },
        held ? 'publishing sweep lease taken' : 'publishing sweep lease lost',
      );
    this.holdsLease = held;
    return held;
  }

  /** Whether the sweep can hold posts by billing yet (a service without the billing read model holds none). */
  private async billingHolds(): Promise<boolean> {
    if (this.billingReadModel) return true;
    const found = await sql<{
      view: string | null;
    }>`select to_regclass('public.billing_subscriptions')::text as view`.execute(this.options.db);
    this.billingReadModel = found.rows[0]?.view != null;
    return this.billingReadModel;
  }

  /** Enqueues a job for every post with due work; returns how many were sent. */
  async sweepOnce(now: Date = this.options.now?.() ?? new Date()): Promise<number> {
    const { db, bus, staleAttemptMs } = this.options;
    const staleBefore = new Date(now.getTime() - staleAttemptMs).toISOString();
    const rows = await db
      .selectFrom('posts')
      .select(['id', 'org_id', 'group_id', 'publish_action', 'publish_due_at'])
      .where('publish_due_at', 'is not', null)
      .where('publish_due_at', '<=', now.toISOString())
      .where((eb) =>
        eb.or([eb('publish_action', '!=', 'reconcile'), eb('publish_due_at', '<=', staleBefore)]),
      )
      // A deleted workspace publishes nothing more; what it already sent is still reconciled.
      .where((eb) =>
        eb.or([
          eb('publish_action', '!=', 'publish'),
          eb.not(
            eb.exists(
              eb
                .selectFrom('workspaces')
                .select('workspaces.id')
                .whereRef('workspaces.id', '=', 'posts.org_id')
                .where('workspaces.status', '=', 'deleted'),
            ),
          ),
        ]),
      )
      // Billing (issue 14): a workspace that may not publish now (read-only while overdue, trial over, canceled,
      // paused) has its due posts held, not failed: they stay scheduled and go out once it may publish again.
      .$if(await this.billingHolds(), (qb) =>
        qb.where((eb) =>
          eb.or([
            eb('publish_action', '!=', 'publish'),
            sql<boolean>`not exists (select 1 from billing_subscriptions s where s.org_id = posts.org_id and not ${mayPublishSql('s', now.toISOString())})`,
          ]),
        ),
      )
      .orderBy('publish_due_at')
      .limit(2000)
      .execute();
    this.sweptFull = rows.length >= 2000;
    const redispatchMs = this.options.redispatchMs ?? 60_000;
    const seen = new Set<string>();
    let sent = 0;
    for (const row of rows) {
      seen.add(row.id);
      const dueMs = new Date(row.publish_due_at!).getTime();
      const key = `${row.publish_action}.${dueMs}`;
      const previous = this.dispatched.get(row.id);
      if (previous && previous.key === key && now.getTime() - previous.at < redispatchMs) continue;
      const sends = previous && previous.key === key ? previous.sends + 1 : 1;
      await bus.enqueue(PUBLISHING_QUEUE, {
        id: `publish.${row.id}.${key}.${sends}`,
        data: { orgId: row.org_id, groupId: row.group_id, postId: row.id } satisfies PublishJob,
      });
      this.dispatched.set(row.id, { key, at: now.getTime(), sends });
      sent += 1;
    }
    for (const id of this.dispatched.keys()) if (!seen.has(id)) this.dispatched.delete(id);
    return sent;
  }
}
