// The import graph of the project's TypeScript files and its cycles, for tests that hold a folder's layering
// (test/domain/import-cycles.test.ts). Edges are static imports and re-exports (`import`, `import type`,
// `export … from`, side-effect `import '…'`); dynamic `import()` is not followed. Relative specifiers are resolved
// as NodeNext writes them (`./x.js` is `./x.ts`); bare specifiers (npm packages, `node:`) are kept as they are.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The repository root (paths in the graph are relative to it, with `/`). */
export const repoRoot = resolve(import.meta.dirname, '../..');

export interface ImportEdge {
  /** The importing file, e.g. `domain/tags/tags.ts`. */
  from: string;
  /** The imported file (`domain/tags/event-codec.ts`) or, for a bare specifier, the specifier (`zod`). */
  to: string;
  /** Whether `to` is a file of the repository (false for npm packages and node built-ins). */
  local: boolean;
}

/** Every `.ts` file under `folder` (relative to the repository root), with `/` separators. */
export function tsFilesUnder(folder: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
    });
  return walk(folder).sort();
}

/** The module specifiers a file imports or re-exports statically. */
export function staticSpecifiers(source: string, fileName = 'file.ts'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  for (const statement of file.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    )
      specifiers.push(statement.moduleSpecifier.text);
  }
  return specifiers;
}

/** Where a specifier imported by `from` (a repository path) leads: a repository path, or the bare specifier. */
export function resolveSpecifier(from: string, specifier: string): { to: string; local: boolean } {
  if (!specifier.startsWith('.')) return { to: specifier, local: false };
  const target = relative(repoRoot, resolve(repoRoot, dirname(from), specifier))
    .split(sep)
    .join('/');
  return { to: target.endsWith('.js') ? `${target.slice(0, -'.js'.length)}.ts` : target, local: true };
}

/** The import edges of the `.ts` files under `folder`, to anywhere. */
export function importEdges(folder: string): ImportEdge[] {
  return tsFilesUnder(folder).flatMap((from) =>
    staticSpecifiers(readFileSync(join(repoRoot, from), 'utf8'), from).map((specifier) => ({
      from,
      ...resolveSpecifier(from, specifier),
    })),
  );
}

/** Each file's imports, restricted to files in the graph. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The graph of the files under `folder` and their imports of each other (imports leaving the folder dropped). */
export function importGraph(folder: string): ImportGraph {
  const files = tsFilesUnder(folder);
  const inside = new Set(files);
  const graph = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const edge of importEdges(folder))
    if (edge.local && inside.has(edge.to) && !graph.get(edge.from)!.includes(edge.to))
      graph.get(edge.from)!.push(edge.to);
  return graph;
}

/**
 * The cycles of a graph: one per strongly connected component of more than one file (or a file importing
 * itself), given as its shortest cycle through the component's first file, e.g. `[a, b, a]`. An empty list means
 * the graph is acyclic. Components are found with Tarjan's algorithm (iteratively; graphs may be deep).
 */
export function importCycles(graph: ImportGraph): string[][] {
  return stronglyConnected(graph)
    .filter((component) => component.length > 1 || (graph.get(component[0]!) ?? []).includes(component[0]!))
    .map((component) => shortestCycle(graph, new Set(component), [...component].sort()[0]!));
}

/** The strongly connected components (each a list of files), in no particular order. */
export function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = graph.get(frame.node) ?? [];
      if (frame.edge < targets.length) {
        const target = targets[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target))
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

/** The shortest path from `start` back to itself inside `component` (breadth first). */
function shortestCycle(graph: ImportGraph, component: ReadonlySet<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const target of graph.get(node) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const back = [node];
        while (back[back.length - 1] !== start) back.push(previous.get(back[back.length - 1]!)!);
        return [...back.reverse(), start];
      }
      if (!previous.has(target) && target !== start) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}
