// The payment provider webhooks this service received (one row per delivery: applied, duplicate, refused or
// failed) and the sandbox provider's own records (its signing secret, the calls made to it, its transactions).
// Not read models: a projection rebuild leaves them as they are, so a replayed webhook stays a duplicate.
import { randomBytes } from 'node:crypto';
import { sql, type Generated, type Kysely, type Migration } from 'kysely';

export const billingWebhookMigrations: Record<string, Migration> = {
  '0032_billing_webhooks': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table billing_webhooks (
          id bigserial primary key,
          provider text not null,
          -- The provider's event id (Paddle: evt_…); null when a refused body did not even name one.
          event_id text,
          event_type text,
          received_at timestamptz not null,
          signature_ok boolean not null,
          -- applied: its notices were applied; duplicate: a redelivery of an applied event, nothing applied;
          -- refused: bad or missing signature, or a body that does not read; failed: applying threw (retried
          -- by the provider's redelivery, which then applies it).
          outcome text not null check (outcome in ('applied', 'duplicate', 'refused', 'failed')),
          error text,
          notice_count integer not null default 0
        )`.execute(db);
      // One accepted row per event: the dedupe key. Duplicate and refused deliveries are rows of their own.
      await sql`
        create unique index billing_webhooks_event on billing_webhooks (provider, event_id)
        where outcome in ('applied', 'failed')`.execute(db);
      await sql`create index billing_webhooks_received on billing_webhooks (received_at)`.execute(db);
      // The sandbox provider's webhook signing secret: generated once, shared by every process of the service.
      await sql`
        create table billing_sandbox_secret (
          only_row boolean primary key default true check (only_row),
          secret text not null,
          created_at timestamptz not null default now()
        )`.execute(db);
      // What was asked of the sandbox provider (change plan, cancel, pause, resume, update payment method).
      await sql`
        create table billing_sandbox_requests (
          id bigserial primary key,
          operation text not null,
          org_id text not null,
          provider_subscription_id text,
          details jsonb not null,
          created_at timestamptz not null default now()
        )`.execute(db);
      // The sandbox's transactions, for its invoice pages.
      await sql`
        create table billing_sandbox_transactions (
          transaction_id text primary key,
          org_id text not null,
          type text not null,
          status text not null,
          amount bigint not null,
          currency text not null,
          description text not null,
          invoice_number text,
          created_at timestamptz not null,
          paid_at timestamptz
        )`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table billing_sandbox_transactions`.execute(db);
      await sql`drop table billing_sandbox_requests`.execute(db);
      await sql`drop table billing_sandbox_secret`.execute(db);
      await sql`drop table billing_webhooks`.execute(db);
    },
  },
};

/** Refused deliveries recorded per provider and minute at most (see WebhookStore.recordRefused). */
export const REFUSED_RECORDS_PER_MINUTE = 60;

export type WebhookOutcome = 'applied' | 'duplicate' | 'refused' | 'failed';

export interface BillingWebhooksTable {
  id: Generated<string>;
  provider: string;
  event_id: string | null;
  event_type: string | null;
  received_at: string;
  signature_ok: boolean;
  outcome: WebhookOutcome;
  error: string | null;
  notice_count: Generated<number>;
}

export interface BillingSandboxSecretTable {
  only_row: Generated<boolean>;
  secret: string;
  created_at: Generated<string>;
}

export interface BillingSandboxRequestsTable {
  id: Generated<string>;
  operation: string;
  org_id: string;
  provider_subscription_id: string | null;
  details: unknown;
  created_at: Generated<string>;
}

export interface BillingSandboxTransactionsTable {
  transaction_id: string;
  org_id: string;
  type: string;
  status: string;
  amount: string | number;
  currency: string;
  description: string;
  invoice_number: string | null;
  created_at: string;
  paid_at: string | null;
}

export interface BillingWebhookTables {
  billing_webhooks: BillingWebhooksTable;
  billing_sandbox_secret: BillingSandboxSecretTable;
  billing_sandbox_requests: BillingSandboxRequestsTable;
  billing_sandbox_transactions: BillingSandboxTransactionsTable;
}

