// The ahead-of-time build (scripts/build.mjs) as `npm start` and `npm run cli` use it: the compiled entry points
// run on plain Node (no tsx), find what they read beside the sources, and the CLI's help loads nothing but itself.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { siblingModule } from '../../infra/async/worker-pool.js';
import { projectRoot } from '../../infra/config/project-root.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Inside dist/ (ignored by git), so that the compiled modules resolve their packages from the repository.
const out = path.join(root, 'dist', `.test-build-${process.pid}`);
const hook = path.join(out, 'loaded-modules.mjs');

interface BuildScript {
  build(options: { out: string }): Promise<{ files: number; ms: number }>;
}

beforeAll(async () => {
  const script = (await import(path.join(root, 'scripts', 'build.mjs'))) as BuildScript;
  const { files } = await script.build({ out });
  expect(files).toBeGreaterThan(100);
  // Prints every module a process loaded, at exit, on stderr.
  writeFileSync(
    hook,
    `import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify(loaded) + '\\n'));
`,
  );
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

function runBuilt(script: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['--import', hook, path.join(out, script), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    timeout: 60_000,
  });
  const line = result.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  const loaded = line ? (JSON.parse(line.slice('LOADED '.length)) as string[]) : [];
  return { ...result, loaded };
}

test('every source module is compiled beside the others, the worker threads included', () => {
  for (const file of [
    'api/main.js',
    'api/worker.js',
    'api/cli.js',
    'infra/visuals/worker.js',
    'infra/brand/website-worker.js',
    'infra/media-probe/worker.js',
  ])
    expect(existsSync(path.join(out, file)), file).toBe(true);
  expect(existsSync(path.join(out, 'api/cli.test.js'))).toBe(false);
});

test('the compiled CLI answers --help from its usage lines alone: no package, no runtime', () => {
  const result = runBuilt('api/cli.js', ['--help']);
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('usage: npm run cli -- <command>');
  expect(result.stdout).toContain('token --email <email>');
  const ours = result.loaded.filter((url) => url.startsWith('file:') && !url.endsWith('loaded-modules.mjs'));
  expect(ours.map((url) => path.relative(out, fileURLToPath(url))).sort()).toEqual([
    'api/cli.js',
    'api/cli/usage.js',
  ]);
});

test('the compiled runtime loads without tsx and without the heavy adapters a default start does not use', () => {
  // A configuration error stops the CLI after it has loaded the runtime and read the settings.
  const result = runBuilt('api/cli.js', ['projections', 'status'], { PORT: 'not-a-port' });
  expect(result.status).toBe(1);
  expect(result.stderr).toContain('PORT');
  const packages = new Set(
    result.loaded.flatMap((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []),
  );
  expect(packages.has('kysely')).toBe(true);
  for (const lazy of [
    'tsx',
    'jsdom',
    'satori',
    '@resvg/resvg-js',
    'pdf-lib',
    'cheerio',
    '@aws-sdk/client-s3',
    'nats',
    '@paddle/paddle-node-sdk',
    'nodemailer',
    '@atproto/api',
    '@atproto/jwk-jose',
  ])
    expect(packages.has(lazy), lazy).toBe(false);
  // The MCP SDK's OAuth metadata schemas (zod) are used by the authorization server at start; its server (and ajv) are not.
  expect(result.loaded.filter((url) => url.includes('/@modelcontextprotocol/sdk/dist/esm/server/'))).toEqual(
    [],
  );
  expect(packages.has('ajv')).toBe(false);
});

test('worker modules and repository files are found from the sources and from the build alike', () => {
  expect(siblingModule('worker', 'file:///app/infra/visuals/pool.ts')).toBe(
    'file:///app/infra/visuals/worker.ts',
  );
  expect(siblingModule('worker', 'file:///app/dist/infra/visuals/pool.js')).toBe(
    'file:///app/dist/infra/visuals/worker.js',
  );
  expect(projectRoot).toBe(root);
});
