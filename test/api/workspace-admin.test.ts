// GET, PATCH and DELETE /v1/orgs/{orgId} through the whole service: reading the workspace, changing its name,
// slug and avatar (owners and admins; a slug in use is a 409, a slug left behind is free again), and the
// owner's soft delete: 410 `workspace_deleted` on every later call for it, out of every member's list, its
// slug free, its scheduled posts never published, its history kept.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWorkspace } from '../../commands/workspaces/workspace-commands.js';
import type { PostView } from '../../domain/post-groups/views.js';
import type { WorkspaceView as Workspace } from '../../domain/workspaces/views.js';
import { sandboxPublicationsOf } from '../../infra/connectors/sandbox/index.js';
import { connectAssistant } from '../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { connectSandboxAccount } from '../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { PUBLISH_SWEEP_INTERVAL_MS: '30' } });
});
afterAll(async () => service.stop());

const org = (ws: TestWorkspace) => `/v1/orgs/${ws.orgId}`;

async function getOrg(ws: TestWorkspace, token = ws.tokens.viewer) {
  return service.request('GET', org(ws), { token });
}

function patchOrg(ws: TestWorkspace, body: unknown, token = ws.tokens.owner, headers = {}) {
  return service.request('PATCH', org(ws), { token, body, headers });
}

async function slugOf(ws: TestWorkspace): Promise<string> {
  return ((await (await getOrg(ws)).json()) as { data: Workspace }).data.slug;
}

