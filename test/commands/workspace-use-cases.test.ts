// Workspace use cases with both kinds of caller: a member creates a workspace and owns it, an assistant lists
// its user's workspaces but may not create one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createWorkspace } from '../../commands/workspaces/workspace-use-cases.js';
import type { Caller } from '../../domain/shared/caller.js';
import { listWorkspaces } from '../../projections/workspaces/queries.js';
import { untouchable, writeRequest } from '../support/callers.js';
import { startTestService, type TestService } from '../support/runtime.js';

let service: TestService;
let user: Caller;

beforeAll(async () => {
  service = await startTestService();
  const { userId } = await service.userToken();
  user = { kind: 'user', userId, orgId: null, role: null, permissions: [] };
});
afterAll(async () => service.stop());

const everything = { limit: 100, offset: 0, sortDir: 'asc' as const, filters: [] };

test("a member creates a workspace and owns it; their assistant lists it with the user's role", async () => {
  const slug = `ws-${randomUUID().slice(0, 8)}`;
  const written = await createWorkspace(service.runtime, user, { name: 'Acme', slug }, writeRequest());
  expect(written.output).toMatchObject({ slug, name: 'Acme', status: 'active', ownerId: user.userId });
  const assistant: Caller = {
    ...user,
    kind: 'assistant',
    clientId: 'claude',
    clientName: 'Claude',
    connectionId: '00000000-0000-4000-8000-00000000c0c0',
    scopes: ['mcp:read'],
  };
  expect(await listWorkspaces(service.runtime.readModels, assistant, everything)).toEqual([
    {
      id: written.output.id,
      slug,
      name: 'Acme',
      status: 'active',
      avatarUrl: null,
      role: 'owner',
      roleName: 'Owner',
    },
  ]);
});

test('an assistant may not create a workspace', async () => {
  const assistant: Caller = {
    ...user,
    kind: 'assistant',
    clientId: 'claude',
    clientName: 'Claude',
    connectionId: '00000000-0000-4000-8000-00000000c0c0',
    scopes: ['mcp:read', 'posts:write'],
  };
  await expect(
    createWorkspace(untouchable(), assistant, { name: 'X', slug: 'x' }, writeRequest()),
  ).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
});
