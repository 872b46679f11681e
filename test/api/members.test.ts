// GET, PATCH and DELETE ORG/members through the whole service: the list with each filter and sort, role and
// status changes, suspension and removal taking effect on the member's next request (REST and assistant), the
// last-owner and owner-only rules, and ids of another workspace's members answered 404.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { memberIdOf, roleIdOf } from '../../domain/workspaces/views.js';
import type { MemberView as Member } from '../../domain/workspaces/views.js';
import { connectAssistant, mcpClient } from '../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

async function list(ws: TestWorkspace, query = '', token = ws.tokens.viewer): Promise<Member[]> {
  const res = await service.request('GET', `/v1/orgs/${ws.orgId}/members${query}`, { token });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: Member[] }).data;
}

function patch(ws: TestWorkspace, userId: string, body: unknown, token = ws.tokens.owner) {
  return service.request('PATCH', `/v1/orgs/${ws.orgId}/members/${memberIdOf(ws.orgId, userId)}`, {
    token,
    body,
  });
}

function remove(ws: TestWorkspace, userId: string, token = ws.tokens.owner) {
  return service.request('DELETE', `/v1/orgs/${ws.orgId}/members/${memberIdOf(ws.orgId, userId)}`, {
    token,
  });
}

describe('GET ORG/members', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createTestWorkspace(service);
  });

  test('every member is listed with profile, role name and key, status and joinedAt, for any role', async () => {
    const members = await list(ws);
    expect(members).toHaveLength(5);
    const owner = members.find((m) => m.userId === ws.userIds.owner)!;
    expect(owner).toEqual({
      id: memberIdOf(ws.orgId, ws.userIds.owner),
      userId: ws.userIds.owner,
      email: expect.stringMatching(/^owner-.*@example\.org$/),
      name: null,
      avatarUrl: null,
      role: 'Owner',
      roleKey: 'owner',
      status: 'active',
      joinedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // Member ids are per workspace: not the user id.
    expect(owner.id).not.toBe(owner.userId);
    expect(new Set(members.map((m) => m.roleKey))).toEqual(
      new Set(['owner', 'admin', 'reviewer', 'editor', 'viewer']),
    );
  });

  test('filters: roleKey eq and in, status eq and in, email eq and contains, name contains', async () => {
    expect((await list(ws, '?filter[roleKey]=editor')).map((m) => m.userId)).toEqual([ws.userIds.editor]);
    const inRoles = await list(ws, '?filter[roleKey]=admin,viewer&filterOp[roleKey]=in');
    expect(new Set(inRoles.map((m) => m.userId))).toEqual(new Set([ws.userIds.admin, ws.userIds.viewer]));
    expect(await list(ws, '?filter[status]=suspended')).toEqual([]);
    expect(await list(ws, '?filter[status]=active,suspended&filterOp[status]=in')).toHaveLength(5);
    const reviewer = (await list(ws, '?filter[roleKey]=reviewer'))[0]!;
    const byEmail = await list(ws, `?filter[email]=${encodeURIComponent(reviewer.email!.toUpperCase())}`);
    expect(byEmail.map((m) => m.userId)).toEqual([ws.userIds.reviewer]);
    const contains = await list(ws, '?filter[email]=REVIEWER-&filterOp[email]=contains');
    expect(contains.map((m) => m.userId)).toEqual([ws.userIds.reviewer]);
    // Nobody has a name yet.
    expect(await list(ws, '?filter[name]=a&filterOp[name]=contains')).toEqual([]);
    expect(await list(ws, '?filter[name]=Ada')).toEqual([]);
  });

  test('sorts: role by rank, email, name, status, joinedAt and createdAt, each both ways', async () => {
    const byRole = await list(ws, '?sortBy=role');
    expect(byRole.map((m) => m.roleKey)).toEqual(['owner', 'admin', 'reviewer', 'editor', 'viewer']);
    const byRoleDesc = await list(ws, '?sortBy=role&sortDir=desc');
    expect(byRoleDesc.map((m) => m.roleKey)).toEqual(['viewer', 'editor', 'reviewer', 'admin', 'owner']);
    const byEmail = (await list(ws, '?sortBy=email')).map((m) => m.email!);
    expect(byEmail).toEqual([...byEmail].sort());
    const byEmailDesc = (await list(ws, '?sortBy=email&sortDir=desc')).map((m) => m.email!);
    expect(byEmailDesc).toEqual([...byEmail].reverse());
    const byJoined = (await list(ws, '?sortBy=joinedAt')).map((m) => m.joinedAt!);
    expect(byJoined).toEqual([...byJoined].sort());
    expect((await list(ws, '?sortBy=createdAt&sortDir=desc')).map((m) => m.joinedAt!)).toEqual(
      [...byJoined].reverse(),
    );
    expect(await list(ws, '?sortBy=name')).toHaveLength(5);
    expect(await list(ws, '?sortBy=status')).toHaveLength(5);
  });

  test('paging with page and limit', async () => {
    const all = await list(ws, '?sortBy=role');
    const second = await list(ws, '?sortBy=role&page=2&limit=2');
    expect(second.map((m) => m.userId)).toEqual(all.slice(2, 4).map((m) => m.userId));
  });

  test('bad queries are 400 naming the parameter', async () => {
    for (const query of [
      '?filter[status]=gone',
      '?filter[roleKey]=boss',
      '?filterOp[email]=in&filter[email]=a',
      '?sortBy=userId',
      '?filter[userId]=x',
      '?limit=101',
    ]) {
      const res = await service.request('GET', `/v1/orgs/${ws.orgId}/members${query}`, {
        token: ws.tokens.viewer,
      });
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { details: Array<{ path: string }> };
      expect(body.details[0]!.path, query).toMatch(/^query\./);
    }
  });

  test("another workspace's token is a 403", async () => {
    const other = await createTestWorkspace(service, 'Other');
    const res = await service.request('GET', `/v1/orgs/${ws.orgId}/members`, { token: other.tokens.owner });
    expect(res.status).toBe(403);
  });
});