describe('GET /v1/orgs/{orgId}', () => {
  test('any member reads the workspace; another workspace is a 403', async () => {
    const ws = await createTestWorkspace(service, 'Acme Read');
    const res = await getOrg(ws);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Workspace };
    expect(data).toEqual({
      id: ws.orgId,
      slug: expect.stringMatching(/^ws-/),
      name: 'Acme Read',
      status: 'active',
      avatarUrl: null,
      ownerId: ws.userIds.owner,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    const other = await createTestWorkspace(service);
    expect((await getOrg(ws, other.tokens.owner)).status).toBe(403);
    expect((await service.request('GET', org(ws))).status).toBe(401);
  });
});

describe('PATCH /v1/orgs/{orgId}', () => {
  test('an admin changes name, slug and avatar; the answer, GET and the members list show it', async () => {
    const ws = await createTestWorkspace(service);
    const slug = `renamed-${randomUUID().slice(0, 8)}`;
    const res = await patchOrg(
      ws,
      { name: '  New Name ', slug, avatarUrl: 'https://cdn.example.org/logo.png' },
      ws.tokens.admin,
    );
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Workspace };
    expect(data).toMatchObject({ name: 'New Name', slug, avatarUrl: 'https://cdn.example.org/logo.png' });
    expect(((await (await getOrg(ws)).json()) as { data: Workspace }).data).toEqual(data);
    const mine = (await (await service.request('GET', '/v1/orgs', { token: ws.tokens.editor })).json()) as {
      data: Array<{ id: string; slug: string; name: string; avatarUrl: string | null }>;
    };
    expect(mine.data.find((w) => w.id === ws.orgId)).toMatchObject({ slug, name: 'New Name' });
    // Null clears the avatar; omitted fields stay.
    const cleared = await patchOrg(ws, { avatarUrl: null });
    expect(((await cleared.json()) as { data: Workspace }).data).toMatchObject({
      avatarUrl: null,
      name: 'New Name',
      slug,
    });
  });

  test('editors, reviewers and viewers may not (403); nothing changes', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    for (const role of ['editor', 'reviewer', 'viewer'] as const) {
      expect((await patchOrg(ws, { name: 'Nope' }, ws.tokens[role])).status).toBe(403);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('bad input is a 400 naming the field, and changes nothing', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    for (const [body, path] of [
      [{}, 'body'],
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(101) }, 'body.name'],
      [{ slug: 'Bad Slug' }, 'body.slug'],
      [{ slug: '-x' }, 'body.slug'],
      [{ avatarUrl: 'http://example.org/a.png' }, 'body.avatarUrl'],
      [{ avatarUrl: 'not a url' }, 'body.avatarUrl'],
      [{ status: 'deleted' }, 'body.status'],
    ] as const) {
      const res = await patchOrg(ws, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = (await res.json()) as { details: Array<{ path: string }> };
      expect(
        error.details.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test("another workspace's slug is a 409 slug_taken and changes nothing; its own slug is no change", async () => {
    const ws = await createTestWorkspace(service);
    const other = await createTestWorkspace(service);
    const taken = await slugOf(other);
    const before = await eventCount(service);
    const res = await patchOrg(ws, { slug: taken, name: 'Would Change' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'slug_taken' });
    expect(await eventCount(service)).toBe(before);
    expect(((await (await getOrg(ws)).json()) as { data: Workspace }).data.name).toBe('Acme');
    expect((await patchOrg(ws, { slug: await slugOf(ws) })).status).toBe(200);
    expect(await eventCount(service)).toBe(before);
  });

  test('a retried PATCH with its Idempotency-Key replays the answer', async () => {
    const ws = await createTestWorkspace(service);
    const body = { name: 'Keyed' };
    const first = await patchOrg(ws, body, ws.tokens.owner, { 'Idempotency-Key': 'rename-1' });
    const again = await patchOrg(ws, body, ws.tokens.owner, { 'Idempotency-Key': 'rename-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
  });
});

describe('DELETE /v1/orgs/{orgId}', () => {
  test('only the owner may delete (403 for an admin and below)', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    for (const role of ['admin', 'reviewer', 'editor', 'viewer'] as const) {
      const res = await service.request('DELETE', org(ws), { token: ws.tokens[role] });
      expect(res.status, role).toBe(403);
    }
    expect(await eventCount(service)).toBe(before);
    expect((await getOrg(ws)).status).toBe(200);
  });

  test('afterwards every call for it is 410 workspace_deleted, and it leaves every list', async () => {
    const ws = await createTestWorkspace(service);
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['mcp:read'],
    });
    await assistant.client.close();
    const res = await service.request('DELETE', org(ws), { token: ws.tokens.owner });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    // The assistants connected to it stop too.
    const mcp = await service.request('POST', '/mcp', {
      token: assistant.accessToken,
      headers: { accept: 'application/json, text/event-stream', host: 'localhost' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });
    expect(mcp.status).toBe(410);
    expect(await mcp.json()).toMatchObject({ code: 'workspace_deleted' });
    for (const [method, path, token, body] of [
      ['GET', org(ws), ws.tokens.viewer, undefined],
      ['PATCH', org(ws), ws.tokens.owner, { name: 'Again' }],
      ['DELETE', org(ws), ws.tokens.owner, undefined],
      ['GET', `${org(ws)}/members`, ws.tokens.editor, undefined],
      ['GET', `${ws.base}/tags`, ws.tokens.editor, undefined],
      ['POST', `${ws.base}/tags`, ws.tokens.editor, { name: 'late' }],
      ['GET', `${ws.base}/posts`, ws.tokens.admin, undefined],
      ['GET', `${org(ws)}/timezone`, ws.tokens.reviewer, undefined],
    ] as const) {
      const answer = await service.request(method, path, { token, ...(body ? { body } : {}) });
      expect(answer.status, `${method} ${path}`).toBe(410);
      expect(await answer.json()).toEqual({ error: 'This workspace was deleted', code: 'workspace_deleted' });
    }
    // The token exchange to it, from a token of another workspace or a user-only one.
    const other = await createTestWorkspace(service);
    const owner = await service.userToken(
      (
        (await (await service.request('GET', '/v1/users/me', { token: ws.tokens.owner })).json()) as {
          data: { email: string };
        }
      ).data.email,
    );
    const exchange = await service.request('POST', '/v1/auth/token', {
      token: owner.token,
      body: { orgId: ws.orgId },
    });
    expect(exchange.status).toBe(410);
    expect(await exchange.json()).toMatchObject({ code: 'workspace_deleted' });
    // A stranger asking for it still gets the 404 any workspace they do not belong to gets.
    const stranger = await service.request('POST', '/v1/auth/token', {
      token: other.tokens.owner,
      body: { orgId: ws.orgId },
    });
    expect(stranger.status).toBe(404);
    // The old token still lists the user's workspaces (without this one) and may create another.
    const list = await service.request('GET', '/v1/orgs', { token: ws.tokens.owner });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: Array<{ id: string }> }).data.map((w) => w.id)).not.toContain(
      ws.orgId,
    );
  });

  test('its slug is free again for a new workspace; the history is kept', async () => {
    const ws = await createTestWorkspace(service);
    const slug = await slugOf(ws);
    const before = await eventCount(service);
    expect((await service.request('DELETE', org(ws), { token: ws.tokens.owner })).status).toBe(200);
    expect(await eventCount(service)).toBe(before + 1);
    const events = await service.runtime.eventStore.readStream(`workspace-${ws.orgId}`);
    expect(events.map((e) => e.type)).toContain('WorkspaceCreated');
    expect(events.at(-1)!.type).toBe('WorkspaceDeleted');
    // Reserved less than a minute ago (a creation or rename may still be on its way): held a little longer.
    const someone = await service.userToken();
    const soon = await service.request('POST', '/v1/orgs', {
      token: someone.token,
      body: { name: 'Reuse', slug },
    });
    expect(soon.status).toBe(409);
    // Once the reservation is a minute old, the slug of a deleted workspace is anyone's.
    const inTwoMinutes = new Date(Date.now() + 120_000).toISOString();
    const { workspace } = await createWorkspace(
      service.runtime.commands,
      { orgId: randomUUID(), slug, name: 'Reuse', ownerId: someone.userId },
      { orgId: null, actor: someone.userId, correlationId: randomUUID(), now: inTwoMinutes },
    );
    expect(workspace.slug).toBe(slug);
  });

  test('a slug left behind by a rename is free for others; the new one is held', async () => {
    const ws = await createTestWorkspace(service);
    const old = await slugOf(ws);
    const renamed = `moved-${randomUUID().slice(0, 8)}`;
    expect((await patchOrg(ws, { slug: renamed })).status).toBe(200);
    const someone = await service.userToken();
    const taken = await service.request('POST', '/v1/orgs', {
      token: someone.token,
      body: { name: 'Copycat', slug: renamed },
    });
    expect(taken.status).toBe(409);
    const inTwoMinutes = new Date(Date.now() + 120_000).toISOString();
    const { workspace } = await createWorkspace(
      service.runtime.commands,
      { orgId: randomUUID(), slug: old, name: 'Old Slug', ownerId: someone.userId },
      { orgId: null, actor: someone.userId, correlationId: randomUUID(), now: inTwoMinutes },
    );
    expect(workspace.slug).toBe(old);
    // The renamed workspace keeps its new slug.
    expect(await slugOf(ws)).toBe(renamed);
  });

  test('its scheduled posts are not published', async () => {
    const ws = await createTestWorkspace(service);
    const account = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x', {
      account: 'deleted_ws',
    });
    const created = await service.request('POST', `${ws.base}/post-groups`, {
      token: ws.tokens.owner,
      body: {
        title: 'Planned',
        posts: [{ platform: 'x', contentText: `Never sent ${Math.random()}`, socialAccountId: account.id }],
      },
    });
    const data = ((await created.json()) as { data: { group: { id: string }; posts: PostView[] } }).data;
    const approved = await service.request('POST', `${ws.base}/post-groups/${data.group.id}/approve`, {
      token: ws.tokens.owner,
      body: { scheduledForUtc: new Date(Date.now() + 1500).toISOString() },
    });
    expect(approved.status).toBe(200);
    expect((await service.request('DELETE', org(ws), { token: ws.tokens.owner })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await sandboxPublicationsOf(service.runtime.readModels, data.posts[0]!.id)).toHaveLength(0);
  });
});
