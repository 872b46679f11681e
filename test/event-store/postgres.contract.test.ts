// Runs the shared event store contract against the PostgreSQL adapter, on a fresh database for this file.
// Every test gets its own store instance over the same database; the contract scopes its reads by stream prefix.
import { afterAll, beforeAll } from 'vitest';
import { eventStoreMigrations } from '../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { eventStoreContract } from './contract.js';

let database: TestDatabase<unknown>;

beforeAll(async () => {
  database = await createTestDatabase(eventStoreMigrations);
});
afterAll(async () => {
  await database.drop();
});

eventStoreContract('postgres', {
  open: async () => new PostgresEventStore({ db: database.db, url: database.url }),
  duplicateIds: 'rejected',
});
