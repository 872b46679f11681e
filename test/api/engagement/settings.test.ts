// ORG/engagement/settings through the whole service: the defaults before any save, PATCH saving (omitted fields
// kept, lists replaced, handles and subreddits normalised, feed ids kept), read-your-writes, bad input as 400 in
// the spec's error shape naming each field and appending nothing, roles (every member reads; owners and admins
// save), an Idempotency-Key replay, and the two tools (get with mcp:read; update only with posts:write).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

/** An answer as JSON, read loosely: each test checks the fields it is about. */
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.stop());

const path = (ws: TestWorkspace) => `/v1/orgs/${ws.orgId}/engagement/settings`;

async function call(
  ws: TestWorkspace,
  method: string,
  body?: unknown,
  role: keyof TestWorkspace['tokens'] = 'owner',
  headers?: Record<string, string>,
) {
  const res = await service.request(method, path(ws), {
    token: ws.tokens[role],
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Loose };
}

const defaults = {
  watchHandles: [],
  keywords: [],
  autoRefresh: false,
  redditKeywords: [],
  subreddits: [],
  redditExcludeTerms: [],
  feeds: [],
  communities: [],
  updatedAt: null,
  updatedBy: null,
};

describe('GET and PATCH ORG/engagement/settings', () => {
  test('the defaults until saved; a save normalises, keeps what it omits, and GET shows it at once', async () => {
    const ws = await createTestWorkspace(service);
    expect((await call(ws, 'GET', undefined, 'viewer')).json.data).toEqual(defaults);

    const first = await call(ws, 'PATCH', {
      watchHandles: ['@Acme', 'https://x.com/globex'],
      keywords: [' social scheduler ', 'Social Scheduler', 'content calendar'],
      autoRefresh: true,
      subreddits: ['r/SaaS', 'startups'],
      feeds: [
        { name: 'Competitors', source: 'keywords', keywords: ['buffer'] },
        { name: 'Founders', source: 'list', listId: '1585430245762441216' },
        { name: 'Customers', source: 'people', handles: ['@initech'], enabled: false },
      ],
    });
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({
      watchHandles: ['Acme', 'globex'],
      keywords: ['social scheduler', 'content calendar'],
      autoRefresh: true,
      redditKeywords: [],
      subreddits: ['SaaS', 'startups'],
      updatedBy: ws.userIds.owner,
    });
    const feeds = first.json.data.feeds as Loose[];
    expect(
      feeds.map((f): unknown[] => [f.name, f.source, f.keywords, f.listId, f.handles, f.enabled]),
    ).toEqual([
      ['Competitors', 'keywords', ['buffer'], null, [], true],
      ['Founders', 'list', [], '1585430245762441216', [], true],
      ['Customers', 'people', [], null, ['initech'], false],
    ]);
    expect((await call(ws, 'GET', undefined, 'editor')).json.data).toEqual(first.json.data);

    // Omitted fields stay; a list sent replaces; a feed sent by name (or with its id) keeps its id.
    const second = await call(ws, 'PATCH', {
      keywords: [],
      feeds: [
        { name: 'competitors', source: 'keywords', keywords: ['buffer', 'hootsuite'] },
        { id: feeds[2]!.id, name: 'Key customers', source: 'people', handles: ['initech'] },
      ],
    });
    expect(second.json.data).toMatchObject({
      watchHandles: ['Acme', 'globex'],
      keywords: [],
      autoRefresh: true,
    });
    expect((second.json.data.feeds as Loose[]).map((f): unknown[] => [f.id, f.name])).toEqual([
      [feeds[0]!.id, 'competitors'],
      [feeds[2]!.id, 'Key customers'],
    ]);

    // The same save again appends nothing.
    const before = await eventCount(service);
    expect((await call(ws, 'PATCH', { keywords: [], autoRefresh: true })).json.data).toEqual(
      second.json.data,
    );
    expect(await eventCount(service)).toBe(before);
  });

  test('bad input is a 400 naming every refused field where it was sent; nothing is appended', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    const bad = await call(ws, 'PATCH', {
      watchHandles: ['fine', 'not a handle'],
      keywords: ['x'.repeat(101)],
      subreddits: ['r/a'],
      feeds: [
        { name: 'List', source: 'list', listId: 'twelve' },
        { name: 'People', source: 'people', handles: [] },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toEqual(expect.any(String));
    expect((bad.json.details as Loose[]).map((d) => String(d.path))).toEqual([
      'body.watchHandles.1',
      'body.keywords.0',
      'body.subreddits.0',
      'body.feeds.0.listId',
      'body.feeds.1.handles',
    ]);
    const unknown = await call(ws, 'PATCH', { autoRefresh: 'yes', extra: 1 });
    expect(unknown.status).toBe(400);
    const tooMany = await call(ws, 'PATCH', {
      feeds: Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, source: 'keywords', keywords: ['k'] })),
    });
    expect(tooMany.status).toBe(400);
    expect((tooMany.json.details as Loose[]).map((d) => String(d.path))).toEqual(['body.feeds']);
    expect(await eventCount(service)).toBe(before);
    expect((await call(ws, 'GET')).json.data).toEqual(defaults);
  });

  test('every member reads; only owners and admins save; another workspace is refused', async () => {
    const ws = await createTestWorkspace(service);
    const other = await createTestWorkspace(service, 'Other');
    for (const role of ['owner', 'admin', 'reviewer', 'editor', 'viewer'] as const)
      expect((await call(ws, 'GET', undefined, role)).status).toBe(200);
    for (const role of ['reviewer', 'editor', 'viewer'] as const)
      expect((await call(ws, 'PATCH', { autoRefresh: true }, role)).status).toBe(403);
    expect((await call(ws, 'PATCH', { autoRefresh: true }, 'admin')).json.data.autoRefresh).toBe(true);
    const foreign = await service.request('GET', path(ws), { token: other.tokens.owner });
    expect(foreign.status).toBe(403);
  });

  test('an Idempotency-Key replays the first answer', async () => {
    const ws = await createTestWorkspace(service);
    const headers = { 'idempotency-key': 'settings-key-1' };
    const body = { feeds: [{ name: 'Kw', source: 'keywords', keywords: ['launch'] }] };
    const first = await call(ws, 'PATCH', body, 'owner', headers);
    const again = await call(ws, 'PATCH', body, 'owner', headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data).toEqual(first.json.data);
  });
});

