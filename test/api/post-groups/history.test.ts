// GET ORG/marketing/post-groups/{groupId}/history, the auditors' approval trail replayed from the group's
// stream: entries with revision, time, actor, action, level, post, reason, note and content hash; the group and
// its posts exactly as they stood at `?revision=N` or `?asOf=<ts>`; the same after a projection rebuild and
// after a restart of the service on the same database.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rebuildProjection } from '../../../projections/engine/rebuild.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  badRequestPaths,
  byId,
  data,
  failure,
  sha256Pattern,
  sleep,
  twoPlatformDraft,
  workspaceClient,
  type AuditEntry,
  type Group,
  type GroupWithPosts,
  type History,
  type Post,
  type WorkspaceClient,
} from './support.js';

let database: TestDatabase<unknown>;
let dataDir: string;
let service: TestService;
let ws: TestWorkspace;
let api: WorkspaceClient;

/** What the API answered at each step of the story, and the stream revision right after it. */
interface Snapshot {
  revision: number;
  group: Group;
  posts: Post[];
}
const at: Record<
  'drafted' | 'approved' | 'retitled' | 'reapproved' | 'postEdited' | 'rejected' | 'final',
  Snapshot
> = {} as never;
let groupId: string;
let xPostId: string;
let linkedinPostId: string;

async function snapshot(): Promise<Snapshot> {
  const { group, posts } = await api.get(groupId);
  const { revision } = await api.history(groupId);
  return { revision, group, posts };
}

beforeAll(async () => {
  // The database and data directory outlive the first service, so a second one can start on them.
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-history-'));
  service = await startTestService({ database, dataDir });
  ws = await createTestWorkspace(service);
  api = workspaceClient(service, ws);

  // The story: drafted by an editor, approved, retitled (approval withdrawn), approved again, the X text edited
  // (its approval withdrawn), rejected with a reason, approved and scheduled.
  const drafted: GroupWithPosts = await api.draft(twoPlatformDraft('Audit me'));
  groupId = drafted.group.id;
  xPostId = drafted.posts.find((p) => p.platform === 'x')!.id;
  linkedinPostId = drafted.posts.find((p) => p.platform === 'linkedin')!.id;
  at.drafted = await snapshot();
  expect(at.drafted.group).toEqual(drafted.group);

  const approved = await api.approve(groupId, { autoSchedule: false });
  at.approved = await snapshot();
  expect(at.approved.group).toEqual(approved);
  await sleep(5);

  const retitled = await api.patch(groupId, { title: 'Audit me, retitled' }, 'editor');
  at.retitled = await snapshot();
  expect(at.retitled.group).toEqual(retitled);
  await sleep(5);

  await api.approve(groupId, { autoSchedule: false }, 'admin');
  at.reapproved = await snapshot();
  await sleep(5);

  const edited = await data<Post>(
    await api.call('PATCH', `/posts/${xPostId}`, { as: 'editor', body: { contentText: 'Edited X text' } }),
  );
  expect(edited.status).toBe('pending_approval');
  at.postEdited = await snapshot();
  await sleep(5);

  await api.reject(groupId, { reason: 'not_my_voice', note: 'Sounds like a robot' });
  at.rejected = await snapshot();
  await sleep(5);

  await api.approve(groupId, { scheduledForUtc: new Date(Date.now() + 7_200_000).toISOString() });
  at.final = await snapshot();
  expect(at.final.group.status).toBe('scheduled');
});

