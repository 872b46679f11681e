// Helpers the benchmarks share: the result table, env-configurable sizes, a fresh database per benchmark, the
// service listening on a port (createRuntime + @hono/node-server) and autocannon as a promise.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import autocannon from 'autocannon';
import type pg from 'pg';
import { serve } from '@hono/node-server';
import { loadEnv } from '../../infra/config/env.js';
import { createLogger } from '../../infra/logging/logger.js';
import { freePort } from '../../infra/db/embedded-postgres.js';
import { createRuntime, type Runtime } from '../../api/runtime.js';
import { ensureUser } from '../../commands/users/user-commands.js';

export const rows: Array<[string, string, string]> = [];

export const record = (name: string, value: string, note = '') => {
  rows.push([name, value, note]);
  console.error(`  ${name}: ${value} ${note}`);
};

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** A positive integer from the environment (benchmark sizes), or the default. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** What every benchmark gets from the runner: the PostgreSQL server to make fresh databases on. */
export interface BenchContext {
  serverUrl: string;
  admin: pg.Client;
}

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new database on the server, named after the benchmark; drop() removes it (also with open connections). */
export async function freshDatabase(ctx: BenchContext, label: string): Promise<FreshDatabase> {
  const name = `bench_${label.replace(/[^a-z0-9]/gi, '_')}_${Date.now().toString(36)}`.toLowerCase();
  await ctx.admin.query(`create database ${name}`);
  const u = new URL(ctx.serverUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      // BENCH_KEEP_DATABASE=1 leaves it for manual EXPLAINs (drop it yourself afterwards).
      if (process.env.BENCH_KEEP_DATABASE === '1') console.error(`  kept database ${u.toString()}`);
      else await ctx.admin.query(`drop database if exists ${name} with (force)`);
    },
  };
}

export interface BenchService {
  runtime: Runtime;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Starts projections, processes and the outbox (read-your-writes needs them). */
  startBackground(): Promise<void>;
  stop(): Promise<void>;
}

/** The whole service on `url`, listening on a free port as `npm start` would (background not started yet). */
export async function startService(url: string, env: Record<string, string> = {}): Promise<BenchService> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-'));
  const config = loadEnv({
    DATABASE_URL: url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    DATABASE_POOL_MAX: '40',
    ...env,
  });
  const logger = createLogger({ level: 'silent' });
  const runtime = await createRuntime({ env: config, logger, mode: 'server' });
  const port = await freePort();
  const http = serve({ fetch: runtime.app.fetch, port, hostname: '127.0.0.1' }) as Server;
  await new Promise((r) => http.once('listening', r));
  return {
    runtime,
    origin: `http://127.0.0.1:${port}`,
    startBackground: () => runtime.startBackground(),
    async stop() {
      await new Promise((r) => http.close(r));
      await runtime.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const runAutocannon = (opts: autocannon.Options) =>
  new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(opts, (err: Error | null, result) => (err ? reject(err) : resolve(result))),
  );

/** Requests per second over the whole run (exact for runs of a fixed number of requests). */
export const ratePerSecond = (result: autocannon.Result) => result.requests.total / result.duration;

/** `200×1998 503×2` from a status tally. */
export const describeStatuses = (statuses: ReadonlyMap<number, number>) =>
  [...statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');

export const commandMetadata = (actor: string) => ({
  orgId: null,
  actor,
  correlationId: 'bench',
  now: new Date().toISOString(),
});

export function printTable(title: string): void {
  const widths = [0, 1, 2].map((i) =>
    Math.max(...rows.map((r) => r[i]!.length), ['benchmark', 'result', 'detail'][i]!.length),
  );
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(['benchmark', 'result', 'detail']));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

export interface BenchWorkspace {
  orgId: string;
  /** The owner the token is for. */
  userId: string;
  token: string;
  base: string;
}

/** Workspaces made through the API, each with an owner token scoped to it (owners may draft and approve). */
export async function createWorkspaces(
  service: BenchService,
  count: number,
  slugPrefix: string,
): Promise<BenchWorkspace[]> {
  const { runtime } = service;
  const { user } = await ensureUser(
    runtime.commands,
    { email: 'bench@example.org' },
    commandMetadata('system'),
  );
  const { token } = await runtime.auth.issueAccessToken({ userId: user.userId, orgId: null, role: null });
  const out: BenchWorkspace[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${service.origin}/v1/orgs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Bench ${i}`, slug: `${slugPrefix}-${process.pid}-${i}` }),
    });
    if (res.status !== 201)
      throw new Error(`creating a workspace answered ${res.status}: ${await res.text()}`);
    const orgId = ((await res.json()) as { data: { id: string } }).data.id;
    const scoped = await runtime.auth.issueAccessToken({ userId: user.userId, orgId, role: 'owner' });
    out.push({ orgId, userId: user.userId, token: scoped.token, base: `/v1/orgs/${orgId}/marketing` });
  }
  return out;
}
