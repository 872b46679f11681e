// The operator's sandbox commands: faults shown, set (validated, nothing changed on a bad value), cleared and
// reset; accounts revoked and restored; stats with duplicates; and the dispatch through `npm run cli -- sandbox`.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { sandboxCommand } from '../../api/cli/sandbox.js';
import { allMigrations } from '../../api/runtime.js';
import {
  databaseFaultSource,
  formatSandboxFaults,
  sandboxMigrations,
  type SandboxTables,
} from '../../infra/connectors/sandbox/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase<SandboxTables>;

beforeAll(async () => {
  database = await createTestDatabase<SandboxTables>(sandboxMigrations);
});
afterAll(async () => {
  await database?.drop();
});
beforeEach(async () => {
  await sql`truncate sandbox_publications, sandbox_accounts, sandbox_settings`.execute(database.db);
});

async function run(args: string[], configuredFaults?: string) {
  const lines: string[] = [];
  const code = await sandboxCommand(args, { db: database.db, configuredFaults, out: (l) => lines.push(l) });
  return { code, lines };
}

async function revokedAt(platform: string, externalId: string) {
  const row = await database.db
    .selectFrom('sandbox_accounts')
    .select('revoked_at')
    .where('platform', '=', platform)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
  return row?.revoked_at;
}

describe('sandbox faults', () => {
  it('shows SANDBOX_FAULTS until a run-time setting overrides it; clear means none, reset goes back', async () => {
    expect(await run(['faults'])).toEqual({ code: 0, lines: ['faults: none', 'source: none set'] });
    expect(await run(['faults'], 'fail=0.2')).toEqual({
      code: 0,
      lines: ['faults: fail=0.2', 'source: SANDBOX_FAULTS'],
    });
    expect(
      await run(['faults', 'set', 'fail=0.2,timeout=0.05,pending=0.3,x:reject=0.1'], 'fail=0.1'),
    ).toEqual({
      code: 0,
      lines: [
        'faults: fail=0.2,timeout=0.05,pending=0.3,x:reject=0.1',
        'source: run-time setting (SANDBOX_FAULTS=fail=0.1 is overridden)',
      ],
    });
    // What a running process reads once its short cache has passed.
    const source = databaseFaultSource({ db: database.db, configured: 'fail=0.1', cacheMs: 0 });
    expect(formatSandboxFaults(await source.current())).toBe(
      'fail=0.2,timeout=0.05,pending=0.3,x:reject=0.1',
    );

    expect((await run(['faults', 'clear'], 'fail=0.1')).lines[0]).toBe('faults: none');
    expect(formatSandboxFaults(await source.current())).toBe('none');
    expect(await run(['faults', 'reset'], 'fail=0.1')).toEqual({
      code: 0,
      lines: ['faults: fail=0.1', 'source: SANDBOX_FAULTS'],
    });
    expect(formatSandboxFaults(await source.current())).toBe('fail=0.1');
  });

  it('refuses a bad setting with a clear message and changes nothing', async () => {
    await run(['faults', 'set', 'pending=0.5']);
    for (const [bad, says] of [
      ['fail=2', 'between 0 and 1'],
      ['explode=0.1', '"explode" is not a fault'],
      ['myspace:fail=0.1', '"myspace" is not a platform'],
      ['fail=0.6,timeout=0.6', 'add up to 1.2'],
      ['fail', 'is not [platform:]fault=share'],
      ['fail=0.1,fail=0.2', 'fail is given twice'],
    ] as const) {
      const result = await run(['faults', 'set', bad]);
      expect(result.code, bad).toBe(2);
      expect(result.lines.join('\n'), bad).toContain(says);
      expect((await run(['faults'])).lines[0], bad).toBe('faults: pending=0.5');
    }
  });
});

describe('sandbox revoke / restore', () => {
  it('marks the account revoked and restored; refuses an unknown platform', async () => {
    expect(await run(['revoke', 'x', '123456789012345678'])).toMatchObject({ code: 0 });
    expect(await revokedAt('x', '123456789012345678')).toEqual(expect.any(String));
    expect(await run(['restore', 'x', '123456789012345678'])).toMatchObject({ code: 0 });
    expect(await revokedAt('x', '123456789012345678')).toBeNull();
    const bad = await run(['revoke', 'myspace', '1']);
    expect(bad.code).toBe(2);
    expect(bad.lines[0]).toContain('"myspace" is not a platform');
    expect(await revokedAt('myspace', '1')).toBeUndefined();
  });
});

describe('sandbox stats', () => {
  it('counts publications per platform and lists posts published more than once', async () => {
    expect((await run(['stats'])).lines).toEqual(['no publications', 'posts published more than once: none']);
    const row = (
      platform: string,
      postId: string,
      status: 'published' | 'pending' | 'deleted',
      n: number,
    ) => ({
      platform,
      account_external_id: 'acc',
      post_id: postId,
      idempotency_key: `publish:${postId}:${n}`,
      external_id: `${postId}-${n}`,
      url: `http://x/${postId}`,
      text: 't',
      status,
      ready_at: status === 'pending' ? '2999-01-01T00:00:00.000Z' : '2000-01-01T00:00:00.000Z',
      created_at: '2026-01-01T00:00:00.000Z',
      deleted_at: null,
    });
    await database.db
      .insertInto('sandbox_publications')
      .values([
        row('x', 'p1', 'published', 1),
        row('x', 'p1', 'published', 2),
        row('x', 'p2', 'pending', 1),
        row('bluesky', 'p3', 'deleted', 1),
      ])
      .execute();
    expect(await run(['stats'])).toEqual({
      code: 0,
      lines: [
        'platform  total  published  pending  deleted',
        'bluesky       1          0        0        1',
        'x             3          2        1        0',
        'posts published more than once: 1',
        '  x p1: 2 publications',
      ],
    });
  });

  it('prints the usage for an unknown subcommand', async () => {
    const result = await run(['explode']);
    expect(result.code).toBe(2);
    expect(result.lines[0]).toMatch(/^usage: sandbox faults/);
  });
});

describe('npm run cli -- sandbox', () => {
  let full: TestDatabase<unknown>;
  let dataDir: string;
  beforeAll(async () => {
    full = await createTestDatabase(allMigrations);
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-sandbox-cli-'));
  });
  afterAll(async () => {
    await full?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function cli(...args: string[]): Promise<{ code: number; stdout: string }> {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const child = spawn(process.execPath, ['--import', 'tsx', 'api/cli.ts', ...args], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: full.url,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
        SANDBOX_FAULTS: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
    return { code, stdout };
  }

  it('dispatches to the sandbox commands against the service database', async () => {
    expect(await cli('sandbox', 'faults', 'set', 'fail=0.25')).toEqual({
      code: 0,
      stdout: 'faults: fail=0.25\nsource: run-time setting\n',
    });
    const { rows } = await sql<{ value: string }>`select value from sandbox_settings`.execute(full.db);
    expect(rows).toEqual([{ value: 'fail=0.25' }]);
    const stats = await cli('sandbox', 'stats');
    expect(stats).toEqual({ code: 0, stdout: 'no publications\nposts published more than once: none\n' });
  });
});
