// A fresh PostgreSQL database per test file, migrated, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { Migration } from 'kysely';
import { createDatabase, migrateToLatest, type Database } from '../../infra/db/database.js';

export interface TestDatabase<DB> extends Database<DB> {
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function createTestDatabase<DB = unknown>(
  migrations: Record<string, Migration> = {},
  options: { max?: number } = {},
): Promise<TestDatabase<DB>> {
  const serverUrl = inject('pgServerUrl');
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  // A test that leaks an open transaction must not stall every other file's subscriptions for long.
  await admin.query(`alter database ${name} set idle_in_transaction_session_timeout = '20s'`);
  await admin.end();
  const url = withDatabase(serverUrl, name);
  const database = createDatabase<DB>(url, { max: options.max ?? 20, applicationName: 'test' });
  await migrateToLatest(database.db, migrations);
  return {
    ...database,
    async drop() {
      await database.close();
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
