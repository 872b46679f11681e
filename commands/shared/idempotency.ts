// Idempotency-Key support: the first response to a key is stored in the same transaction as the append,
// so a retry with the same key and body gets that response and a retry with another body is refused.
import { createHash } from 'node:crypto';
import { sql, type Kysely, type Migration, type QueryExecutorProvider } from 'kysely';
import { canonicalJson } from '../../domain/shared/canonical-json.js';
import { Unprocessable, ValidationError } from '../../domain/shared/errors.js';

export const idempotencyMigrations: Record<string, Migration> = {
  '0005_idempotency': {
    async up(db: Kysely<unknown>) {
      await sql`
        create table idempotency_keys (
          scope text not null,
          key text not null,
          request_hash text not null,
          status integer not null,
          -- text, not jsonb: a replay returns the first response byte for byte (jsonb reorders keys).
          body text not null,
          created_at timestamptz not null default now(),
          primary key (scope, key)
        )`.execute(db);
      await sql`create index idempotency_keys_created_at on idempotency_keys (created_at)`.execute(db);
    },
  },
};

export interface IdempotencyRequest {
  /** Keys are per caller: one user's key never replays another's response. */
  scope: string;
  key: string;
  requestHash: string;
}

export interface StoredResponse {
  status: number;
  body: unknown;
}

const keyPattern = /^[\x21-\x7e]{1,255}$/;

export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!keyPattern.test(header)) {
    throw new ValidationError('Invalid Idempotency-Key header', undefined, [
      { path: 'header.Idempotency-Key', message: '1 to 255 visible ASCII characters' },
    ]);
  }
  return header;
}

export function hashRequest(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

export class IdempotencyStore {
  constructor(private readonly db: QueryExecutorProvider) {}

  /** The stored response for this key, or null; refuses a key reused with another request. */
  async replay(request: IdempotencyRequest): Promise<StoredResponse | null> {
    const row = await sql<{ request_hash: string; status: number; body: string }>`
      select request_hash, status, body from idempotency_keys
      where scope = ${request.scope} and key = ${request.key}`.execute(this.db);
    const found = row.rows[0];
    if (!found) return null;
    if (found.request_hash !== request.requestHash) {
      throw new Unprocessable(
        'This Idempotency-Key was already used for a different request',
        'idempotency_key_reused',
      );
    }
    return { status: found.status, body: JSON.parse(found.body) as unknown };
  }

  /** Stores the response inside the caller's transaction; a concurrent twin fails on the primary key. */
  async record(
    trx: QueryExecutorProvider,
    request: IdempotencyRequest,
    response: StoredResponse,
  ): Promise<void> {
    await sql`
      insert into idempotency_keys (scope, key, request_hash, status, body)
      values (${request.scope}, ${request.key}, ${request.requestHash}, ${response.status}, ${JSON.stringify(response.body)})`.execute(
      trx,
    );
  }

  /** For commands that appended nothing: nothing else to commit with. */
  async recordStandalone(request: IdempotencyRequest, response: StoredResponse): Promise<void> {
    await sql`
      insert into idempotency_keys (scope, key, request_hash, status, body)
      values (${request.scope}, ${request.key}, ${request.requestHash}, ${response.status}, ${JSON.stringify(response.body)})
      on conflict (scope, key) do nothing`.execute(this.db);
  }

  /**
   * Replaces the stored answer with the one the caller finally got, for writes that answer after a wait that
   * follows the append (post-now answers the attempt's outcome): a replay then answers what the caller saw.
   */
  async amend(request: IdempotencyRequest, response: StoredResponse): Promise<void> {
    await sql`
      update idempotency_keys set status = ${response.status}, body = ${JSON.stringify(response.body)}
      where scope = ${request.scope} and key = ${request.key} and request_hash = ${request.requestHash}`.execute(
      this.db,
    );
  }

  /** Keys older than the retention are forgotten (run by the maintenance sweep). */
  async purgeOlderThan(hours: number): Promise<number> {
    const result =
      await sql`delete from idempotency_keys where created_at < now() - make_interval(hours => ${hours})`.execute(
        this.db,
      );
    return Number(result.numAffectedRows ?? 0);
  }
}
