// api/ and the whole service import without cycles (issue 25: 77 files of api/ were one loop, through the slice
// module's type imports of the runtime and the app), and the layers point one way: nothing below api/ imports it,
// and infra/ imports no use case, read model or process. Read statically (test/support/import-graph.ts).
import { expect, test } from 'vitest';
import { importCycles, importEdges, importGraph, tsFilesUnder } from '../support/import-graph.js';

const layers = ['domain', 'commands', 'projections', 'processes', 'infra', 'api'] as const;

test('api/ has no import cycle', () => {
  expect(importCycles(importGraph('api')).map((cycle) => cycle.join(' -> '))).toEqual([]);
});

test('the service as a whole has no import cycle, across its folders either', () => {
  const files = new Set(layers.flatMap((layer) => tsFilesUnder(layer)));
  const graph = new Map<string, string[]>([...files].map((f) => [f, []]));
  for (const layer of layers)
    for (const edge of importEdges(layer))
      if (edge.local && files.has(edge.to) && !graph.get(edge.from)!.includes(edge.to))
        graph.get(edge.from)!.push(edge.to);
  expect(graph.size).toBeGreaterThan(300);
  expect(importCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
});

test('the layers point one way: nothing below api/ imports it; infra/ imports no use case, read model or process', () => {
  const wrong = (from: string, to: readonly string[]) =>
    importEdges(from)
      .filter((edge) => edge.local && to.some((folder) => edge.to.startsWith(`${folder}/`)))
      .map((edge) => `${edge.from} imports ${edge.to}`);
  for (const layer of ['commands', 'projections', 'processes', 'infra'])
    expect(wrong(layer, ['api'])).toEqual([]);
  expect(wrong('infra', ['commands', 'projections', 'processes'])).toEqual([]);
});
