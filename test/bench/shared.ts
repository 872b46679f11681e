// Helpers the benchmarks share: the result table, env-configurable sizes, a fresh database per benchmark, the
// service listening on a port (createRuntime + @hono/node-server) and the load generator in a process of its own.
// The service runs in the default configuration (info logs, the shipped pool, rate limits on); BENCH_TUNED=1
// runs the tuned variant (silent, pool 40, limits off). Every benchmark reads BENCH_LOG_LEVEL (the service's log
// level), BENCH_POOL_MAX (its DATABASE_POOL_MAX), BENCH_CPU_PROFILE (a directory for CPU profiles of each load) and
// BENCH_QUERY_COUNTS=1 (statements per request of each load).
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { serve } from '@hono/node-server';
import { loadEnv } from '../../api/env.js';
import { pino } from 'pino';
import { createLogger } from '../../infra/logging/logger.js';
import { freePort } from '../../infra/db/embedded-postgres.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../api/runtime.js';
import { ensureUser } from '../../commands/users/user-commands.js';
import type { LoadResult, LoadSpec } from './load-generator.js';

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
  benchDatabases.add(name);
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

/**
 * The whole service on `url`, listening on a free port as `npm start` would (background not started yet).
 * `runtime` passes seams of createRuntime (e.g. a benchmark of reads turns the publishing sweep off).
 */
export async function startService(
  url: string,
  env: Record<string, string> = {},
  runtime: Pick<RuntimeOptions, 'publishing'> = {},
): Promise<BenchService> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-'));
  // The default configuration as `npm start` runs it: info logs (one JSON line per request, written
  // asynchronously as pino writes to stdout, here to a file in the data directory), the shipped pool size and
  // rate limits on. One token drives each benchmark far past the per-token limits a person meets, so the limits
  // are raised above the load (the limiter still counts every request); nothing else is changed.
  // BENCH_TUNED=1 runs the tuned variant instead: logs silent, a pool of 40, rate limits off.
  const tuned = process.env.BENCH_TUNED === '1';
  const level = process.env.BENCH_LOG_LEVEL ?? (tuned ? 'silent' : 'info');
  const pool = process.env.BENCH_POOL_MAX ?? (tuned ? '40' : undefined);
  const raised = { perToken: 100_000_000, perWorkspace: 100_000_000 };
  const config = loadEnv({
    DATABASE_URL: url,
    DATA_DIR: dataDir,
    LOG_LEVEL: level,
    ...(pool !== undefined ? { DATABASE_POOL_MAX: pool } : {}),
    RATE_LIMITS_ENABLED: process.env.BENCH_RATE_LIMITS ?? (tuned ? 'false' : 'true'),
    RATE_LIMITS: JSON.stringify({ read: raised, write: raised, mcp: raised, billing: raised }),
    ...env,
  });
  const logger = createLogger({
    level,
    ...(level === 'silent'
      ? {}
      : { destination: pino.destination({ dest: path.join(dataDir, 'service.log'), sync: false }) }),
  });
  const built = await createRuntime({ env: config, logger, mode: 'server', ...runtime });
  const port = await freePort();
  const http = serve({ fetch: built.app.fetch, port, hostname: '127.0.0.1' }) as Server;
  await new Promise((r) => http.once('listening', r));
  return {
    runtime: built,
    origin: `http://127.0.0.1:${port}`,
    startBackground: () => built.startBackground(),
    async stop() {
      await new Promise((r) => http.close(r));
      await built.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The benchmarks' databases: their PostgreSQL backends are the ones whose CPU time a load counts. */
const benchDatabases = new Set<string>();

/**
 * CPU time (ms) of the PostgreSQL processes working on the benchmarks' databases, by pid (Linux /proc only):
 * the backends serving the service, and autovacuum workers (told apart, since they tidy up after earlier work).
 */
async function databaseCpu(): Promise<Map<number, { ms: number; autovacuum: boolean }>> {
  const out = new Map<number, { ms: number; autovacuum: boolean }>();
  if (process.platform !== 'linux' || benchDatabases.size === 0) return out;
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // Process titles of backends: `postgres: <cluster>: <user> <database> <client> <state>`.
      const title = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).split(' ');
      if (!title[0]?.startsWith('postgres:') || !title.some((word) => benchDatabases.has(word))) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), {
        ms: (Number(fields[11]) + Number(fields[12])) * tick,
        autovacuum: title.includes('autovacuum'),
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Sums what the processes used between two readings (one born meanwhile counts from zero). */
const cpuBetween = (
  before: Map<number, { ms: number }>,
  after: Map<number, { ms: number; autovacuum: boolean }>,
  autovacuum: boolean,
) =>
  [...after]
    .filter(([, p]) => p.autovacuum === autovacuum)
    .reduce((sum, [pid, p]) => sum + p.ms - (before.get(pid)?.ms ?? 0), 0);

/** With BENCH_CPU_PROFILE=<dir>, a V8 CPU profile of this process (the server) is written for every load. */
async function startProfile(): Promise<(label: string) => Promise<void>> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return async () => undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async (label) => {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    await mkdir(dir, { recursive: true });
    const file = path.join(
      dir,
      `${Date.now()}-${label.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.cpuprofile`,
    );
    await writeFile(file, JSON.stringify(profile));
    console.error(`  CPU profile ${file}`);
  };
}

/**
 * With BENCH_QUERY_COUNTS=1, counts the statements this process sends to PostgreSQL during a load (the request
 * path and the background work alike) and prints them per request, most frequent first.
 */
export function countQueries(): (requests: number) => void {
  if (process.env.BENCH_QUERY_COUNTS !== '1') return () => undefined;
  const counts = new Map<string, number>();
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function countedQuery(this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : (first?.text ?? '?');
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 110);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.apply(this, args);
  };
  return (requests) => {
    proto.query = original;
    const n = Math.max(1, requests);
    const all = [...counts.values()].reduce((a, b) => a + b, 0);
    console.error(`  statements per request: ${fmt(all / n, 2)}`);
    for (const [text, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 25))
      console.error(`    ${fmt(count / n, 3).padStart(7)}  ${text}`);
  };
}

