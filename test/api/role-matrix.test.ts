// The role matrix (docs/decisions.md, "Role matrix", table "By endpoint") against the service: every
// workspace-scoped operation of the service's own OpenAPI document is called with each role, and answers 403
// exactly where the table has no ✓; each declared operation's permission (api/slices.ts's `operations`) grants
// the roles the table ticks. The table must list every such operation and nothing else, so a new endpoint cannot
// land without its row.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { operations as declared } from '../../api/slices.js';
import { permissionsOf, roles, type Permission, type Role } from '../../domain/workspaces/roles.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

type Matrix = Map<string, Set<Role>>;

/** The rows of the table under "### By endpoint" in the "Role matrix" section: `METHOD /path` → roles with ✓. */
async function documentedMatrix(): Promise<Matrix> {
  const text = await readFile(new URL('../../docs/decisions.md', import.meta.url), 'utf8');
  const section = text.split(/^## /m).find((s) => s.startsWith('Role matrix'));
  if (!section) throw new Error('docs/decisions.md has no "Role matrix" section');
  const table = section.split(/^### /m).find((s) => s.startsWith('By endpoint'));
  if (!table) throw new Error('the Role matrix section has no "By endpoint" table');
  const lines = table.split('\n').filter((l) => l.startsWith('|'));
  const header = lines[0]!.split('|').map((c) => c.trim());
  const roleColumns = roles.map((r) => header.indexOf(r));
  if (roleColumns.some((i) => i < 0))
    throw new Error(`the table's columns must name every role: ${roles.join(', ')}`);
  const matrix: Matrix = new Map();
  for (const line of lines.slice(2)) {
    const cells = line.split('|').map((c) => c.trim());
    const endpoint = /^`([A-Z]+ [^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!endpoint) throw new Error(`unreadable row: ${line}`);
    if (matrix.has(endpoint)) throw new Error(`${endpoint} is listed twice`);
    matrix.set(endpoint, new Set(roles.filter((_, i) => cells[roleColumns[i]!] === '✓')));
  }
  return matrix;
}

interface Operation {
  method: string;
  path: string;
  hasBody: boolean;
}

async function workspaceOperations(): Promise<Operation[]> {
  const doc = (await (await service.request('GET', '/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, { requestBody?: unknown }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    path.startsWith('/v1/orgs/{orgId}')
      ? Object.entries(ops).map(([method, op]) => ({
          method: method.toUpperCase(),
          path,
          hasBody: op.requestBody !== undefined,
        }))
      : [],
  );
}

/** The request: the workspace's id, a random id for every other parameter (`x` for a platform), `{}` as body. */
function concretePath(path: string, orgId: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === 'orgId' ? orgId : name === 'platform' ? 'x' : randomUUID(),
  );
}

describe('role matrix', () => {
  let matrix: Matrix;
  let operations: Operation[];
  let ws: TestWorkspace;
  beforeAll(async () => {
    matrix = await documentedMatrix();
    operations = await workspaceOperations();
    ws = await createTestWorkspace(service, 'Matrix');
  });

  test('the table lists exactly the workspace-scoped operations the service has', () => {
    const served = operations.map((o) => `${o.method} ${o.path}`).sort();
    expect([...matrix.keys()].sort()).toEqual(served);
  });

  test("each declared operation's permission grants the roles the table ticks (the same roles, or more where the use case decides by the input)", () => {
    const mismatches: string[] = [];
    for (const op of declared) {
      const permission = op.access.permission;
      if (op.access.workspace === false || permission === undefined) continue;
      const key = `${op.method.toUpperCase()} ${op.path}`;
      const ticked = [...(matrix.get(key) ?? [])].sort();
      const anyOf: readonly Permission[] = typeof permission === 'string' ? [permission] : permission;
      const granted = roles.filter((role) => anyOf.some((p) => permissionsOf(role).includes(p))).sort();
      const fits =
        typeof permission === 'string'
          ? granted.join() === ticked.join()
          : ticked.every((role) => granted.includes(role));
      if (!fits)
        mismatches.push(`${op.name} (${key}): declared ${granted.join('/')}, table ${ticked.join('/')}`);
    }
    expect(mismatches).toEqual([]);
  });

  test('each role is refused (403) exactly where the table has no ✓', async () => {
    const actual: string[] = [];
    const expected: string[] = [];
    // Deleting the workspace goes last, and by the owner last of all, so it does not end the others' calls.
    const ordered = [...operations].sort(
      (a, b) => Number(isWorkspaceDelete(a)) - Number(isWorkspaceDelete(b)),
    );
    for (const op of ordered) {
      const key = `${op.method} ${op.path}`;
      const allowed = matrix.get(key) ?? new Set<Role>();
      for (const role of [...roles].reverse()) {
        const res = await service.request(op.method, concretePath(op.path, ws.orgId), {
          token: ws.tokens[role],
          ...(op.hasBody ? { body: {} } : {}),
        });
        expect(res.status, `${role} ${key}`).not.toBe(401);
        actual.push(`${key} ${role}: ${res.status === 403 ? 'refused' : 'allowed'}`);
        expected.push(`${key} ${role}: ${allowed.has(role) ? 'allowed' : 'refused'}`);
      }
    }
    expect(actual).toEqual(expected);
  });
});

function isWorkspaceDelete(op: Operation): boolean {
  return op.method === 'DELETE' && op.path === '/v1/orgs/{orgId}';
}
