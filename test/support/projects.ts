// Which vitest project (vitest.config.ts) each test file belongs to, decided from the files themselves so that a
// new file lands in one without being listed anywhere:
//
//   slow         under test/e2e/ or named `*.slow.test.ts`: whole processes, browsers, long timing checks
//   integration  every other file that reaches a database or NATS server: it imports, directly or through other
//                files under test/, a module that reads the global setup's servers (vitest's `inject`, as
//                test/support/postgres.ts and nats.ts do), or it imports infra/db/embedded-postgres.ts to start
//                a PostgreSQL itself
//   unit         the rest: no database, no NATS, no global setup (`npx vitest run --project 'unit*'`); its files
//                share their workers' module graphs (`isolate: false` in vitest.config.ts: a file's modules are
//                imported once per worker, not once per file)
//   unit-isolated  a unit file that replaces a module (`vi.mock` / `vi.doMock`): a replaced module must not be
//                shared with other files, so these keep a module graph of their own (`isolate: true`)
//
// Imports are read as text (static `import … from`, `export … from`, side-effect `import '…'` and dynamic
// `import('…')` with a literal specifier); only files under test/ are followed, since the application's own
// modules never read the test servers. test/projects.test.ts checks that every test file of the
// repository is in exactly one project.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';

export const projectNames = ['unit', 'unit-isolated', 'integration', 'slow'] as const;
export type ProjectName = (typeof projectNames)[number];

/** The repository root. */
export const repoRoot = resolve(import.meta.dirname, '../..');

/** What vitest's projects include: test files under test/. */
export const testFilePattern = /\.test\.ts$/;

/** A module that hands tests the global setup's servers (its source calls vitest's `inject`). */
const readsTestServers = (source: string) => /\binject\s*\(\s*['"]/.test(source);
/** A test file that replaces a module for itself (vitest hoists `vi.mock`; `vi.doMock` replaces it from then on). */
const replacesModules = (source: string) => /\bvi\s*\.\s*(?:mock|doMock)\s*\(/.test(source);
/** The module a test imports to start a PostgreSQL of its own (its binaries and a few seconds, no global setup). */
const embeddedPostgres = 'infra/db/embedded-postgres.ts';

const specifierPattern =
  /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative module specifiers a source names (static and literal dynamic imports, re-exports). */
export function relativeSpecifiers(source: string): string[] {
  const out: string[] = [];
  for (const match of source.matchAll(specifierPattern)) {
    const specifier = match[1] ?? match[2]!;
    if (specifier.startsWith('.')) out.push(specifier);
  }
  return out;
}

/** Every test file under `folder` (relative to the repository root, `/`-separated), sorted. */
export function testFilesUnder(folder = 'test', root = repoRoot): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = posix.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(path);
      return testFilePattern.test(entry.name) ? [path] : [];
    });
  return walk(folder).sort();
}

export function isSlow(file: string): boolean {
  return file.startsWith('test/e2e/') || file.endsWith('.slow.test.ts');
}

/** Classifies test files (paths relative to `root`, the repository's by default), reading each file once. */
export function classifyTestFiles(
  files: readonly string[] = testFilesUnder(),
  root = repoRoot,
): Record<ProjectName, string[]> {
  const sources = new Map<string, string>();
  const sourceOf = (file: string) => {
    let source = sources.get(file);
    if (source === undefined) {
      source = readFileSync(join(root, file), 'utf8');
      sources.set(file, source);
    }
    return source;
  };
  /** The repository paths a file imports, as written (NodeNext: `./x.js` names `./x.ts`). */
  const targetsOf = (file: string): string[] =>
    relativeSpecifiers(sourceOf(file)).map((specifier) =>
      relative(root, resolve(root, dirname(file), specifier))
        .split('\\')
        .join('/'),
    );
  const startsPostgres = (file: string) =>
    targetsOf(file).some((target) => target.replace(/\.js$/, '.ts') === embeddedPostgres);
  /** The files under test/ a file imports. */
  const importsOf = (file: string): string[] =>
    targetsOf(file).flatMap((target) => {
      if (!target.startsWith('test/')) return [];
      const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, `${target}/index.ts`];
      const found = candidates.find((c) => c.endsWith('.ts') && existsSync(join(root, c)));
      return found ? [found] : [];
    });
  // The files under test/ the test files reach, then which of them reach the servers (to a fixed point, so import
  // cycles are no trouble).
  const edges = new Map<string, string[]>();
  const pending = [...files];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (edges.has(file)) continue;
    const next = importsOf(file);
    edges.set(file, next);
    pending.push(...next);
  }
  const needsServers = new Set(
    [...edges.keys()].filter((file) => file.startsWith('test/support/') && readsTestServers(sourceOf(file))),
  );
  for (let grew = true; grew;) {
    grew = false;
    for (const [file, next] of edges) {
      if (!needsServers.has(file) && next.some((n) => needsServers.has(n))) {
        needsServers.add(file);
        grew = true;
      }
    }
  }

  const projects: Record<ProjectName, string[]> = {
    unit: [],
    'unit-isolated': [],
    integration: [],
    slow: [],
  };
  for (const file of files) {
    if (isSlow(file)) projects.slow.push(file);
    else if (startsPostgres(file) || needsServers.has(file)) projects.integration.push(file);
    else if (replacesModules(sourceOf(file))) projects['unit-isolated'].push(file);
    else projects.unit.push(file);
  }
  return projects;
}
