// Post use cases with assistant callers: what a post PATCH needs depends on what it changes (content takes
// posts:write, approving also the posts:schedule scope), and post_now (the posts:publish scope) waits for the
// attempt's outcome, which a replay with the same key answers again.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  approvePostGroup,
  createPostGroup,
  postNow,
  updatePost,
  type PostGroupUseCaseDeps,
} from '../../commands/post-groups/post-group-use-cases.js';
import { bestSlotFinder } from '../../projections/scheduling/best-slot-finder.js';
import { assistant, member, untouchable, writeRequest } from '../support/callers.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { connectSandboxAccount } from '../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let deps: PostGroupUseCaseDeps & { postNowWaitMs: number };

beforeAll(async () => {
  service = await startTestService({ env: { PUBLISH_SWEEP_INTERVAL_MS: '50' } });
  ws = await createTestWorkspace(service);
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
  const { runtime } = service;
  deps = {
    postGroups: { ...runtime.commands, slotFinder: bestSlotFinder(runtime.readModels) },
    readModels: runtime.readModels,
    idempotency: runtime.idempotency,
    postNowWaitMs: 20_000,
  };
});
afterAll(async () => service.stop());

/** A new X post of the workspace, approved (without a slot) when asked. */
async function newPost(approved = false) {
  const owner = member(ws, 'owner');
  const created = await createPostGroup(
    deps,
    owner,
    { orgId: ws.orgId, title: 'T', posts: [{ platform: 'x', contentText: `Hello ${randomUUID()}` }] },
    writeRequest(),
  );
  const groupId = created.output.group.id;
  if (approved)
    await approvePostGroup(deps, owner, { orgId: ws.orgId, groupId, autoSchedule: false }, writeRequest());
  return { orgId: ws.orgId, postId: created.output.posts[0]!.id };
}

describe('update_post', () => {
  test('an assistant with posts:write edits the content; approving it also takes the posts:schedule scope', async () => {
    const ref = await newPost();
    const writer = assistant(ws, 'owner', ['posts:write']);
    const edited = await updatePost(deps, writer, { ...ref, contentText: 'Edited' }, writeRequest());
    expect(edited.output.contentText).toBe('Edited');
    await expect(
      updatePost(untouchable(), writer, { ...ref, status: 'approved' }, writeRequest()),
    ).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
    const approver = assistant(ws, 'reviewer', ['posts:write', 'posts:schedule']);
    // With the scope, an assistant still never approves what an assistant wrote (audit finding 15) ...
    await expect(
      updatePost(deps, approver, { ...ref, status: 'approved' }, writeRequest()),
    ).rejects.toMatchObject({ status: 403, code: 'assistant_cannot_approve_assistant_content' });
    // ... but approves what a person wrote.
    const written = await newPost();
    const approved = await updatePost(deps, approver, { ...written, status: 'approved' }, writeRequest());
    expect(approved.output.status).toBe('approved');
  });

  test("a reviewer's content edit or an editor's approval is refused before anything is read", async () => {
    const ref = { orgId: ws.orgId, postId: randomUUID() };
    await expect(
      updatePost(untouchable(), member(ws, 'reviewer'), { ...ref, contentText: 'x' }, writeRequest()),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      updatePost(untouchable(), member(ws, 'editor'), { ...ref, status: 'approved' }, writeRequest()),
    ).rejects.toMatchObject({ status: 403 });
    await expect(updatePost(untouchable(), member(ws, 'viewer'), ref, writeRequest())).rejects.toMatchObject({
      status: 403,
    });
  });
});

describe('post_now', () => {
  test('takes the posts:publish scope', async () => {
    const ref = { orgId: ws.orgId, postId: randomUUID() };
    await expect(
      postNow(untouchable(), assistant(ws, 'owner', ['posts:write', 'posts:schedule']), ref, writeRequest()),
    ).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  test('answers the outcome of the attempt; a replay with the key answers it again without publishing', async () => {
    const ref = await newPost(true);
    const caller = assistant(ws, 'owner', ['posts:publish']);
    const key = randomUUID();
    const first = await postNow(deps, caller, ref, writeRequest(key));
    expect(first).toMatchObject({ replayed: false, output: { id: ref.postId, status: 'published' } });
    // No command runs for a replay: the write path is out of reach.
    const replay = await postNow({ ...deps, postGroups: untouchable() }, caller, ref, writeRequest(key));
    expect(replay.output.status).toBe('published');
    expect(replay).toEqual({ ...first, replayed: true });
  });
});
