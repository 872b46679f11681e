// Tag use cases called as the assistant-tool server will call them: an assistant with posts:write writes tags
// (its events name it), without that scope or in another workspace it is refused before anything is read.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTag, deleteTag, updateTag } from '../../commands/tags/tag-use-cases.js';
import { workspaceTagsStream } from '../../commands/tags/tag-commands.js';
import { Forbidden } from '../../domain/shared/errors.js';
import { listTags } from '../../projections/tags/queries.js';
import { assistant, member, untouchable, writeRequest } from '../support/callers.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
});
afterAll(async () => service.stop());

test('an assistant with posts:write creates, renames and deletes a tag; the events name it', async () => {
  const deps = service.runtime;
  const caller = assistant(ws, 'editor', ['posts:write']);
  const created = await createTag(deps, caller, { orgId: ws.orgId, name: 'Launch' }, writeRequest());
  expect(created.output).toMatchObject({ orgId: ws.orgId, name: 'Launch', color: null });
  expect(await listTags(deps.readModels, caller, { orgId: ws.orgId })).toEqual([created.output]);

  const input = { orgId: ws.orgId, tagId: created.output.id };
  const renamed = await updateTag(deps, caller, { ...input, changes: { name: 'Go live' } }, writeRequest());
  expect(renamed.output.name).toBe('Go live');
  expect((await deleteTag(deps, caller, input, writeRequest())).output.name).toBe('Go live');

  const events = await deps.eventStore.readStream(workspaceTagsStream(ws.orgId));
  expect(events.map((e) => e.metadata.actor)).toEqual([
    'assistant:claude',
    'assistant:claude',
    'assistant:claude',
  ]);
});

test('without posts:write an assistant is refused (insufficient_scope), before anything is read', async () => {
  const caller = assistant(ws, 'owner');
  const refused = createTag(untouchable(), caller, { orgId: ws.orgId, name: 'x' }, writeRequest('k'));
  await expect(refused).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
  // Reading needs mcp:read only, which every connection has.
  await expect(listTags(service.runtime.readModels, caller, { orgId: ws.orgId })).resolves.toEqual(
    expect.any(Array),
  );
});

test("a role without posts:draft, or another workspace's tags, is a 403 whatever the scopes", async () => {
  const viewer = assistant(ws, 'viewer', ['posts:write']);
  await expect(
    createTag(untouchable(), viewer, { orgId: ws.orgId, name: 'x' }, writeRequest()),
  ).rejects.toBeInstanceOf(Forbidden);
  const elsewhere = { ...member(ws, 'owner'), orgId: '00000000-0000-4000-8000-000000000000' };
  await expect(listTags(untouchable(), elsewhere, { orgId: ws.orgId })).rejects.toBeInstanceOf(Forbidden);
});