export interface WebhookRecord {
  provider: string;
  eventId: string | null;
  eventType: string | null;
  receivedAt: Date;
  signatureOk: boolean;
  outcome: WebhookOutcome;
  error?: string | null;
  noticeCount?: number;
}

/** The received webhooks, for the receiving path (api/billing/webhook-routes.ts) and operators. */
export class WebhookStore {
  readonly db: Kysely<BillingWebhookTables>;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database that has run the migrations
  constructor(db: Kysely<any>) {
    this.db = db as Kysely<BillingWebhookTables>;
  }

  /** True when the event was applied already (a redelivery is then a duplicate). */
  async wasApplied(provider: string, eventId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('billing_webhooks')
      .select('id')
      .where('provider', '=', provider)
      .where('event_id', '=', eventId)
      .where('outcome', '=', 'applied')
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Records an applied or failed event under its dedupe key (a failed one becomes applied when its redelivery
   * applies it); returns false when another delivery recorded it applied first (this one is then a duplicate).
   */
  async recordAccepted(
    record: WebhookRecord & { eventId: string; outcome: 'applied' | 'failed' },
  ): Promise<boolean> {
    const result = await sql<{ id: string }>`
      insert into billing_webhooks
        (provider, event_id, event_type, received_at, signature_ok, outcome, error, notice_count)
      values (${record.provider}, ${record.eventId}, ${record.eventType}, ${record.receivedAt.toISOString()},
        true, ${record.outcome}, ${record.error ?? null}, ${record.noticeCount ?? 0})
      on conflict (provider, event_id) where outcome in ('applied', 'failed')
      do update set outcome = excluded.outcome, error = excluded.error, received_at = excluded.received_at,
        notice_count = excluded.notice_count
      where billing_webhooks.outcome = 'failed'
      returning id`.execute(this.db);
    return result.rows.length > 0;
  }

  /** Records a duplicate or refused delivery (each its own row). */
  async recordOther(record: WebhookRecord & { outcome: 'duplicate' | 'refused' }): Promise<void> {
    await this.db
      .insertInto('billing_webhooks')
      .values({
        provider: record.provider,
        event_id: record.eventId,
        event_type: record.eventType,
        received_at: record.receivedAt.toISOString(),
        signature_ok: record.signatureOk,
        outcome: record.outcome,
        error: record.error ?? null,
        notice_count: record.noticeCount ?? 0,
      })
      .execute();
  }

  /**
   * Records a refused delivery unless `perMinute` were recorded for this provider in the last minute: the route
   * takes requests without a token, so refusals cannot fill the table faster than that (the rest are logged).
   * Returns whether it was recorded.
   */
  async recordRefused(
    record: WebhookRecord & { outcome: 'refused' },
    perMinute = REFUSED_RECORDS_PER_MINUTE,
  ): Promise<boolean> {
    const since = new Date(record.receivedAt.getTime() - 60_000).toISOString();
    const recent = await this.db
      .selectFrom('billing_webhooks')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('provider', '=', record.provider)
      .where('outcome', '=', 'refused')
      .where('received_at', '>', since)
      .executeTakeFirstOrThrow();
    if (Number(recent.n) >= perMinute) return false;
    await this.recordOther(record);
    return true;
  }

  /** The deliveries of one event, oldest first (tests and operators). */
  async deliveriesOf(provider: string, eventId: string) {
    return this.db
      .selectFrom('billing_webhooks')
      .selectAll()
      .where('provider', '=', provider)
      .where('event_id', '=', eventId)
      .orderBy('id')
      .execute();
  }
}

/** The sandbox's signing secret: generated by the first process that needs it, then read by every other. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database that has run the migrations
export async function sandboxSigningSecret(db: Kysely<any>): Promise<string> {
  const typed = db as Kysely<BillingWebhookTables>;
  await typed
    .insertInto('billing_sandbox_secret')
    .values({ secret: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('only_row').doNothing())
    .execute();
  const row = await typed.selectFrom('billing_sandbox_secret').select('secret').executeTakeFirstOrThrow();
  return row.secret;
}
