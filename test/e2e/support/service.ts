// What the end-to-end tests share: the service (api/main.ts) and the CLI (api/cli.ts) as child processes on one
// data folder and port, with the environment a new user has, started, waited for and stopped as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../infra/db/embedded-postgres.js';

const root = path.resolve(import.meta.dirname, '../../..');

/** A new user's setup: one data folder and port; `unset` names what they have not configured. */
export interface E2eSetup {
  dataDir: string;
  port: number;
  unset: readonly string[];
}

/** A new user's machine: an empty data folder and a free port. */
export async function newUserSetup(folderPrefix: string, unset: readonly string[]): Promise<E2eSetup> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), folderPrefix));
  // As root, PostgreSQL runs as the `postgres` user, which must be able to enter the folder.
  await chmod(dataDir, 0o755);
  return { dataDir, port: await freePort(), unset };
}

/** After the test: a service still running is stopped cleanly, then the data folder goes. */
export async function cleanUp(setup: E2eSetup | undefined, server: ChildProcess | null): Promise<void> {
  if (server && server.exitCode === null) await stopChild(server, 'SIGTERM');
  if (setup) await rm(setup.dataDir, { recursive: true, force: true });
}

function childEnv(setup: E2eSetup): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: setup.dataDir,
    PORT: String(setup.port),
    LOG_LEVEL: 'info',
  };
  for (const name of setup.unset) delete env[name];
  return env;
}

function spawnEntryPoint(
  setup: E2eSetup,
  script: string,
  args: readonly string[] = [],
  options: { detached?: boolean } = {},
): ChildProcess {
  // Node with tsx's loader directly (not the tsx CLI), so signals reach the service itself.
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: childEnv(setup),
    stdio: 'pipe',
    // Its own process group, so a test can signal the group as systemd or a supervisor does.
    ...(options.detached ? { detached: true } : {}),
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr interleaved. */
  output(): string;
}

/**
 * Starts `npm start`'s entry point and waits until `probe` answers 2xx; fails with its output otherwise.
 * `detached`: in a process group of its own.
 */
export async function startService(
  setup: E2eSetup,
  probe: '/healthz' | '/readyz',
  options: { detached?: boolean } = {},
): Promise<ServiceProcess> {
  let output = '';
  const child = spawnEntryPoint(setup, 'api/main.ts', [], options);
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    const ok = await fetch(`http://127.0.0.1:${setup.port}${probe}`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return { child, output: () => output };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not answer ${probe}:\n${output}`);
}

/** Runs `npm run cli -- <args>` to its end. */
export async function runCli(
  setup: E2eSetup,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawnEntryPoint(setup, 'api/cli.ts', args);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  return { code, stdout, stderr };
}

/** Sends `signal` and resolves with the exit code (null when the signal ended it). */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill(signal);
  return exited;
}
