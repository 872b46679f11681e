// delete_x_post as the assistant-tool server will call it: the posts:delete scope and the role's posts:delete
// are both needed (refused before anything is read); with both, an unsent post is taken off the schedule.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postGroupStream } from '../../commands/post-groups/post-group-commands.js';
import { deleteXPost, type DeleteXPostDeps } from '../../commands/x-posts/delete-x-post.js';
import type { PostView } from '../../domain/post-groups/views.js';
import { bestSlotFinder } from '../../projections/scheduling/best-slot-finder.js';
import { assistant, untouchable, writeRequest } from '../support/callers.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let deps: DeleteXPostDeps;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  const { runtime } = service;
  deps = {
    postGroups: { ...runtime.commands, slotFinder: bestSlotFinder(runtime.readModels) },
    readModels: runtime.readModels,
    accounts: runtime.accounts,
    connectors: runtime.connectors,
    idempotency: runtime.idempotency,
  };
});
afterAll(async () => service.stop());

test('an assistant with posts:delete, acting for an owner, takes an unsent X post off the schedule', async () => {
  const res = await service.request('POST', `${ws.base}/post-groups`, {
    token: ws.tokens.owner,
    body: { title: 'T', posts: [{ platform: 'x', contentText: 'Soon' }] },
  });
  const { group, posts } = ((await res.json()) as { data: { group: { id: string }; posts: PostView[] } })
    .data;
  const postId = posts[0]!.id;

  const caller = assistant(ws, 'owner', ['posts:delete']);
  const input = { orgId: ws.orgId, target: { postId }, socialAccountId: null };
  const written = await deleteXPost(deps, caller, input, writeRequest());
  expect(written.output).toMatchObject({ outcome: 'removed_from_schedule', postId, warnings: [] });
  const events = await service.runtime.eventStore.readStream(postGroupStream(group.id));
  expect(events.at(-1)!.metadata.actor).toBe('assistant:claude');
});

test('without the posts:delete scope, or with a role that may not delete, the assistant is refused', async () => {
  const input = { orgId: ws.orgId, target: { postUrl: 'https://x.com/a/status/1' }, socialAccountId: null };
  await expect(
    deleteXPost(untouchable(), assistant(ws, 'owner', ['posts:write']), input, writeRequest()),
  ).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
  await expect(
    deleteXPost(untouchable(), assistant(ws, 'editor', ['posts:delete']), input, writeRequest()),
  ).rejects.toMatchObject({ status: 403, message: 'Your role does not allow this action' });
});