/**
 * Runs a load from a process of its own (test/bench/load-generator.ts), so the generator never competes with
 * the server for this process's event loop. Requests are cycled in order; `{n}` in a path or body is the
 * request's sequence number. The answer adds the CPU time the load cost per request: this process's (the
 * server and its background work) and that of PostgreSQL's backends for the benchmark's database.
 */
export async function runLoad(spec: LoadSpec): Promise<MeasuredLoad> {
  const stopProfile = await startProfile();
  const stopCounting = countQueries();
  let dbBefore = new Map<number, { ms: number; autovacuum: boolean }>();
  let before = process.cpuUsage();
  let used = process.cpuUsage(before);
  let dbAfter: Promise<Map<number, { ms: number; autovacuum: boolean }>> = Promise.resolve(new Map());
  const result = await generate(spec, {
    ready: async () => {
      dbBefore = await databaseCpu();
      before = process.cpuUsage();
    },
    finished: () => {
      used = process.cpuUsage(before);
      dbAfter = databaseCpu();
    },
  });
  const dbAfterReading = await dbAfter;
  const dbMs = cpuBetween(dbBefore, dbAfterReading, false);
  const vacuumMs = cpuBetween(dbBefore, dbAfterReading, true);
  await stopProfile(spec.requests[0]?.path ?? 'load');
  stopCounting(result.total);
  const n = Math.max(1, result.total);
  return {
    ...result,
    cpu: {
      serverMsPerRequest: (used.user + used.system) / 1000 / n,
      databaseMsPerRequest: dbMs / n,
      autovacuumMsPerRequest: vacuumMs / n,
    },
  };
}

export interface MeasuredLoad extends LoadResult {
  /** CPU per request: the server process (this one) and the benchmark database's PostgreSQL backends. */
  cpu: { serverMsPerRequest: number; databaseMsPerRequest: number; autovacuumMsPerRequest: number };
}

/** Runs the load in a child; `ready` runs before the first request is sent, `finished` right after the last. */
function generate(
  spec: LoadSpec,
  phases: { ready: () => Promise<void>; finished: () => void },
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-generator.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, BENCH_LOAD_GENERATOR: '1' },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let settled = false;
    type Message =
      { phase: 'ready' | 'finished' } | { ok: true; result: LoadResult } | { ok: false; error: string };
    child.on('message', (message: Message) => {
      if ('phase' in message) {
        if (message.phase === 'ready') void phases.ready().then(() => child.send('go'), reject);
        else phases.finished();
        return;
      }
      settled = true;
      if (message.ok) resolve(message.result);
      else reject(new Error(`load generator failed: ${message.error}`));
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`load generator exited with ${code} before answering`));
    });
    child.send(spec);
  });
}

/** `p50 3 ms, p99 9 ms, CPU 1.20 ms/req server + 0.80 ms/req PostgreSQL` */
export const describeLatency = (result: MeasuredLoad) =>
  `p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, CPU ${fmt(result.cpu.serverMsPerRequest, 2)} ms/req ` +
  `server + ${fmt(result.cpu.databaseMsPerRequest, 2)} ms/req PostgreSQL` +
  (result.cpu.autovacuumMsPerRequest > 0
    ? ` (+ ${fmt(result.cpu.autovacuumMsPerRequest, 2)} ms/req autovacuum meanwhile)`
    : '');

/** `200×1998 503×2` from a status tally. */
export const describeStatuses = (statuses: Iterable<[number, number]>) =>
  [...statuses]
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

/**
 * Each GET case at each number of connections for `duration` seconds, recorded as `HTTP <name>, <suffix>, <n>
 * conn` with its rate, latency, CPU per request and any non-2xx answers.
 */
export async function recordGetLoads(spec: {
  origin: string;
  headers: Record<string, string>;
  cases: ReadonlyArray<{ name: string; path: string }>;
  loads: readonly number[];
  duration: number;
  suffix: string;
}): Promise<void> {
  for (const connections of spec.loads)
    for (const c of spec.cases) {
      const result = await runLoad({
        origin: spec.origin,
        connections,
        duration: spec.duration,
        requests: [{ method: 'GET', path: c.path, headers: spec.headers }],
      });
      const bad = result.non2xx + result.errors;
      record(
        `HTTP ${c.name}, ${spec.suffix}, ${connections} conn`,
        `${fmt(result.rate)} req/s`,
        `${describeLatency(result)}, ${fmt(result.total)} requests` +
          `${bad > 0 ? ` (${describeStatuses(result.statuses)})` : ''}, ${bad} non-2xx/errors`,
      );
    }
}
