#!/usr/bin/env node
// The ahead-of-time build: every source file of the service (not the tests) transpiled by esbuild, file by file, into
// dist/ under the same paths (api/main.ts -> dist/api/main.js), so `npm start`, `npm run worker` and `npm run cli`
// run plain JavaScript with no transpiler at run time. Types are checked by `npm run typecheck`, not here.
//
//   node scripts/build.mjs             build (npm ci's `prepare` runs this)
//   node scripts/build.mjs --if-stale  build only when a source file, this script or package-lock.json is newer than
//                                      the last build, or a source file was added or removed (`npm start` runs this)
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The source folders the service is made of (tsconfig's include, less test/). */
export const sourceDirs = ['domain', 'commands', 'projections', 'processes', 'infra', 'api'];
const outDir = path.join(root, 'dist');
const stampFile = path.join(outDir, '.build-stamp.json');

/**
 * Every non-test .ts file under the source folders, relative to the root, sorted.
 * @returns {string[]}
 */
function sources() {
  /** @type {string[]} */
  const files = [];
  for (const dir of sourceDirs) {
    for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (
        !entry.isFile() ||
        !entry.name.endsWith('.ts') ||
        entry.name.endsWith('.test.ts') ||
        entry.name.endsWith('.d.ts')
      )
        continue;
      files.push(path.relative(root, path.join(entry.parentPath, entry.name)));
    }
  }
  return files.sort();
}

/**
 * Newest modification time among the inputs that change what the build writes.
 * @param {string[]} files
 */
function newestInput(files) {
  let newest = 0;
  for (const file of [...files, 'scripts/build.mjs', 'package-lock.json', 'tsconfig.json']) {
    const full = path.join(root, file);
    if (existsSync(full)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** @param {string[]} files */
function isStale(files) {
  /** @type {{ builtAt: number, files: string }} */
  let stamp;
  try {
    /** @type {unknown} */
    const parsed = JSON.parse(readFileSync(stampFile, 'utf8'));
    stamp = /** @type {{ builtAt: number, files: string }} */ (parsed);
  } catch {
    return true;
  }
  if (stamp.files !== files.join('\n')) return true;
  return newestInput(files) > stamp.builtAt;
}

/**
 * Builds into `out` (dist/ unless a test asks for a folder of its own, which must be inside the repository so that
 * the packages resolve from node_modules).
 * @param {{ out?: string }} [options]
 */
export async function build({ out = outDir } = {}) {
  const started = performance.now();
  const files = sources();
  const { build: esbuild } = await import('esbuild');
  // Output of a former build is removed first, so a deleted source file leaves no module behind.
  for (const dir of sourceDirs) rmSync(path.join(out, dir), { recursive: true, force: true });
  const builtAt = Date.now();
  await esbuild({
    absWorkingDir: root,
    entryPoints: files,
    outdir: out,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: true,
    logLevel: 'warning',
    tsconfig: path.join(root, 'tsconfig.json'),
  });
  mkdirSync(out, { recursive: true });
  if (out === outDir) writeFileSync(stampFile, JSON.stringify({ builtAt, files: files.join('\n') }));
  return { files: files.length, ms: Math.round(performance.now() - started) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  if (ifStale && !isStale(sources())) process.exit(0);
  try {
    const { files, ms } = await build();
    process.stderr.write(`built ${files} modules into dist/ in ${ms} ms\n`);
  } catch (error) {
    process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
