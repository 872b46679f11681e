// Who may call the post-group, draft and history endpoints: 401 without a token, 403 for another workspace's
// token and for each role that lacks the permission, 404 for unknown groups and for another workspace's groups
// (on every endpoint, nothing appended).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Role } from '../../../domain/workspaces/roles.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { failure, twoPlatformDraft, workspaceClient, type WorkspaceClient } from './support.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let api: WorkspaceClient;
let otherApi: WorkspaceClient;
/** A pending group of this workspace and one of the other workspace. */
let groupId: string;
let otherGroupId: string;
/** A token of a registered user, scoped to no workspace. */
let unscopedToken: string;

beforeAll(async () => {
  service = await startTestService();
  [ws, other] = await Promise.all([
    createTestWorkspace(service, 'Acme'),
    createTestWorkspace(service, 'Other'),
  ]);
  api = workspaceClient(service, ws);
  otherApi = workspaceClient(service, other);
  groupId = (await api.draft(twoPlatformDraft('Ours'))).group.id;
  otherGroupId = (await otherApi.draft(twoPlatformDraft('Theirs'))).group.id;
  unscopedToken = (await service.userToken()).token;
});
afterAll(async () => service.stop());

interface Endpoint {
  name: string;
  method: string;
  path: (groupId: string) => string;
  body?: unknown;
  /** Roles allowed to call it. */
  roles: readonly Role[];
  /** Takes a group id in the path. */
  group: boolean;
}

const everyone: readonly Role[] = ['owner', 'admin', 'reviewer', 'editor', 'viewer'];
const endpoints: Endpoint[] = [
  {
    name: 'POST post-groups',
    method: 'POST',
    path: () => '/post-groups',
    body: { title: 'T', posts: [{ platform: 'x', contentText: 'Hi' }] },
    roles: ['owner', 'admin', 'editor'],
    group: false,
  },
  {
    name: 'POST drafts',
    method: 'POST',
    path: () => '/drafts',
    body: { title: 'T', posts: [{ platform: 'x', contentText: 'Hi' }] },
    roles: ['owner', 'admin', 'editor'],
    group: false,
  },
  { name: 'GET group', method: 'GET', path: (id) => `/post-groups/${id}`, roles: everyone, group: true },
  {
    name: 'PATCH group (title)',
    method: 'PATCH',
    path: (id) => `/post-groups/${id}`,
    body: { title: 'Renamed' },
    roles: ['owner', 'admin', 'editor'],
    group: true,
  },
  {
    // Any role that may change posts at all; a viewer's empty PATCH is refused like any other write.
    name: 'PATCH group (empty body)',
    method: 'PATCH',
    path: (id) => `/post-groups/${id}`,
    body: {},
    roles: ['owner', 'admin', 'reviewer', 'editor'],
    group: true,
  },
  {
    name: 'PATCH group (status approved)',
    method: 'PATCH',
    path: (id) => `/post-groups/${id}`,
    body: { status: 'approved' },
    roles: ['owner', 'admin', 'reviewer'],
    group: true,
  },
  {
    name: 'PATCH group (status scheduled)',
    method: 'PATCH',
    path: (id) => `/post-groups/${id}`,
    body: { status: 'scheduled' },
    roles: ['owner', 'admin', 'reviewer'],
    group: true,
  },
  {
    name: 'PATCH group (title and status approved)',
    method: 'PATCH',
    path: (id) => `/post-groups/${id}`,
    body: { title: 'Renamed', status: 'approved' },
    roles: ['owner', 'admin'],
    group: true,
  },
  {
    name: 'POST approve',
    method: 'POST',
    path: (id) => `/post-groups/${id}/approve`,
    body: { autoSchedule: false },
    roles: ['owner', 'admin', 'reviewer'],
    group: true,
  },
  {
    name: 'POST reject',
    method: 'POST',
    path: (id) => `/post-groups/${id}/reject`,
    roles: ['owner', 'admin', 'reviewer'],
    group: true,
  },
  {
    name: 'POST schedule',
    method: 'POST',
    path: (id) => `/post-groups/${id}/schedule`,
    roles: ['owner', 'admin', 'reviewer'],
    group: true,
  },
  {
    name: 'GET history',
    method: 'GET',
    path: (id) => `/post-groups/${id}/history`,
    roles: ['owner', 'admin'],
    group: true,
  },
];

