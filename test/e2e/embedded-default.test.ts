// As a new user on a fresh clone: the README's run command (embedded PostgreSQL, no DATABASE_URL) serves /healthz,
// a token from the CLI creates a workspace through POST /v1/orgs and lists it, and restarts keep it —
// after a clean SIGTERM, and after a SIGKILL that leaves the embedded database running.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { cleanUp, newUserSetup, runCli, startService, stopChild, type E2eSetup } from './support/service.js';

// The embedded default is what a new user gets: no database or bus configured.
const unconfigured = ['DATABASE_URL', 'NATS_URL', 'BUS'];
let machine: E2eSetup | undefined;
let server: ChildProcess | null = null;

afterAll(() => cleanUp(machine, server));

test(
  'fresh clone: run, token, create, list, restart (clean and after SIGKILL)',
  { timeout: 240_000 },
  async () => {
    const setup = (machine = await newUserSetup('sp-e2e-', unconfigured));
    const { port } = setup;
    const base = `http://127.0.0.1:${port}`;

    const first = await startService(setup, '/healthz');
    server = first.child;
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ data: { status: 'ok' } });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);

    const issued = await runCli(setup, 'token', '--email', 'newcomer@example.org');
    expect(issued.code, issued.stderr).toBe(0);
    const token = issued.stdout.trim().split('\n').at(-1)!;
    expect(token.split('.')).toHaveLength(3);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const created = await fetch(`${base}/v1/orgs`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Newcomer Co', slug: 'newcomer' }),
    });
    expect(created.status).toBe(201);
    const listed = async () =>
      (
        (await (await fetch(`${base}/v1/orgs`, { headers: auth })).json()) as {
          data: Array<{ slug: string; role: string }>;
        }
      ).data;
    expect(await listed()).toEqual([expect.objectContaining({ slug: 'newcomer', role: 'owner' })]);

    // Clean stop: drains, stops the embedded database.
    expect(await stopChild(server, 'SIGTERM')).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');
    expect(existsSync(path.join(setup.dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = await startService(setup, '/healthz');
    server = second.child;
    expect(await listed()).toEqual([expect.objectContaining({ slug: 'newcomer' })]);
    // The CLI works while the server runs (it shares the server's embedded database).
    const scoped = await runCli(setup, 'token', '--email', 'newcomer@example.org', '--workspace', 'newcomer');
    expect(scoped.code, scoped.stderr).toBe(0);
    expect(scoped.stdout).not.toContain('created workspace');

    // A crash: the detached database survives and the next start adopts it.
    await stopChild(server, 'SIGKILL');
    const third = await startService(setup, '/healthz');
    server = third.child;
    expect(await listed()).toEqual([expect.objectContaining({ slug: 'newcomer' })]);
    expect(await stopChild(server, 'SIGINT')).toBe(0);
    expect(existsSync(path.join(setup.dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    // With no server running, the CLI starts the database itself and stops it again.
    const offline = await runCli(setup, 'projections', 'status');
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toContain('workspaces');
    expect(existsSync(path.join(setup.dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  },
);
