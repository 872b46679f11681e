// What the credit ledger keeps outside its streams: which period stream is a workspace's newest (its head, so a
// new period knows what to close and carry over), and the lock that serialises one workspace's ledger writes
// across every instance sharing the database (a PostgreSQL session advisory lock on a connection of its own).
import { sql, type Kysely, type Migration } from 'kysely';

export const creditLedgerMigrations: Record<string, Migration> = {
  '0033_credit_ledger_heads': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table if not exists credit_ledger_heads (
          org_id uuid primary key,
          period_key text not null,
          period_start timestamptz not null,
          updated_at timestamptz not null default now()
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table credit_ledger_heads`.execute(db);
    },
  },
};

export interface LedgerHead {
  periodKey: string;
  periodStart: string;
}

// Advisory lock namespace of credit ledgers (first int4 of the two-key form); the second is hashtext(orgId).
const lockNamespace = 14_003;

export class CreditLedgerStore {
  private readonly localLocks = new Map<string, Promise<void>>();
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    private readonly db: Kysely<any>,
    /** Lock connections held at once (each is one workspace's); the rest of the pool stays free for the work. */
    private readonly maxHeld: number = 3,
  ) {}

  async head(orgId: string): Promise<LedgerHead | null> {
    const { rows } = await sql<{ period_key: string; period_start: Date | string }>`
      select period_key, period_start from credit_ledger_heads where org_id = ${orgId}`.execute(this.db);
    const row = rows[0];
    if (!row) return null;
    return { periodKey: row.period_key, periodStart: new Date(row.period_start).toISOString() };
  }

  /** Moves the head forward only (a late writer never takes it back to an older period). */
  async setHead(orgId: string, head: LedgerHead): Promise<void> {
    await sql`
      insert into credit_ledger_heads (org_id, period_key, period_start) values (${orgId}, ${head.periodKey}, ${head.periodStart})
      on conflict (org_id) do update set period_key = excluded.period_key, period_start = excluded.period_start,
        updated_at = now()
      where credit_ledger_heads.period_start < excluded.period_start`.execute(this.db);
  }

  /**
   * Runs `work` holding the workspace's ledger lock. In this process the writers of one workspace queue behind
   * each other (one lock connection per workspace); across processes the advisory lock orders them. Not a
   * transaction-scoped lock: the work appends through the event store in transactions of its own.
   */
  async withLock<T>(orgId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.localLocks.get(orgId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const chained = previous.then(() => mine);
    this.localLocks.set(orgId, chained);
    try {
      await previous;
      await this.acquireSlot();
      try {
        return await this.db.connection().execute(async (conn) => {
          const key = sql`${lockNamespace}::int4, hashtext(${orgId})`;
          await sql`select pg_advisory_lock(${key})`.execute(conn);
          try {
            return await work();
          } finally {
            await sql`select pg_advisory_unlock(${key})`.execute(conn);
          }
        });
      } finally {
        this.releaseSlot();
      }
    } finally {
      release();
      if (this.localLocks.get(orgId) === chained) this.localLocks.delete(orgId);
    }
  }

  private async acquireSlot(): Promise<void> {
    if (this.held < this.maxHeld) {
      this.held++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held--;
  }
}
