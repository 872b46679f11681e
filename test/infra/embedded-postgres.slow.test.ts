// The embedded PostgreSQL's superuser password: random per data directory, kept beside it under DATA_DIR in a
// 0600 file and reused on later starts; a data directory from before (password `postgres`, no file) is moved
// to a random password at its next start, whether the server is started or adopted while running.
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  embeddedPasswordFile,
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
} from '../../infra/db/embedded-postgres.js';

let root: string;
const running: EmbeddedPostgresHandle[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'sp-embedded-pg-'));
  // As root, PostgreSQL runs as the `postgres` user, which must be able to enter the folder.
  await chmod(root, 0o755);
});
afterAll(async () => {
  for (const handle of running) await handle.stop().catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<EmbeddedPostgresHandle> {
  const handle = await startEmbeddedPostgres({ dataDir, database: 'app' });
  running.push(handle);
  return handle;
}

/** Connects as `postgres` with this password; the SQLSTATE of the failure, or 'ok'. */
async function tryPassword(port: number, password: string): Promise<string> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
    connectionTimeoutMillis: 5000,
  });
  try {
    await client.connect();
    await client.query('select 1');
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function setPassword(port: number, from: string, to: string): Promise<void> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password: from,
    database: 'postgres',
  });
  await client.connect();
  try {
    await client.query(`alter role postgres with password '${to}'`);
  } finally {
    await client.end();
  }
}

const passwordOf = (url: string) => decodeURIComponent(new URL(url).password);

describe('embedded PostgreSQL password', { timeout: 120_000 }, () => {
  test('a new data directory gets a random password in a 0600 file, reused on the next start', async () => {
    const dataDir = path.join(root, 'fresh', 'postgres');
    const first = await start(dataDir);
    const file = embeddedPasswordFile(dataDir);
    expect(path.dirname(file)).toBe(path.dirname(dataDir));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const password = (await readFile(file, 'utf8')).trim();
    expect(password).not.toBe('postgres');
    expect(password.length).toBeGreaterThanOrEqual(32);
    expect(passwordOf(first.url)).toBe(password);
    expect(await tryPassword(first.port, password)).toBe('ok');
    // 28P01: invalid_password.
    expect(await tryPassword(first.port, 'postgres')).toBe('28P01');
    await first.stop();

    const second = await start(dataDir);
    expect(passwordOf(second.url)).toBe(password);
    expect(await tryPassword(second.port, password)).toBe('ok');
    await second.stop();
  });

  test('a data directory initialised with the old password moves to a random one (started, then adopted)', async () => {
    const dataDir = path.join(root, 'legacy', 'postgres');
    const file = embeddedPasswordFile(dataDir);
    const initial = await start(dataDir);
    // As an earlier version left it: superuser password `postgres` and no password file.
    await setPassword(initial.port, passwordOf(initial.url), 'postgres');
    await initial.stop();
    await rm(file);

    const started = await start(dataDir);
    const password = (await readFile(file, 'utf8')).trim();
    expect(password).not.toBe('postgres');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(passwordOf(started.url)).toBe(password);
    expect(await tryPassword(started.port, 'postgres')).toBe('28P01');
    expect(await tryPassword(started.port, password)).toBe('ok');

    // A server of the earlier version still running is adopted and moved over too.
    await setPassword(started.port, password, 'postgres');
    await rm(file);
    const adopted = await start(dataDir);
    expect(adopted.port).toBe(started.port);
    const next = (await readFile(file, 'utf8')).trim();
    expect(next).not.toBe('postgres');
    expect(await tryPassword(adopted.port, 'postgres')).toBe('28P01');
    expect(await tryPassword(adopted.port, next)).toBe('ok');
    await adopted.stop();
  });

  test('a file written just before a crash (server still on the old password) is completed; a loose mode is tightened', async () => {
    const dataDir = path.join(root, 'crashed', 'postgres');
    const file = embeddedPasswordFile(dataDir);
    const initial = await start(dataDir);
    await setPassword(initial.port, passwordOf(initial.url), 'postgres');
    await initial.stop();
    await writeFile(file, 'a'.repeat(43) + '\n', { mode: 0o644 });
    await chmod(file, 0o644);

    const handle = await start(dataDir);
    expect(passwordOf(handle.url)).toBe('a'.repeat(43));
    expect(await tryPassword(handle.port, 'postgres')).toBe('28P01');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await handle.stop();
  });
});
