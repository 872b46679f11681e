// The daily X account reader: finds workspaces whose X account analytics is on and whose newest reading's next
// local day has begun, claims each under a lease (x_account_read_leases: one instance reads a workspace at a time;
// a crashed instance's lease runs out and another takes over), and takes the day's reading
// (commands/analytics/x-account-analytics.ts). Two instances that both get through still record and charge the day
// once: the reading's stream and its credit key are the workspace's account and date. A failed reading is tried
// again later with a growing pause; an account gone from the workspace switches the daily read off.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  takeXAccountReading,
  xAccountAnalyticsStream,
  type XAccountReadingDeps,
} from '../../commands/analytics/x-account-analytics.js';
import { handleCommand, type CommandMetadata } from '../../commands/shared/command-handler.js';
import { xAccountAnalyticsDecider } from '../../domain/analytics/x-account.js';
import { todayIn } from '../../domain/scheduling/time.js';
import { Rounds } from '../../infra/async/rounds.js';
import type { Logger } from '../../infra/logging/logger.js';

export interface XAccountReaderOptions {
  // The lease table and the read model's public views are read with plain SQL.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  deps: XAccountReadingDeps;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** This process's lease owner name. */
  owner: string;
  now?: () => Date;
  /** Between rounds; default 10 minutes. */
  intervalMs?: number;
  /** How long a claimed workspace stays with this instance; default 10 minutes (above a long timeline read). */
  leaseMs?: number;
  /** Workspaces read per round at most; default 50. */
  batchSize?: number;
}

export interface XAccountReadRound {
  read: number;
  /** Due, but another instance holds it, or its reading was recorded already. */
  skipped: number;
  failed: number;
  /** Switched off: the account is gone from the workspace. */
  stopped: number;
}

export class XAccountReader {
  private readonly now: () => Date;
  private readonly intervalMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private rounds: Rounds | undefined;

  constructor(private readonly options: XAccountReaderOptions) {
    this.now = options.now ?? (() => new Date());
    this.intervalMs = options.intervalMs ?? 10 * 60_000;
    this.leaseMs = options.leaseMs ?? 10 * 60_000;
    this.batchSize = options.batchSize ?? 50;
  }

  start(): Promise<void> {
    this.rounds ??= new Rounds(
      () => this.runOnce(),
      this.intervalMs,
      (error) => this.options.logger.error({ err: error }, 'X account read round failed'),
    );
    this.rounds.start();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    await this.rounds?.stop();
  }

  /** Reads every workspace due at `now` that no other instance holds. */
  async runOnce(now: Date = this.now()): Promise<XAccountReadRound> {
    const round: XAccountReadRound = { read: 0, skipped: 0, failed: 0, stopped: 0 };
    for (const due of await this.due(now)) {
      if (this.rounds?.stopping) break;
      if (!(await this.claim(due.orgId, now))) {
        round.skipped++;
        continue;
      }
      const outcome = await this.readOne(due.orgId, due.socialAccountId, now);
      round[outcome]++;
    }
    return round;
  }

  /** Enabled workspaces whose next reading is due, not held by a live lease nor waiting to try again. */
  private async due(now: Date): Promise<Array<{ orgId: string; socialAccountId: string }>> {
    const at = now.toISOString();
    const { rows } = await sql<{ org_id: string; social_account_id: string }>`
      select s.org_id, s.social_account_id
      from x_account_settings s
      left join lateral (
        select r.next_read_at from x_account_readings r
        where r.org_id = s.org_id and r.social_account_id = s.social_account_id
        order by r.date desc limit 1
      ) newest on true
      left join x_account_read_leases l on l.org_id = s.org_id
      where s.enabled
        and (newest.next_read_at is null or newest.next_read_at <= ${at})
        and (l.retry_at is null or l.retry_at <= ${at})
        and (l.lease_until is null or l.lease_until < ${at})
      order by newest.next_read_at nulls first
      limit ${this.batchSize}`.execute(this.options.db);
    return rows.map((r) => ({ orgId: r.org_id, socialAccountId: r.social_account_id }));
  }

  /** Takes the workspace unless a live lease holds it (another instance reading it now). */
  private async claim(orgId: string, now: Date): Promise<boolean> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const { rows } = await sql<{ org_id: string }>`
      insert into x_account_read_leases (org_id, lease_owner, lease_until)
      values (${orgId}, ${this.options.owner}, ${until})
      on conflict (org_id) do update
        set lease_owner = excluded.lease_owner, lease_until = excluded.lease_until, updated_at = now()
        where x_account_read_leases.lease_until is null or x_account_read_leases.lease_until < ${at}
      returning org_id`.execute(this.options.db);
    return rows.length > 0;
  }

  /** Lets the workspace go; after a failure it waits 15 minutes before the next try, doubling up to 6 hours. */
  private async release(orgId: string, failure: { message: string } | null, now: Date): Promise<void> {
    if (failure === null) {
      await sql`
        update x_account_read_leases
        set lease_until = null, attempts = 0, retry_at = null, last_error = null, updated_at = now()
        where org_id = ${orgId} and lease_owner = ${this.options.owner}`.execute(this.options.db);
      return;
    }
    await sql`
      update x_account_read_leases
      set lease_until = null, attempts = attempts + 1, last_error = ${failure.message.slice(0, 500)},
          retry_at = ${now.toISOString()}::timestamptz
            + make_interval(secs => least(21600, 900 * power(2, attempts))),
          updated_at = now()
      where org_id = ${orgId} and lease_owner = ${this.options.owner}`.execute(this.options.db);
  }

  private metadata(orgId: string, now: Date): CommandMetadata {
    return { orgId, actor: 'system', correlationId: randomUUID(), causationId: null, now: now.toISOString() };
  }

  private async readOne(
    orgId: string,
    socialAccountId: string,
    now: Date,
  ): Promise<'read' | 'skipped' | 'failed' | 'stopped'> {
    const { deps, logger } = this.options;
    try {
      const resolved = await deps.accounts.resolve({ orgId, platform: 'x', socialAccountId });
      if (!resolved.ok && resolved.reason === 'not_found') {
        // The account was removed from the workspace: the daily read has nothing left to read.
        await handleCommand(deps.commands, {
          stream: xAccountAnalyticsStream(orgId),
          decider: xAccountAnalyticsDecider,
          command: {
            type: 'DisableXAccountAnalytics',
            orgId,
            reason: 'account_gone',
            socialAccountId,
            by: 'system',
            now: now.toISOString(),
          },
          metadata: this.metadata(orgId, now),
        });
        await this.release(orgId, null, now);
        return 'stopped';
      }
      if (!resolved.ok) throw new Error(resolved.message);
      const timezone = await deps.timezoneOf(orgId);
      const taken = await takeXAccountReading(deps, {
        orgId,
        account: resolved.account,
        date: todayIn(now.toISOString(), timezone),
        timezone,
        initial: false,
        metadata: this.metadata(orgId, now),
      });
      await this.release(orgId, null, now);
      return taken.recorded ? 'read' : 'skipped';
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ orgId, socialAccountId, err: message }, 'X account reading failed; trying again later');
      await this.release(orgId, { message }, now).catch(() => undefined);
      return 'failed';
    }
  }
}
