// The post-group reads as the assistant-tool server will call them: list_posts (the page typed, and the same page
// as stored JSON for the REST answer), the calendar, one group, and its history (audit:read): every one checks the
// caller's workspace and permission; mcp:read, which every assistant connection has, is their scope.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createPostGroup } from '../../commands/post-groups/post-group-use-cases.js';
import { bestSlotFinder } from '../../projections/scheduling/best-slot-finder.js';
import {
  getPostGroup,
  getPostGroupHistory,
  listPosts,
  listPostsJson,
  listSchedulerEvents,
} from '../../projections/post-groups/queries.js';
import { assistant, member, untouchable, writeRequest } from '../support/callers.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let groupId: string;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  const { runtime } = service;
  const deps = {
    postGroups: { ...runtime.commands, slotFinder: bestSlotFinder(runtime.readModels) },
    readModels: runtime.readModels,
    idempotency: runtime.idempotency,
  };
  const created = await createPostGroup(
    deps,
    member(ws, 'owner'),
    {
      orgId: ws.orgId,
      title: 'Launch',
      scheduledFor: new Date(Date.now() + 86_400_000).toISOString(),
      posts: [
        { platform: 'x', contentText: 'One' },
        { platform: 'linkedin', contentText: 'Two' },
      ],
    },
    writeRequest(),
  );
  groupId = created.output.group.id;
});
afterAll(async () => service.stop());

const query = { sortBy: 'createdAt' as const, sortDir: 'desc' as const, limit: 1, offset: 0, filters: [] };

test('list_posts: a page for an assistant with mcp:read; the stored-JSON page is the same page', async () => {
  const db = service.runtime.readModels;
  const caller = assistant(ws, 'viewer');
  const page = await listPosts(db, caller, { orgId: ws.orgId, page: 1, ...query });
  expect(page).toMatchObject({ page: 1, limit: 1, total: 2, hasMore: true });
  expect(page.items).toHaveLength(1);
  const asJson = await listPostsJson(db, caller, { orgId: ws.orgId, page: 1, ...query });
  expect({ ...asJson, items: asJson.items.map((item) => JSON.parse(item) as unknown) }).toEqual(page);
});

test('the calendar and one group, for a viewer', async () => {
  const db = service.runtime.readModels;
  const caller = member(ws, 'viewer');
  expect(await listSchedulerEvents(db, caller, { orgId: ws.orgId, ...query, limit: 10 })).toHaveLength(0);
  const found = await getPostGroup(db, caller, { orgId: ws.orgId, groupId });
  expect(found.posts.map((p) => p.contentText)).toEqual(['One', 'Two']);
});

test('another workspace is refused before anything is read', async () => {
  const elsewhere = { ...member(ws, 'owner'), orgId: '00000000-0000-4000-8000-000000000000' };
  await expect(
    listPosts(untouchable(), elsewhere, { orgId: ws.orgId, page: 1, ...query }),
  ).rejects.toMatchObject({
    status: 403,
  });
  await expect(getPostGroup(untouchable(), elsewhere, { orgId: ws.orgId, groupId })).rejects.toMatchObject({
    status: 403,
  });
});

test("the history is for audit:read (an owner's assistant), not for an editor", async () => {
  const { eventStore } = service.runtime;
  const history = await getPostGroupHistory(eventStore, assistant(ws, 'owner'), { orgId: ws.orgId, groupId });
  expect(history).toMatchObject({
    groupId,
    revision: 0,
    asOf: null,
    group: { id: groupId, title: 'Launch' },
  });
  await expect(
    getPostGroupHistory(untouchable(), member(ws, 'editor'), { orgId: ws.orgId, groupId }),
  ).rejects.toMatchObject({ status: 403 });
});
