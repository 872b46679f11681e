// The reply inbox's auto refresh (engagement settings `autoRefresh`): every instance looks, each round, for
// workspaces with auto refresh on whose last automatic refresh is older than the interval (30 minutes by default),
// claims each under a lease in inbox_refresh_state (one instance refreshes a workspace at a time; a crashed one's
// lease runs out and another takes over), and refreshes it as a request would (commands/engagement/inbox-refresh.ts:
// the same sources, cursors, credits and de-duplication; posts nothing). A workspace whose subscription does not
// allow paid work now (read-only, trial over) is passed over until it does. A failed refresh is tried again later
// with a growing pause. Two instances that both get through record each post once (one stream per post) and the
// credit key is the workspace's interval slot, so X reads are charged once per slot.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import {
  runInboxRefresh,
  type RefreshDeps,
  type RefreshResult,
} from '../../commands/engagement/inbox-refresh.js';
import { Rounds } from '../../infra/async/rounds.js';
import type { Logger } from '../../infra/logging/logger.js';

export interface InboxAutoRefreshOptions {
  deps: RefreshDeps;
  // The lease table and the read model's public view are read with plain SQL.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  /** Whether the workspace's subscription allows paid work now (false: passed over this round). */
  mayPay: (orgId: string) => Promise<boolean>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** This process's lease owner name. */
  owner: string;
  /** How often a workspace is refreshed; default 30 minutes. */
  refreshEveryMs?: number;
  /** Between rounds; default 1 minute. */
  intervalMs?: number;
  /** How long a claimed workspace stays with this instance; default 5 minutes. */
  leaseMs?: number;
  /** Workspaces refreshed per round at most; default 20. */
  batchSize?: number;
  now?: () => Date;
}

export interface AutoRefreshRound {
  refreshed: Array<{ orgId: string; added: number; warnings: number }>;
  /** Due, but another instance holds it, or its subscription does not allow paid work now. */
  skipped: string[];
  failed: string[];
}

export class InboxAutoRefresher {
  private readonly now: () => Date;
  private readonly refreshEveryMs: number;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private rounds: Rounds | undefined;

  constructor(private readonly options: InboxAutoRefreshOptions) {
    this.now = options.now ?? (() => new Date());
    this.refreshEveryMs = options.refreshEveryMs ?? 30 * 60_000;
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.batchSize = options.batchSize ?? 20;
  }

  start(): void {
    this.rounds ??= new Rounds(
      () => this.runOnce(),
      this.options.intervalMs ?? 60_000,
      (error) => this.options.logger.error({ err: error }, 'Reply inbox auto refresh round failed'),
    );
    this.rounds.start();
  }

  async stop(): Promise<void> {
    await this.rounds?.stop();
  }

  /** Refreshes every workspace due at `now` that no other instance holds. */
  async runOnce(now: Date = this.now()): Promise<AutoRefreshRound> {
    const round: AutoRefreshRound = { refreshed: [], skipped: [], failed: [] };
    for (const orgId of await this.due(now)) {
      if (this.rounds?.stopping) break;
      if (!(await this.options.mayPay(orgId)) || !(await this.claim(orgId, now))) {
        round.skipped.push(orgId);
        continue;
      }
      try {
        const result = await this.refresh(orgId, now);
        await this.release(orgId, null, now);
        round.refreshed.push({ orgId, added: result.added, warnings: result.warnings.length });
        this.options.logger.info(
          { orgId, added: result.added, warnings: result.warnings },
          'Reply inbox: auto refresh done',
        );
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.options.logger.warn(
          { orgId, err: message },
          'Reply inbox: auto refresh failed; trying again later',
        );
        await this.release(orgId, message, now).catch(() => undefined);
        round.failed.push(orgId);
      }
    }
    return round;
  }

  /** Workspaces with auto refresh on, not refreshed automatically within the interval, nor held or waiting. */
  private async due(now: Date): Promise<string[]> {
    const at = now.toISOString();
    const since = new Date(now.getTime() - this.refreshEveryMs).toISOString();
    const { rows } = await sql<{ org_id: string }>`
      select a.org_id
      from engagement_auto_refresh a
      left join inbox_refresh_state r on r.org_id = a.org_id
      where a.auto_refresh
        and (r.last_auto_refresh_at is null or r.last_auto_refresh_at <= ${since})
        and (r.retry_at is null or r.retry_at <= ${at})
        and (r.lease_until is null or r.lease_until < ${at})
      order by r.last_auto_refresh_at nulls first
      limit ${this.batchSize}`.execute(this.options.db);
    return rows.map((r) => r.org_id);
  }

  /** Takes the workspace unless a live lease holds it (another instance refreshing it now). */
  private async claim(orgId: string, now: Date): Promise<boolean> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const { rows } = await sql<{ org_id: string }>`
      insert into inbox_refresh_state (org_id, lease_owner, lease_until)
      values (${orgId}, ${this.options.owner}, ${until})
      on conflict (org_id) do update
        set lease_owner = excluded.lease_owner, lease_until = excluded.lease_until, updated_at = now()
        where inbox_refresh_state.lease_until is null or inbox_refresh_state.lease_until < ${at}
      returning org_id`.execute(this.options.db);
    return rows.length > 0;
  }

  /** Lets the workspace go: refreshed now, or after a failure a pause of 5 minutes doubling up to 2 hours. */
  private async release(orgId: string, failure: string | null, now: Date): Promise<void> {
    if (failure === null) {
      await sql`
        update inbox_refresh_state
        set lease_until = null, attempts = 0, retry_at = null, last_error = null,
            last_auto_refresh_at = ${now.toISOString()}, updated_at = now()
        where org_id = ${orgId} and lease_owner = ${this.options.owner}`.execute(this.options.db);
      return;
    }
    await sql`
      update inbox_refresh_state
      set lease_until = null, attempts = attempts + 1, last_error = ${failure.slice(0, 500)},
          retry_at = ${now.toISOString()}::timestamptz
            + make_interval(secs => least(7200, 300 * power(2, attempts))),
          updated_at = now()
      where org_id = ${orgId} and lease_owner = ${this.options.owner}`.execute(this.options.db);
  }

  private refresh(orgId: string, now: Date): Promise<RefreshResult> {
    // One charge per workspace and interval slot, however many instances get through.
    const slot = Math.floor(now.getTime() / this.refreshEveryMs);
    const correlationId = randomUUID();
    return runInboxRefresh(this.options.deps, {
      orgId,
      feedId: null,
      metadata: { orgId, actor: 'system', correlationId, causationId: null, now: now.toISOString() },
      creditKey: `inbox-auto-refresh:${orgId}:${slot}`,
      creditContext: { actor: 'system', correlationId },
      now: now.toISOString(),
    });
  }
}