afterAll(async () => {
  await service.stop();
  await database.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const user = (id: string) => ({ type: 'user', userId: id });

describe('the trail', () => {
  let history: History;
  beforeAll(async () => {
    history = await api.history(groupId);
  });

  test('every submission, approval, re-approval and rejection, in order, with who, why and what', () => {
    expect(history.groupId).toBe(groupId);
    expect(history.revision).toBe(at.final.revision);
    expect(history.asOf).toBeNull();
    const rows = history.entries.map((e) => [e.action, e.level, e.postId, e.cause, e.reason, e.note]);
    expect(rows).toEqual([
      ['submit_for_approval', 'group', null, 'created', null, null],
      ['approved', 'group', null, null, null, null],
      ['submit_for_approval', 'group', null, 'group_edited', null, null],
      ['reapproved', 'group', null, null, null, null],
      ['submit_for_approval', 'post', xPostId, 'post_edited', null, null],
      ['rejected', 'group', null, null, 'not_my_voice', 'Sounds like a robot'],
      ['reapproved', 'group', null, null, null, null],
    ]);
    expect(history.entries.map((e) => e.actor)).toEqual([
      user(ws.userIds.editor),
      user(ws.userIds.reviewer),
      user(ws.userIds.editor),
      user(ws.userIds.admin),
      user(ws.userIds.editor),
      user(ws.userIds.reviewer),
      user(ws.userIds.reviewer),
    ]);
    // Revisions and times: each entry at the revision its step ended on, times matching the answers.
    expect(history.entries.map((e) => e.revision)).toEqual([
      at.drafted.revision,
      at.approved.revision,
      at.retitled.revision,
      at.reapproved.revision,
      at.postEdited.revision,
      at.rejected.revision - 1, // the rejection, then its preference signal
      expect.any(Number),
    ]);
    const [submitted, approved, resubmitted, reapproved, postEdited, rejected, final] = history.entries as [
      AuditEntry,
      AuditEntry,
      AuditEntry,
      AuditEntry,
      AuditEntry,
      AuditEntry,
      AuditEntry,
    ];
    expect(submitted.occurredAt).toBe(at.drafted.group.createdAt);
    expect(approved.occurredAt).toBe(at.approved.group.approvedAt);
    expect(resubmitted.occurredAt).toBe(at.retitled.group.updatedAt);
    expect(reapproved.occurredAt).toBe(at.reapproved.group.approvedAt);
    expect(final.occurredAt).toBe(at.final.group.approvedAt);
    expect(final.revision).toBeGreaterThan(at.rejected.revision);
    expect(final.revision).toBeLessThanOrEqual(at.final.revision);
    // The records on the group are the trail's approvals, one for one.
    expect(at.final.group.approvals.map((a) => [a.action, a.level, a.postId, a.approvedAt])).toEqual(
      history.entries.map((e) => [e.action, e.level, e.postId, e.occurredAt]),
    );

    // Hashes: sha256 strings; an approval binds the hash that was submitted while the content did not change.
    for (const e of history.entries) {
      expect(e.contentHash).toMatch(sha256Pattern);
      for (const p of e.posts) expect(p.contentHash).toMatch(sha256Pattern);
    }
    expect(submitted.posts.map((p) => p.postId).sort()).toEqual([xPostId, linkedinPostId].sort());
    expect(approved.contentHash).toBe(submitted.contentHash);
    expect(approved.posts).toEqual(submitted.posts);
    // Retitling changes no post's content: the re-submission and re-approval carry the same hash.
    expect(resubmitted.contentHash).toBe(submitted.contentHash);
    expect(reapproved.contentHash).toBe(submitted.contentHash);
    // Editing the X text changes its hash, and so the hash of the group's final approval.
    const xBefore = submitted.posts.find((p) => p.postId === xPostId)!.contentHash;
    const linkedinBefore = submitted.posts.find((p) => p.postId === linkedinPostId)!.contentHash;
    expect(postEdited.posts).toEqual([{ postId: xPostId, contentHash: postEdited.contentHash }]);
    expect(postEdited.contentHash).not.toBe(xBefore);
    expect(rejected.contentHash).toBe(final.contentHash);
    expect(final.contentHash).not.toBe(approved.contentHash);
    expect(byId(final.posts.map((p) => ({ id: p.postId, ...p })))).toEqual(
      byId([
        { id: xPostId, postId: xPostId, contentHash: postEdited.contentHash },
        { id: linkedinPostId, postId: linkedinPostId, contentHash: linkedinBefore },
      ]),
    );
  });

  test('admins read the same trail as owners', async () => {
    expect(await api.history(groupId, '', 'admin')).toEqual(history);
  });
});

describe('the group as it stood', () => {
  const steps = ['drafted', 'approved', 'retitled', 'reapproved', 'postEdited', 'rejected', 'final'] as const;

  for (const step of steps) {
    test(`?revision at "${step}" answers the group and posts seen then`, async () => {
      const s = at[step];
      const then = await api.history(groupId, `?revision=${s.revision}`);
      expect(then.revision).toBe(s.revision);
      expect(then.asOf).toBeNull();
      expect(then.group).toEqual(s.group);
      expect(byId(then.posts)).toEqual(byId(s.posts));
      expect(then.entries.every((e) => e.revision <= s.revision)).toBe(true);
      expect(then.entries).toEqual(
        (await api.history(groupId)).entries.filter((e) => e.revision <= s.revision),
      );
    });
  }

  test('after approval vs after the later edit: approved then, pending now (approval withdrawn)', async () => {
    const approved = await api.history(groupId, `?revision=${at.approved.revision}`);
    const retitled = await api.history(groupId, `?revision=${at.retitled.revision}`);
    expect(approved.group).toMatchObject({
      title: 'Audit me',
      status: 'approved',
      approvedBy: ws.userIds.reviewer,
    });
    expect(approved.posts.map((p) => p.status)).toEqual(['approved', 'approved']);
    expect(retitled.group).toMatchObject({
      title: 'Audit me, retitled',
      status: 'pending_approval',
      approvedBy: null,
      approvedAt: null,
    });
    expect(retitled.posts.map((p) => p.status)).toEqual(['pending_approval', 'pending_approval']);
  });

  test('revision 0 is the created group, before it was submitted', async () => {
    const created = await api.history(groupId, '?revision=0');
    expect(created.entries).toEqual([]);
    expect(created.group).toMatchObject({ status: 'draft', approvals: [], title: 'Audit me' });
    expect(created.posts.map((p) => p.status)).toEqual(['draft', 'draft']);
  });

  for (const step of ['drafted', 'approved', 'retitled', 'rejected'] as const) {
    test(`?asOf at the time of "${step}" answers the group and posts seen then`, async () => {
      const s = at[step];
      const asOf = s.group.updatedAt;
      const then = await api.history(groupId, `?asOf=${encodeURIComponent(asOf)}`);
      expect(then.asOf).toBe(asOf);
      expect(then.revision).toBe(s.revision);
      expect(then.group).toEqual(s.group);
      expect(byId(then.posts)).toEqual(byId(s.posts));
    });
  }

  test('?asOf with an offset is read as the same instant; after the last event is the present', async () => {
    const asOf = new Date(Date.parse(at.approved.group.updatedAt));
    const plusTwo = new Date(asOf.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const then = await api.history(groupId, `?asOf=${encodeURIComponent(plusTwo)}`);
    expect(then.group).toEqual(at.approved.group);
    const now = await api.history(groupId, `?asOf=${encodeURIComponent(new Date().toISOString())}`);
    expect(now.revision).toBe(at.final.revision);
    expect(now.group).toEqual(at.final.group);
  });

  test('?asOf before the group existed is a 404', async () => {
    const before = new Date(Date.parse(at.drafted.group.createdAt) - 60_000).toISOString();
    await failure(await api.call('GET', `/post-groups/${groupId}/history?asOf=${before}`), 404);
  });
});

describe('bad queries: 400 naming the field, nothing appended', () => {
  const cases: Array<[string, string, string[]]> = [
    ['both revision and asOf', '?revision=1&asOf=2026-01-01T00:00:00Z', ['query.asOf']],
    ['a revision beyond the stream', '?revision=999', ['query.revision']],
    ['a negative revision', '?revision=-1', ['query.revision']],
    ['a revision that is not a number', '?revision=latest', ['query.revision']],
    ['an asOf that is not a timestamp', '?asOf=yesterday', ['query.asOf']],
    ['an unknown query parameter', '?version=1', ['query.version']],
  ];
  for (const [name, query, paths] of cases) {
    test(name, async () => {
      const before = await eventCount(service);
      const res = await api.call('GET', `/post-groups/${groupId}/history${query}`);
      expect(await badRequestPaths(res)).toEqual(paths);
      expect(await eventCount(service)).toBe(before);
    });
  }

  test('a group id that is not a uuid', async () => {
    expect(await badRequestPaths(await api.call('GET', '/post-groups/abc/history'))).toEqual([
      'param.groupId',
    ]);
  });
});

describe('durable: the same answers after a projection rebuild and after a restart', () => {
  test('projections rebuild post_groups', async () => {
    const trail = await api.history(groupId);
    const group = await api.get(groupId);
    const listed = await api.posts();
    const { runtime } = service;
    const result = await rebuildProjection(
      {
        db: runtime.database.db,
        eventStore: runtime.eventStore,
        projections: runtime.projections,
        logger: runtime.logger,
      },
      'post_groups',
    );
    expect(result.projection).toBe('post_groups');
    expect(result.generation).toBeGreaterThan(1);
    expect(await api.history(groupId)).toEqual(trail);
    expect(await api.get(groupId)).toEqual(group);
    expect(await api.posts()).toEqual(listed);
    for (const step of ['approved', 'rejected'] as const) {
      const then = await api.history(groupId, `?revision=${at[step].revision}`);
      expect(then.group).toEqual(at[step].group);
    }
  });

  test('a restart on the same database', async () => {
    const trail = await api.history(groupId);
    const group = await api.get(groupId);
    await service.stop();
    service = await startTestService({ database, dataDir });
    api = workspaceClient(service, ws);
    expect(await api.history(groupId)).toEqual(trail);
    expect(await api.get(groupId)).toEqual(group);
    const then = await api.history(groupId, `?revision=${at.retitled.revision}`);
    expect(then.group).toEqual(at.retitled.group);
    expect(byId(then.posts)).toEqual(byId(at.retitled.posts));
    // And the service still writes: the trail goes on from where it was.
    await api.patch(groupId, { topic: 'after restart' }, 'editor');
    const after = await api.history(groupId);
    expect(after.entries.slice(0, trail.entries.length)).toEqual(trail.entries);
    expect(after.entries.at(-1)).toMatchObject({
      action: 'submit_for_approval',
      cause: 'group_edited',
      actor: user(ws.userIds.editor),
    });
  });
});
