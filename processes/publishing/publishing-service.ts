// The publishing clock and its workers: the lease holder sweeps the posts read model for due work and enqueues
// jobs on the bus (in-process, or NATS JetStream shared by any number of workers); every instance runs jobs.
import { sql, type Kysely } from 'kysely';
import type { Bus, Consumer } from '../../infra/bus/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import { PerKeyQueue } from '../../infra/async/per-key-queue.js';
import { sleep } from '../../infra/async/sleep.js';
import { mayPublishSql } from '../../projections/billing/subscriptions-projection.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { JobResult, PublishJob, Publisher } from './publisher.js';

export const PUBLISHING_QUEUE = 'publishing';

export interface PublishingServiceOptions {
  db: Kysely<ReadModels>;
  bus: Bus;
  publisher: Publisher;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  /** Lease owner, unique per process. */
  owner: string;
  sweepIntervalMs: number;
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
    const { logger, sweepIntervalMs } = this.options;
    const signal = this.abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (await this.lease()) await this.sweepOnce();
        failures = 0;
        await sleep(sweepIntervalMs, signal);
      } catch (error) {
        failures += 1;
        logger.error({ err: error, attempt: failures }, 'publishing sweep failed; retrying');
        await sleep(Math.min(10_000, sweepIntervalMs * 2 ** Math.min(failures, 6)), signal);
      }
    }
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
  async sweepOnce(): Promise<number> {
    const { db, bus, staleAttemptMs } = this.options;
    const now = this.options.now?.() ?? new Date();
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
