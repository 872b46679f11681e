// A whole service (runtime + app) on a fresh test database, with helpers to mint users and tokens.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadEnv } from '../../api/env.js';
import { createLogger } from '../../infra/logging/logger.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../api/runtime.js';
import { ensureUser } from '../../commands/users/user-commands.js';
import { listGenerations } from '../../projections/engine/catalog.js';
import { addMember } from '../../commands/workspaces/workspace-commands.js';
import type { Role } from '../../domain/workspaces/roles.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

export interface TestService {
  runtime: Runtime;
  /** Whether projections, process managers and workers run (`startTestService({ background: false })` turns them off). */
  background: boolean;
  database: TestDatabase<unknown>;
  dataDir: string;
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  /**
   * A registered user and a token for them; with a scope, they are made a member of that workspace with that
   * role (the role is checked against the membership on every request) and the token is scoped to it.
   */
  userToken(
    email?: string,
    scope?: { orgId: string; role: Role },
  ): Promise<{ userId: string; token: string; email: string }>;
  stop(): Promise<void>;
}

export type TestServiceOptions = {
  env?: Record<string, string>;
  background?: boolean;
  projections?: RuntimeOptions['projections'];
  /** Replaces the service's slices (api/slices.ts), e.g. to add one. */
  slices?: RuntimeOptions['slices'];
  /** Publishing seams; `{ sweep: false, work: false }` keeps post-now requests in `publishing`. */
  publishing?: RuntimeOptions['publishing'];
  /** The fetch policy of user-supplied URLs (RuntimeOptions.outbound). */
  outbound?: RuntimeOptions['outbound'];
  /** One short deadline for fetches of user-supplied URLs (RuntimeOptions.fetchTimeoutMs). */
  fetchTimeoutMs?: number;
  database?: TestDatabase<unknown>;
  dataDir?: string;
};

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const database = options.database ?? (await createTestDatabase());
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'sp-test-')));
  const env = loadEnv({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PUBLIC_BASE_URL: 'http://localhost:3000',
    ...options.env,
  });
  const runtime = await createRuntime({
    env,
    logger: testLogger(env.LOG_LEVEL),
    mode: 'server',
    ...(options.projections ? { projections: options.projections } : {}),
    ...(options.slices ? { slices: options.slices } : {}),
    ...(options.publishing ? { publishing: options.publishing } : {}),
    ...(options.outbound ? { outbound: options.outbound } : {}),
    ...(options.fetchTimeoutMs ? { fetchTimeoutMs: options.fetchTimeoutMs } : {}),
  });
  if (options.background !== false) {
    await runtime.startBackground();
    if (options.projections?.length !== 0) await projectionsFollowing(runtime);
  }
  return {
    runtime,
    background: options.background !== false,
    database,
    dataDir,
    async request(method, url, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      let body: string | undefined;
      if (o.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      }
      return runtime.app.request(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    },
    async userToken(email = `user-${randomUUID().slice(0, 8)}@example.org`, scope) {
      const metadata = {
        orgId: null,
        actor: 'system',
        correlationId: randomUUID(),
        now: new Date().toISOString(),
      };
      const { user } = await ensureUser(runtime.commands, { email }, metadata);
      if (scope)
        await addMember(runtime.commands, scope.orgId, { userId: user.userId, role: scope.role }, metadata);
      const { token } = await runtime.auth.issueAccessToken({
        userId: user.userId,
        email: user.email,
        orgId: scope?.orgId ?? null,
        role: scope?.role ?? null,
      });
      return { userId: user.userId, token, email: user.email };
    },
    async stop() {
      await runtime.stop();
      if (!options.database) await database.drop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The service's logger in tests: TEST_LOG_LEVEL when set; otherwise silent but for the warning a write that
 * waited past the read-your-writes timeout logs, which goes to stderr with the test's output (it says which
 * projection was behind, who held its lease and what held back the event log's horizon).
 */
function testLogger(level: string) {
  if (process.env.TEST_LOG_LEVEL) return createLogger({ level });
  return createLogger({
    level: 'warn',
    destination: {
      write(line: string) {
        if (line.includes('read models lagging')) process.stderr.write(line);
      },
    },
  });
}

/** Total events in the store: a bad request must not change it. */
export async function eventCount(service: TestService): Promise<number> {
  const page = await service.runtime.database.pool.query<{ n: string }>(
    'select count(*) as n from es_events',
  );
  return Number(page.rows[0]!.n);
}

/**
 * Another instance of `service`'s deployment: the same database and data directory (so the same keys), no
 * background work unless asked; for what one instance must see of another's, or a second instance with other seams.
 */
export function startAnotherInstance(
  service: TestService,
  options: Omit<TestServiceOptions, 'database' | 'dataDir'> = {},
): Promise<TestService> {
  return startTestService({
    background: false,
    ...options,
    database: service.database,
    dataDir: service.dataDir,
  });
}

/**
 * Waits until every projection of a started service serves a generation under a lease (built and followed), so a
 * test's first write does not race the runners' start: on a loaded machine building the catalog's ~40 generations
 * of a fresh database can take longer than the 5 s read-your-writes timeout.
 */
async function projectionsFollowing(runtime: Runtime): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const generations = (await listGenerations(runtime.database.db)).filter((g) => g.status !== 'retired');
    const ready =
      generations.length > 0 && generations.every((g) => g.status === 'serving' && g.leaseOwner !== null);
    if (ready || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
