// Post-group use cases called as the assistant-tool server will call them. The rules the route handlers held
// (which fields of a PATCH need which permission, tags and accounts of the workspace, settings given beside a
// draft's post kept in its platformPayload) now hold for every caller, and an assistant is narrowed by its scopes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  approvePostGroup,
  createDraftPost,
  createPostGroup,
  rejectPostGroup,
  updatePostGroup,
  type PostGroupUseCaseDeps,
} from '../../commands/post-groups/post-group-use-cases.js';
import { postGroupStream } from '../../commands/post-groups/post-group-commands.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { getPostGroupHistory } from '../../projections/post-groups/queries.js';
import { bestSlotFinder } from '../../projections/scheduling/best-slot-finder.js';
import { assistant, member, untouchable, writeRequest } from '../support/callers.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let deps: PostGroupUseCaseDeps;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  const { runtime } = service;
  deps = {
    postGroups: { ...runtime.commands, slotFinder: bestSlotFinder(runtime.readModels) },
    readModels: runtime.readModels,
    idempotency: runtime.idempotency,
  };
});
afterAll(async () => service.stop());

const draft = (title = 'Launch') => ({
  orgId: ws.orgId,
  title,
  posts: [{ platform: 'x' as const, contentText: 'We launch today', replySettings: 'following' as const }],
});

describe('drafts and groups', () => {
  test('an assistant with posts:write drafts for review; settings beside the post go to its platformPayload', async () => {
    const written = await createDraftPost(
      deps,
      assistant(ws, 'editor', ['posts:write']),
      draft(),
      writeRequest(),
    );
    const { group, posts } = written.output;
    expect(group.status).toBe('pending_approval');
    expect(posts[0]).toMatchObject({
      status: 'pending_approval',
      platformPayload: { replySettings: 'following' },
    });
    const events = await service.runtime.eventStore.readStream(postGroupStream(group.id));
    expect(events[0]!.metadata.actor).toBe('assistant:claude');
  });

  test('content problems name the field as the caller gave it', async () => {
    const input = {
      ...draft(),
      posts: [
        { platform: 'x' as const, contentText: 'Vote', poll: { options: ['only one'], durationMinutes: 60 } },
      ],
    };
    const refused = createDraftPost(deps, member(ws, 'editor'), input, writeRequest());
    await expect(refused).rejects.toBeInstanceOf(InvalidFields);
    await expect(refused).rejects.toMatchObject({
      details: [expect.objectContaining({ path: expect.stringMatching(/^posts\.0\.poll/) })],
    });
  });

  test('an assistant may not create a group that starts as a draft outside review', async () => {
    const refused = createPostGroup(
      untouchable(),
      assistant(ws, 'owner', ['posts:write']),
      draft(),
      writeRequest(),
    );
    await expect(refused).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  test("unknown tags and another workspace's accounts are refused, naming the field, before anything is written", async () => {
    const noWrites = {
      ...deps,
      postGroups: untouchable<PostGroupUseCaseDeps['postGroups']>(),
      idempotency: untouchable<PostGroupUseCaseDeps['idempotency']>(),
    };
    await expect(
      createPostGroup(noWrites, member(ws, 'editor'), { ...draft(), tagIds: [randomUUID()] }, writeRequest()),
    ).rejects.toMatchObject({ details: [{ path: 'tagIds.0', message: 'Unknown tag in this workspace' }] });
    const posts = [{ platform: 'x' as const, contentText: 'Hi', socialAccountId: randomUUID() }];
    await expect(
      createDraftPost(noWrites, member(ws, 'editor'), { ...draft(), posts }, writeRequest()),
    ).rejects.toMatchObject({ details: [{ path: 'posts.0.socialAccountId', message: expect.any(String) }] });
  });
});

describe('what a PATCH of a group needs depends on what it changes', () => {
  async function pendingGroup(): Promise<string> {
    return (await createDraftPost(deps, member(ws, 'editor'), draft(), writeRequest())).output.group.id;
  }

  test('a reviewer may approve through a PATCH but not edit; an editor may edit but not approve', async () => {
    const groupId = await pendingGroup();
    const ref = { orgId: ws.orgId, groupId };
    await expect(
      updatePostGroup(untouchable(), member(ws, 'reviewer'), { ...ref, title: 'New' }, writeRequest()),
    ).rejects.toMatchObject({ status: 403, message: 'Your role does not allow this action' });
    await expect(
      updatePostGroup(untouchable(), member(ws, 'editor'), { ...ref, status: 'approved' }, writeRequest()),
    ).rejects.toMatchObject({ status: 403 });
    const approved = await updatePostGroup(
      deps,
      member(ws, 'reviewer'),
      { ...ref, status: 'approved' },
      writeRequest(),
    );
    expect(approved.output.status).toBe('approved');
  });

  test('an assistant edits with posts:write, but approving through a PATCH also takes the posts:schedule scope', async () => {
    const groupId = await pendingGroup();
    const ref = { orgId: ws.orgId, groupId };
    const writer = assistant(ws, 'owner', ['posts:write']);
    const edited = await updatePostGroup(
      deps,
      writer,
      { ...ref, title: 'Edited by the assistant' },
      writeRequest(),
    );
    expect(edited.output.title).toBe('Edited by the assistant');
    await expect(
      updatePostGroup(untouchable(), writer, { ...ref, status: 'approved' }, writeRequest()),
    ).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
    const both = assistant(ws, 'owner', ['posts:write', 'posts:schedule']);
    // With the scope, an assistant still never approves what an assistant wrote (audit finding 15) ...
    await expect(
      updatePostGroup(deps, both, { ...ref, status: 'approved' }, writeRequest()),
    ).rejects.toMatchObject({ status: 403, code: 'assistant_cannot_approve_assistant_content' });
    // ... but approves, through a PATCH, a group a person wrote.
    const written = { orgId: ws.orgId, groupId: await pendingGroup() };
    const approved = await updatePostGroup(deps, both, { ...written, status: 'approved' }, writeRequest());
    expect(approved.output.status).toBe('approved');
    // The approval is the user's, given through their assistant: the trail names both.
    expect(approved.output.approvedBy).toBe(ws.userIds.owner);
    const history = await getPostGroupHistory(service.runtime.eventStore, member(ws, 'owner'), written);
    expect(history.entries.at(-1)).toMatchObject({
      action: 'approved',
      actor: { type: 'assistant', clientId: 'claude', userId: ws.userIds.owner },
    });
  });
});

test('approving takes the posts:schedule scope, rejecting posts:write (the spec’s tool scopes)', async () => {
  const groupId = (await createDraftPost(deps, member(ws, 'editor'), draft(), writeRequest())).output.group
    .id;
  const ref = { orgId: ws.orgId, groupId };
  await expect(
    approvePostGroup(untouchable(), assistant(ws, 'owner', ['posts:write']), ref, writeRequest()),
  ).rejects.toMatchObject({ code: 'insufficient_scope' });
  const rejected = await rejectPostGroup(
    deps,
    assistant(ws, 'reviewer', ['posts:write']),
    { ...ref, reason: 'not_my_voice' },
    writeRequest(),
  );
  expect(rejected.output.status).toBe('draft');
});