describe('the tools', () => {
  test('get_engagement_settings with mcp:read; update_engagement_settings only with posts:write', async () => {
    const ws = await createTestWorkspace(service);
    const reader = await connectAssistant(service, { userId: ws.userIds.owner, orgId: ws.orgId, scopes: [] });
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('get_engagement_settings');
    expect(names).not.toContain('update_engagement_settings');
    const got = (await reader.client.callTool({
      name: 'get_engagement_settings',
      arguments: {},
    })) as CallToolResult;
    expect(got.structuredContent).toEqual(defaults);
    expect((got.content[0] as { text: string }).text).toMatch(/auto refresh off/);

    const writer = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const saved = (await writer.client.callTool({
      name: 'update_engagement_settings',
      arguments: {
        redditKeywords: ['scheduling tool'],
        redditExcludeTerms: ['hiring'],
        subreddits: ['/r/SaaS'],
      },
    })) as CallToolResult;
    expect(saved.isError).toBeFalsy();
    expect(saved.structuredContent).toMatchObject({
      redditKeywords: ['scheduling tool'],
      redditExcludeTerms: ['hiring'],
      subreddits: ['SaaS'],
    });
    expect((await call(ws, 'GET')).json.data).toEqual(saved.structuredContent);

    const refused = (await writer.client.callTool({
      name: 'update_engagement_settings',
      arguments: { watchHandles: ['@@nope'] },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.structuredContent)).toContain('arguments.watchHandles.0');

    // An editor's assistant has posts:write but not the editor's role permission to save settings.
    const editors = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const denied = (await editors.client.callTool({
      name: 'update_engagement_settings',
      arguments: { autoRefresh: true },
    })) as CallToolResult;
    expect(denied.isError).toBe(true);
    expect(denied.structuredContent).toMatchObject({ status: 403 });
  });
});
