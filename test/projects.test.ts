// The suite's vitest projects (vitest.config.ts, test/support/projects.ts): every test file of the repository is in
// exactly one of unit, unit-isolated, integration and slow; a file reaching the test servers through any chain of imports under
// test/ is not a unit test; the unit project has no global setup.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, posix } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import config from '../vitest.config.js';
import {
  classifyTestFiles,
  projectNames,
  relativeSpecifiers,
  repoRoot,
  testFilePattern,
  testFilesUnder,
} from './support/projects.js';

/** Every `*.test.ts` of the repository, wherever it is (not dependencies, data or build output). */
function everyTestFile(dir = ''): string[] {
  const skipped = new Set(['node_modules', '.git', '.data', 'data', 'dist', 'coverage']);
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? posix.join(dir, entry.name) : entry.name;
    if (entry.isDirectory()) return skipped.has(entry.name) ? [] : everyTestFile(path);
    return testFilePattern.test(entry.name) ? [path] : [];
  });
}

describe('the projects of this repository', () => {
  const projects = classifyTestFiles();

  test('every test file is under test/, so the projects see it', () => {
    expect(everyTestFile().filter((file) => !file.startsWith('test/'))).toEqual([]);
  });

  test('every test file is in exactly one project, and none is empty', () => {
    const all = testFilesUnder();
    const placed = projectNames.flatMap((name) => projects[name]);
    expect(placed.slice().sort()).toEqual(all);
    expect(new Set(placed).size).toBe(placed.length);
    for (const name of projectNames) expect(projects[name].length, name).toBeGreaterThan(0);
  });

  test('known files land where they belong', () => {
    expect(projects.unit).toContain('test/domain/scheduling.decider.test.ts');
    expect(projects.unit).toContain('test/projects.test.ts');
    // Replaces node:crypto with vi.mock.
    expect(projects['unit-isolated']).toContain('test/infra/billing/webhook-signature.test.ts');
    expect(projects.integration).toContain('test/event-store/postgres.model.test.ts');
    // Reaches the servers through test/support/runtime.ts → postgres.ts.
    expect(projects.integration).toContain('test/api/brand/kit.test.ts');
    // Starts PostgreSQL servers of its own, several times.
    expect(projects.slow).toContain('test/infra/embedded-postgres.slow.test.ts');
    expect(projects.slow).toContain('test/e2e/embedded-default.test.ts');
  });

  test('vitest.config.ts builds its projects from the classification; only unit has no global setup', () => {
    const inline = (config.test?.projects ?? []) as Array<{
      test: { name: string; include: string[]; globalSetup?: string[]; isolate?: boolean };
    }>;
    expect(inline.map((p) => p.test.name)).toEqual([...projectNames]);
    for (const p of inline) {
      expect(p.test.include, p.test.name).toEqual(projects[p.test.name as keyof typeof projects]);
      if (p.test.name.startsWith('unit')) expect(p.test.globalSetup).toBeUndefined();
      else expect(p.test.globalSetup).toEqual(['test/support/global-setup.ts']);
      // Only the unit files that replace no module share their workers' modules.
      expect(p.test.isolate, p.test.name).toBe(p.test.name === 'unit' ? false : undefined);
    }
    expect(config.test?.globalSetup).toBeUndefined();
  });
});

describe('the classification', () => {
  const root = mkdtempSync(join(os.tmpdir(), 'sp-projects-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, source: string) => {
    mkdirSync(join(root, dirname(file)), { recursive: true });
    writeFileSync(join(root, file), source);
  };

  test('follows imports under test/ to a module that injects the servers, through cycles and dynamic imports', () => {
    write(
      'test/support/servers.ts',
      "import { inject } from 'vitest';\nexport const url = inject('pgServerUrl');\n",
    );
    write('test/support/pure.ts', "import { z } from 'zod';\nexport const x = 1;\n");
    write('test/a/helper.ts', "import {\n  url,\n} from '../support/servers.js';\nexport { url };\n");
    write('test/a/cycle-one.ts', "import './cycle-two.js';\nexport { url } from './helper.js';\n");
    write('test/a/cycle-two.ts', "import type { url } from './cycle-one.js';\nexport const two = 2;\n");
    write('test/a/direct.test.ts', "import { url } from '../support/servers.js';\n");
    write('test/a/indirect.test.ts', "import { url } from './helper.js';\n");
    write('test/a/through-cycle.test.ts', "import { two } from './cycle-two.js';\n");
    write('test/a/dynamic.test.ts', "const { url } = await import('./helper.js');\n");
    write(
      'test/a/pure.test.ts',
      "import { x } from '../support/pure.js';\nimport { y } from '../../domain/y.js';\n",
    );
    write(
      'test/a/own-postgres.test.ts',
      "import { startEmbeddedPostgres } from '../../infra/db/embedded-postgres.js';\n",
    );
    // A unit file that replaces a module keeps modules of its own (spelt apart so this file is not one).
    const replace = ['vi.', 'mock'].join('');
    write('test/a/mocks.test.ts', `import { vi } from 'vitest';\n${replace}('node:crypto');\n`);
    write(
      'test/a/later-mock.test.ts',
      `${['vi.', 'doMock'].join('')}('../support/pure.js', () => ({ x: 2 }));\n`,
    );
    // A unit file that replaces a module but reaches the servers is an integration test all the same.
    write(
      'test/a/mocks-servers.test.ts',
      `import { url } from '../support/servers.js';\n${replace}('zod');\n`,
    );
    write('test/a/long.slow.test.ts', "import { x } from '../support/pure.js';\n");
    write('test/e2e/process.test.ts', "import { url } from '../support/servers.js';\n");
    // The servers are read only by what test support injects: an application module named alike is not followed.
    write('domain/y.ts', "import { inject } from 'vitest';\n");

    const files = testFilesUnder('test', root);
    expect(classifyTestFiles(files, root)).toEqual({
      unit: ['test/a/pure.test.ts'],
      'unit-isolated': ['test/a/later-mock.test.ts', 'test/a/mocks.test.ts'],
      integration: [
        'test/a/direct.test.ts',
        'test/a/dynamic.test.ts',
        'test/a/indirect.test.ts',
        'test/a/mocks-servers.test.ts',
        'test/a/own-postgres.test.ts',
        'test/a/through-cycle.test.ts',
      ],
      slow: ['test/a/long.slow.test.ts', 'test/e2e/process.test.ts'],
    });
  });

  test('reads every form of import and re-export, relative ones only', () => {
    const source = [
      "import a from './a.js';",
      "import type { B } from '../b.js';",
      "import { c,\n  d } from './c.js';",
      "import * as e from './e.js';",
      "import './side-effect.js';",
      "export { f } from './f.js';",
      "export * from './g.js';",
      "const h = await import('./h.js');",
      "import { z } from 'zod';",
      "import fs from 'node:fs';",
    ].join('\n');
    expect(relativeSpecifiers(source)).toEqual([
      './a.js',
      '../b.js',
      './c.js',
      './e.js',
      './side-effect.js',
      './f.js',
      './g.js',
      './h.js',
    ]);
  });
});
