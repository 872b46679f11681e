// Runs the shared event store contract against KurrentDB (EventStoreDB's successor) through the adapter:
// EVENTSTOREDB_URL when set (kurrentdb://host:2113?tls=false, or esdb://), else a throwaway insecure single node
// through testcontainers when a Docker engine answers, else the suite is skipped and says why.
import { afterAll, beforeAll, describe } from 'vitest';
import { EventStoreDbEventStore } from '../../infra/event-store/eventstoredb/eventstoredb-event-store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { eventStoreContract } from './contract.js';

// The image docker-compose.yml runs.
const IMAGE = 'kurrentplatform/kurrentdb:26.1.2';

async function dockerReachable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

const configuredUrl = process.env.EVENTSTOREDB_URL;
const useDocker = !configuredUrl && (await dockerReachable());
const reason = configuredUrl
  ? `EVENTSTOREDB_URL`
  : useDocker
    ? `testcontainers ${IMAGE}`
    : 'skipped: EVENTSTOREDB_URL is not set and no Docker engine is reachable';

describe.skipIf(!configuredUrl && !useDocker)(`KurrentDB (${reason})`, () => {
  let stopContainer: (() => Promise<unknown>) | null = null;
  let connectionString = configuredUrl ?? '';
  let database: TestDatabase<unknown>;

  beforeAll(async () => {
    if (!configuredUrl) {
      const { GenericContainer, Wait } = await import('testcontainers');
      const container = await new GenericContainer(IMAGE)
        .withEnvironment({
          KURRENTDB_INSECURE: 'true',
          KURRENTDB_RUN_PROJECTIONS: 'None',
          KURRENTDB_MEM_DB: 'true',
          KURRENTDB_CLUSTER_SIZE: '1',
        })
        .withExposedPorts(2113)
        .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
        .start();
      stopContainer = () => container.stop();
      connectionString = `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
    }
    // Side writes go to PostgreSQL even in the distributed mode; the contract does not use them, the adapter needs one.
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
    await stopContainer?.();
  });

  eventStoreContract('eventstoredb', {
    open: async () => new EventStoreDbEventStore({ connectionString, db: database.db }),
    duplicateIds: 'idempotent-retry',
  });
});