describe('401 without a valid token', () => {
  for (const e of endpoints) {
    test(e.name, async () => {
      const before = await eventCount(service);
      for (const token of [null, 'not-a-real-token']) {
        const res = await api.call(e.method, e.path(groupId), { token, body: e.body });
        await failure(res, 401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
      expect(await eventCount(service)).toBe(before);
    });
  }
});

describe('403 for a token of another workspace (the path names this one)', () => {
  for (const e of endpoints) {
    test(e.name, async () => {
      const before = await eventCount(service);
      // Their owner, on our workspace's path, with our group and with theirs.
      for (const id of [groupId, otherGroupId]) {
        const res = await api.call(e.method, e.path(id), { token: other.tokens.owner, body: e.body });
        await failure(res, 403);
      }
      // A token scoped to no workspace at all.
      await failure(await api.call(e.method, e.path(groupId), { token: unscopedToken, body: e.body }), 403);
      expect(await eventCount(service)).toBe(before);
    });
  }
});

describe('403 for each role that lacks the permission; the others get past authorisation', () => {
  for (const e of endpoints) {
    test(e.name, async () => {
      for (const role of everyone) {
        const before = await eventCount(service);
        const res = await api.call(e.method, e.path(groupId), { as: role, body: e.body });
        if (e.roles.includes(role)) {
          expect([200, 409], `${role}: ${await res.clone().text()}`).toContain(res.status);
        } else {
          const body = await failure(res, 403);
          expect(body.error).toMatch(/role/i);
          expect(await eventCount(service)).toBe(before);
        }
      }
    });
  }

  test('the spec’s cases: viewer creating, editor approving, reviewer editing the title, editor and reviewer reading history', async () => {
    const { group } = await api.draft(twoPlatformDraft('Roles'));
    const before = await eventCount(service);
    const refused: Array<[Role, string, string, unknown]> = [
      ['viewer', 'POST', '/post-groups', { title: 'T', posts: [{ platform: 'x', contentText: 'Hi' }] }],
      ['viewer', 'POST', '/drafts', { title: 'T', posts: [{ platform: 'x', contentText: 'Hi' }] }],
      ['editor', 'POST', `/post-groups/${group.id}/approve`, undefined],
      ['editor', 'PATCH', `/post-groups/${group.id}`, { status: 'approved' }],
      ['reviewer', 'PATCH', `/post-groups/${group.id}`, { title: 'Reviewer title' }],
      ['editor', 'GET', `/post-groups/${group.id}/history`, undefined],
      ['reviewer', 'GET', `/post-groups/${group.id}/history`, undefined],
      ['viewer', 'GET', `/post-groups/${group.id}/history`, undefined],
    ];
    for (const [role, method, path, body] of refused) {
      await failure(await api.call(method, path, { as: role, body }), 403);
    }
    expect(await eventCount(service)).toBe(before);
    expect((await api.get(group.id)).group).toMatchObject({ title: 'Roles', status: 'pending_approval' });
  });
});

describe('a viewer’s PATCH is refused before its body is read or anything is stored', () => {
  for (const [name, body] of [
    ['an empty body', {}],
    ['an invalid body', { title: 42, unknownField: true }],
  ] as const) {
    test(name, async () => {
      const before = await eventCount(service);
      const key = `viewer-patch-${Math.random()}`;
      const res = await api.call('PATCH', `/post-groups/${groupId}`, {
        as: 'viewer',
        body,
        headers: { 'Idempotency-Key': key },
      });
      const error = await failure(res, 403);
      expect(error.error).toMatch(/role/i);
      expect(await eventCount(service)).toBe(before);
      const stored = await service.runtime.database.pool.query(
        'select 1 from idempotency_keys where key = $1',
        [key],
      );
      expect(stored.rowCount).toBe(0);
    });
  }
});

describe('404: an unknown group, and another workspace’s group with this workspace’s token', () => {
  const unknownId = '0f0f0f0f-0000-4000-8000-00000000abcd';
  for (const e of endpoints.filter((x) => x.group)) {
    test(e.name, async () => {
      const before = await eventCount(service);
      for (const id of [unknownId, otherGroupId]) {
        const res = await api.call(e.method, e.path(id), { as: 'owner', body: e.body });
        const body = await failure(res, 404);
        expect(body.error).toMatch(/not found/i);
      }
      expect(await eventCount(service)).toBe(before);
    });
  }

  test('the other workspace’s group is untouched and still theirs', async () => {
    const theirs = await otherApi.get(otherGroupId);
    expect(theirs.group).toMatchObject({ orgId: other.orgId, title: 'Theirs', status: 'pending_approval' });
    const history = await otherApi.history(otherGroupId);
    expect(history.entries.map((e) => e.action)).toEqual(['submit_for_approval']);
  });
});
