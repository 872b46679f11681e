// Graceful shutdown as a supervisor does it (issue 26): the service (api/main.ts, embedded PostgreSQL) runs in a
// process group of its own and the whole group is signalled, twice (what a launcher relaying the signal adds, or
// an impatient operator): a request in flight completes, the process exits 0 within 10 s, and the embedded
// PostgreSQL is stopped (no postgres process, no postmaster.pid left). Once with SIGTERM, once with SIGINT.
// The service is started as `node --import tsx api/main.ts` (the loader in-process, no launcher in between), so
// the signals the test sends are the ones it gets, whatever `npm start` runs; the relay is the second signal.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { alive } from '../../infra/db/embedded-postgres.js';
import { cleanUp, newUserSetup, startService, type E2eSetup } from './support/service.js';

const unconfigured = ['DATABASE_URL', 'NATS_URL', 'BUS'];
let machine: E2eSetup | undefined;
let server: ChildProcess | null = null;

afterAll(async () => {
  if (server?.pid && server.exitCode === null) process.kill(-server.pid, 'SIGKILL');
  await cleanUp(machine, null);
});

/**
 * A request that stays in flight until `finish` is called: a client registration whose JSON body arrives in two
 * parts (the route reads the whole body before answering). Resolves with the answer's status.
 */
function slowRequest(port: number): { finish(): void; status: Promise<number> } {
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/oauth/register',
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
  });
  const status = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write('{"client_name":"Slow client",');
  req.flushHeaders();
  return {
    finish: () => req.end('"redirect_uris":["https://client.example/callback"]}'),
    status,
  };
}

async function stopAsAGroup(signal: NodeJS.Signals): Promise<void> {
  const setup = machine!;
  const service = await startService(setup, '/healthz', { detached: true });
  server = service.child;
  const pid = service.child.pid!;
  const pidFile = path.join(setup.dataDir, 'postgres', 'postmaster.pid');
  const postgres = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  expect(alive(postgres)).toBe(true);

  const inFlight = slowRequest(setup.port);
  await new Promise((r) => setTimeout(r, 300));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    service.child.on('exit', (code) => resolve({ code, at: Date.now() })),
  );
  const signalled = Date.now();
  // The group, twice: the second is what a relaying launcher (npm, tsx) sends.
  process.kill(-pid, signal);
  await new Promise((r) => setTimeout(r, 100));
  process.kill(-pid, signal);
  // The drain waits for the request: it completes after both signals.
  await new Promise((r) => setTimeout(r, 1_500));
  expect(service.child.exitCode).toBeNull();
  inFlight.finish();
  expect(await inFlight.status).toBe(201);

  const { code, at } = await exited;
  expect(code, service.output()).toBe(0);
  expect(at - signalled).toBeLessThan(10_000);
  expect(service.output()).toContain('"msg":"stopped"');
  expect(alive(postgres)).toBe(false);
  expect(existsSync(pidFile)).toBe(false);
}

test(
  'SIGTERM to the process group, twice: drains, stops the database, exits 0 within 10 s',
  { timeout: 240_000 },
  async () => {
    machine = await newUserSetup('sp-shutdown-', unconfigured);
    await stopAsAGroup('SIGTERM');
  },
);

test(
  'SIGINT to the process group, twice: the same (and the next start finds no stale postmaster.pid)',
  { timeout: 240_000 },
  async () => {
    await stopAsAGroup('SIGINT');
  },
);
