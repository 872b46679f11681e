// PostgreSQL access: one pg pool and one kysely instance per process, migrations, and type parsing.
// int8 stays a string unless a column says otherwise; callers convert on purpose (kysely "data types").
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, type Migration, type MigrationProvider } from 'kysely';

// timestamptz as ISO strings keeps the API and the events free of Date objects.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (v) => new Date(v).toISOString());
pg.types.setTypeParser(pg.types.builtins.TIMESTAMP, (v) => new Date(`${v}Z`).toISOString());

export interface Database<DB> {
  pool: pg.Pool;
  db: Kysely<DB>;
  url: string;
  close(): Promise<void>;
}

export function createDatabase<DB>(
  url: string,
  options: { max?: number; applicationName?: string; idleInTransactionTimeoutMs?: number } = {},
): Database<DB> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'social-publishing',
    idleTimeoutMillis: 30_000,
    // The event store reads below the cluster-wide transaction horizon: a transaction left open by a
    // stuck client would hold every subscriber back, so PostgreSQL ends such sessions.
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 60_000,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    pool,
    db,
    url,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/** Runs named migrations in name order; kysely's migrator takes a lock so several processes may start together. */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  migrations: Record<string, Migration>,
): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : JSON.stringify(error ?? 'unknown error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

/** True when a PostgreSQL server answers at url within the timeout. */
export async function isReachable(url: string, timeoutMs = 2000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
