// domain/ is the bottom layer: its files import each other without cycles, and nothing outside domain/ but npm
// packages (and node built-ins). The import graph is read statically (test/support/import-graph.ts); no database.
import { expect, test } from 'vitest';
import {
  importCycles,
  importEdges,
  importGraph,
  resolveSpecifier,
  staticSpecifiers,
} from '../support/import-graph.js';

test('domain/ has no import cycle', () => {
  const cycles = importCycles(importGraph('domain'));
  expect(cycles.map((cycle) => cycle.join(' -> '))).toEqual([]);
});

test('domain/ imports nothing of the repository outside domain/', () => {
  const outside = importEdges('domain')
    .filter((edge) => edge.local && !edge.to.startsWith('domain/'))
    .map((edge) => `${edge.from} imports ${edge.to}`);
  expect(outside).toEqual([]);
});

test('the graph reader sees every kind of static import and finds a cycle', () => {
  const source = [
    "import { a } from './a.js';",
    "import type { B } from '../b.js';",
    "import './side-effect.js';",
    "export { c } from './c.js';",
    "export type { D } from './d.js';",
    "export * from './e.js';",
    "import { z } from 'zod';",
    "const later = await import('./dynamic.js');",
  ].join('\n');
  expect(staticSpecifiers(source)).toEqual([
    './a.js',
    '../b.js',
    './side-effect.js',
    './c.js',
    './d.js',
    './e.js',
    'zod',
  ]);
  expect(resolveSpecifier('domain/tags/tags.ts', './event-codec.js')).toEqual({
    to: 'domain/tags/event-codec.ts',
    local: true,
  });
  expect(resolveSpecifier('domain/brand/kit-fields.ts', '../../infra/visuals/contract.js')).toEqual({
    to: 'infra/visuals/contract.ts',
    local: true,
  });
  expect(resolveSpecifier('domain/tags/tags.ts', 'zod')).toEqual({ to: 'zod', local: false });

  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts', 'd.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', []],
    ['e.ts', ['e.ts']],
  ]);
  expect(importCycles(graph)).toEqual(
    expect.arrayContaining([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['e.ts', 'e.ts'],
    ]),
  );
  expect(importCycles(graph)).toHaveLength(2);
  expect(
    importCycles(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', []],
      ]),
    ),
  ).toEqual([]);
});