describe('PATCH ORG/members/{memberId}', () => {
  test('an admin changes a role: the answer, the list, and the new role on the next request', async () => {
    const ws = await createTestWorkspace(service);
    // The editor may draft tags; as a viewer they may not.
    const draft = () =>
      service.request('POST', `${ws.base}/tags`, {
        token: ws.tokens.editor,
        body: { name: `t${Date.now()}` },
      });
    expect((await draft()).status).toBe(200);
    const res = await patch(ws, ws.userIds.editor, { roleKey: 'viewer' }, ws.tokens.admin);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      data: { id: memberIdOf(ws.orgId, ws.userIds.editor), roleId: roleIdOf('viewer'), status: 'active' },
    });
    const row = (await list(ws)).find((m) => m.userId === ws.userIds.editor)!;
    expect(row).toMatchObject({ roleKey: 'viewer', role: 'Viewer' });
    expect((await draft()).status).toBe(403);
  });

  test('suspension makes the next request fail (403 membership_suspended); reactivation restores it', async () => {
    const ws = await createTestWorkspace(service);
    const read = () => service.request('GET', `/v1/orgs/${ws.orgId}/members`, { token: ws.tokens.editor });
    expect((await read()).status).toBe(200);
    const suspended = await patch(ws, ws.userIds.editor, { status: 'suspended' }, ws.tokens.admin);
    expect(suspended.status).toBe(200);
    expect(await suspended.json()).toMatchObject({
      data: { status: 'suspended', roleId: roleIdOf('editor') },
    });
    const refused = await read();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'membership_suspended' });
    // Also the token exchange back into that workspace, while their token still lists their workspaces.
    const exchange = await service.request('POST', '/v1/auth/token', {
      token: ws.tokens.editor,
      body: { orgId: ws.orgId },
    });
    expect(exchange.status).toBe(403);
    expect(await exchange.json()).toMatchObject({ code: 'membership_suspended' });
    const orgs = await service.request('GET', '/v1/orgs', { token: ws.tokens.editor });
    expect(orgs.status).toBe(200);
    expect(((await orgs.json()) as { data: unknown[] }).data).toEqual([]);
    // Listed as suspended.
    expect((await list(ws, '?filter[status]=suspended')).map((m) => m.userId)).toEqual([ws.userIds.editor]);

    const back = await patch(ws, ws.userIds.editor, { status: 'active' }, ws.tokens.admin);
    expect(back.status).toBe(200);
    expect((await read()).status).toBe(200);
  });

  test("a suspended member's assistant stops too, and works again after reactivation", async () => {
    const ws = await createTestWorkspace(service);
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['mcp:read'],
    });
    expect((await assistant.client.listTools()).tools.length).toBeGreaterThan(0);
    await assistant.client.close();
    expect((await patch(ws, ws.userIds.editor, { status: 'suspended' })).status).toBe(200);
    const raw = () =>
      service.request('POST', '/mcp', {
        token: assistant.accessToken,
        headers: { accept: 'application/json, text/event-stream', host: 'localhost' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      });
    const refused = await raw();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'membership_suspended' });
    await expect(mcpClient(service, assistant.accessToken)).rejects.toThrow();
    expect((await patch(ws, ws.userIds.editor, { status: 'active' })).status).toBe(200);
    const again = await mcpClient(service, assistant.accessToken);
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
    await again.close();
  });

  test('the last owner can be neither demoted nor suspended (409 last_owner); with two owners it works', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    for (const body of [{ roleKey: 'admin' }, { status: 'suspended' }]) {
      const res = await patch(ws, ws.userIds.owner, body, ws.tokens.owner);
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject({ code: 'last_owner' });
    }
    expect(await eventCount(service)).toBe(before);
    // The owner makes the admin an owner; then the first owner may step down.
    expect((await patch(ws, ws.userIds.admin, { roleKey: 'owner' })).status).toBe(200);
    const stepDown = await patch(ws, ws.userIds.owner, { roleKey: 'admin' }, ws.tokens.owner);
    expect(stepDown.status).toBe(200);
    // Now the former admin is the only owner.
    const res = await patch(ws, ws.userIds.admin, { status: 'suspended' }, ws.tokens.admin);
    expect(res.status).toBe(409);
  });

  test('an admin may not touch an owner or grant the owner role (403); a viewer may not patch at all', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    for (const [userId, body] of [
      [ws.userIds.owner, { roleKey: 'admin' }],
      [ws.userIds.owner, { status: 'suspended' }],
      [ws.userIds.editor, { roleKey: 'owner' }],
    ] as const) {
      const res = await patch(ws, userId, body, ws.tokens.admin);
      expect(res.status).toBe(403);
    }
    expect((await remove(ws, ws.userIds.owner, ws.tokens.admin)).status).toBe(403);
    expect((await patch(ws, ws.userIds.editor, { roleKey: 'viewer' }, ws.tokens.viewer)).status).toBe(403);
    expect((await patch(ws, ws.userIds.editor, { roleKey: 'viewer' }, ws.tokens.editor)).status).toBe(403);
    expect(await eventCount(service)).toBe(before);
  });

  test("another workspace's member id, an unknown id and a bad body: 404, 404, 400", async () => {
    const ws = await createTestWorkspace(service);
    const other = await createTestWorkspace(service, 'Other');
    const before = await eventCount(service);
    // The other workspace's member id, in this workspace's path.
    const foreign = memberIdOf(other.orgId, other.userIds.editor);
    const res = await service.request('PATCH', `/v1/orgs/${ws.orgId}/members/${foreign}`, {
      token: ws.tokens.owner,
      body: { roleKey: 'viewer' },
    });
    expect(res.status).toBe(404);
    // A user id is not a member id.
    const byUserId = await service.request('PATCH', `/v1/orgs/${ws.orgId}/members/${ws.userIds.editor}`, {
      token: ws.tokens.owner,
      body: { roleKey: 'viewer' },
    });
    expect(byUserId.status).toBe(404);
    const deleted = await service.request('DELETE', `/v1/orgs/${ws.orgId}/members/${foreign}`, {
      token: ws.tokens.owner,
    });
    expect(deleted.status).toBe(404);
    for (const body of [{}, { roleKey: 'boss' }, { status: 'removed' }, { roleKey: 'editor', extra: 1 }]) {
      const bad = await patch(ws, ws.userIds.editor, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    const notUuid = await service.request('PATCH', `/v1/orgs/${ws.orgId}/members/nope`, {
      token: ws.tokens.owner,
      body: { roleKey: 'viewer' },
    });
    expect(notUuid.status).toBe(400);
    expect(await eventCount(service)).toBe(before);
  });

  test('an unchanged member appends nothing; a retried request with its key replays the answer', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    expect((await patch(ws, ws.userIds.editor, { roleKey: 'editor', status: 'active' })).status).toBe(200);
    expect(await eventCount(service)).toBe(before);
    const keyed = (key: string) =>
      service.request('PATCH', `/v1/orgs/${ws.orgId}/members/${memberIdOf(ws.orgId, ws.userIds.viewer)}`, {
        token: ws.tokens.owner,
        body: { roleKey: 'reviewer' },
        headers: { 'Idempotency-Key': key },
      });
    const first = await keyed('promote-viewer');
    const again = await keyed('promote-viewer');
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
  });
});

