// As a new user on a fresh clone: the README's run command (embedded PostgreSQL, no DATABASE_URL) serves /healthz,
// a token from the CLI creates a workspace through POST /v1/orgs and lists it, and restarts keep it —
// after a clean SIGTERM, and after a SIGKILL that leaves the embedded database running.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { freePort } from '../../infra/db/embedded-postgres.js';

const root = path.resolve(import.meta.dirname, '../..');
let dataDir = '';
let server: ChildProcess | null = null;

function childEnv(port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' };
  // The embedded default is what a new user gets: no database or bus configured.
  delete env.DATABASE_URL;
  delete env.NATS_URL;
  delete env.BUS;
  return env;
}

async function startServer(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: root,
    env: childEnv(port),
    stdio: 'pipe',
  });
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return { child, output: () => output };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not answer /healthz:\n${output}`);
}

async function cli(
  port: number,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/cli.ts', ...args], {
    cwd: root,
    env: childEnv(port),
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  return { code, stdout, stderr };
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}

afterAll(async () => {
  if (server && server.exitCode === null) await stop(server, 'SIGTERM');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test(
  'fresh clone: run, token, create, list, restart (clean and after SIGKILL)',
  { timeout: 240_000 },
  async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-e2e-'));
    // As root, PostgreSQL runs as the `postgres` user, which must be able to enter the folder.
    await chmod(dataDir, 0o755);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;

    const first = await startServer(port);
    server = first.child;
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ data: { status: 'ok' } });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);

    const issued = await cli(port, 'token', '--email', 'newcomer@example.org');
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
    expect(await stop(server, 'SIGTERM')).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = await startServer(port);
    server = second.child;
    expect(await listed()).toEqual([expect.objectContaining({ slug: 'newcomer' })]);
    // The CLI works while the server runs (it shares the server's embedded database).
    const scoped = await cli(port, 'token', '--email', 'newcomer@example.org', '--workspace', 'newcomer');
    expect(scoped.code, scoped.stderr).toBe(0);
    expect(scoped.stdout).not.toContain('created workspace');

    // A crash: the detached database survives and the next start adopts it.
    await stop(server, 'SIGKILL');
    const third = await startServer(port);
    server = third.child;
    expect(await listed()).toEqual([expect.objectContaining({ slug: 'newcomer' })]);
    expect(await stop(server, 'SIGINT')).toBe(0);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    // With no server running, the CLI starts the database itself and stops it again.
    const offline = await cli(port, 'projections', 'status');
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toContain('workspaces');
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  },
);
