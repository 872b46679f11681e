// The repository root (the folder holding package.json), found from this module's own place so that a file kept in
// the repository (config/billing.json) is found the same from the sources (infra/config/) and from the build
// (dist/infra/config/).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const projectRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** A path inside the repository, from its root. */
export function projectFile(...segments: string[]): string {
  return path.join(projectRoot, ...segments);
}