describe('DELETE ORG/members/{memberId}', () => {
  test('removal ends access at once; the member leaves the list', async () => {
    const ws = await createTestWorkspace(service);
    const read = () => service.request('GET', `/v1/orgs/${ws.orgId}/members`, { token: ws.tokens.reviewer });
    expect((await read()).status).toBe(200);
    const res = await remove(ws, ws.userIds.reviewer, ws.tokens.admin);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect((await read()).status).toBe(401);
    expect((await list(ws)).map((m) => m.userId)).not.toContain(ws.userIds.reviewer);
    // Removing again: the member is gone.
    expect((await remove(ws, ws.userIds.reviewer, ws.tokens.admin)).status).toBe(404);
  });

  test('a member may leave; the last owner may not (409), nor be removed', async () => {
    const ws = await createTestWorkspace(service);
    expect((await remove(ws, ws.userIds.viewer, ws.tokens.viewer)).status).toBe(200);
    expect((await remove(ws, ws.userIds.editor, ws.tokens.viewer)).status).toBe(401);
    // A member without members:manage may not remove others.
    expect((await remove(ws, ws.userIds.reviewer, ws.tokens.editor)).status).toBe(403);
    const last = await remove(ws, ws.userIds.owner, ws.tokens.owner);
    expect(last.status).toBe(409);
    expect(await last.json()).toMatchObject({ code: 'last_owner' });
    // With a second owner, an owner removes the other.
    expect((await patch(ws, ws.userIds.admin, { roleKey: 'owner' })).status).toBe(200);
    expect((await remove(ws, ws.userIds.admin, ws.tokens.owner)).status).toBe(200);
  });

  test('a removed member can be added again and is active', async () => {
    const ws = await createTestWorkspace(service);
    expect((await remove(ws, ws.userIds.editor)).status).toBe(200);
    const back = await service.userToken(
      (await list(ws, '?filter[roleKey]=viewer'))[0]!.email!.replace('viewer-', 'editor-'),
      { orgId: ws.orgId, role: 'editor' },
    );
    const res = await service.request('GET', `/v1/orgs/${ws.orgId}/members?filter[roleKey]=editor`, {
      token: back.token,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Member[] }).data).toMatchObject([
      { userId: ws.userIds.editor, status: 'active' },
    ]);
  });
});
