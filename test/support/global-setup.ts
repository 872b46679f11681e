// Decides once per test run which PostgreSQL server and NATS server the integration and slow projects use
// (vitest.config.ts; the unit project has no global setup and reaches neither):
// DATABASE_URL / NATS_URL when set and reachable, otherwise an embedded PostgreSQL (and no NATS).
import type { TestProject } from 'vitest/node';
import net from 'node:net';
import pg from 'pg';
import { isReachable } from '../../infra/db/database.js';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../infra/db/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
    natsUrl: string;
  }
}

async function natsReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url.replace(/^nats:/, 'http:'));
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 4222) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Test databases (`t_<base36 ms>_<hex>`) left by runs that were killed; older than two hours is surely stale. */
async function dropStaleTestDatabases(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      `select datname from pg_database where datname ~ '^t_[0-9a-z]+_[0-9a-f]+$'`,
    );
    for (const { datname } of rows) {
      const createdAt = parseInt(datname.split('_')[1]!, 36);
      if (Date.now() - createdAt > 2 * 3600_000) {
        await client
          .query(`drop database if exists ${client.escapeIdentifier(datname)} with (force)`)
          .catch(() => undefined);
      }
    }
  } finally {
    await client.end();
  }
}

interface Servers {
  pgServerUrl: string;
  natsUrl: string;
  /** The embedded PostgreSQL started for the run, if any. */
  embedded?: EmbeddedPostgresHandle;
}

/**
 * The integration and slow projects (vitest.config.ts) both name this setup, and vitest runs it once per project,
 * in its one main process: the servers are decided (and an embedded PostgreSQL started) once, shared through the
 * process's global object, and stopped after the last project's teardown.
 */
const shared = globalThis as typeof globalThis & {
  __testServers?: { servers: Promise<Servers>; users: number };
};

async function decideServers(): Promise<Servers> {
  let url = process.env.DATABASE_URL;
  if (url && !(await isReachable(url))) {
    if (process.env.CI) throw new Error(`DATABASE_URL is set but not reachable: ${url}`);
    console.warn(`DATABASE_URL ${url} is not reachable; starting an embedded PostgreSQL for the tests`);
    url = undefined;
  }
  let embedded: EmbeddedPostgresHandle | undefined;
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: '.data/test-postgres', database: 'test' });
    url = embedded.url;
  }
  await dropStaleTestDatabases(url);

  let natsUrl = process.env.NATS_URL ?? '';
  if (natsUrl && !(await natsReachable(natsUrl))) {
    if (process.env.CI) throw new Error(`NATS_URL is set but not reachable: ${natsUrl}`);
    natsUrl = '';
  }
  return { pgServerUrl: url, natsUrl, ...(embedded ? { embedded } : {}) };
}

export async function setup(project: TestProject) {
  const state = (shared.__testServers ??= { servers: decideServers(), users: 0 });
  state.users += 1;
  const { pgServerUrl, natsUrl } = await state.servers;
  project.provide('pgServerUrl', pgServerUrl);
  project.provide('natsUrl', natsUrl);
}

export async function teardown() {
  const state = shared.__testServers;
  if (!state || --state.users > 0) return;
  shared.__testServers = undefined;
  await (await state.servers).embedded?.stop();
}
