// The assistant-tool server at /mcp with the official SDK's client: discovery from the 401, tools listed by the
// connection's scopes, calls that run the routes' use cases, approval rules for assistants, errors as tool
// errors with the HTTP error's status, message and code, the audit trail naming the assistant and its user.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { hostAllowed } from '../../../api/mcp/tool-server.js';
import { operations as declared } from '../../../api/slices.js';
import { connectAssistant, mcpClient, mcpUrl, type TestAssistant } from '../../support/assistant.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
});
afterAll(async () => service.stop());

const draft = {
  title: 'Launch week',
  posts: [
    { platform: 'x', contentText: 'We launch on Monday' },
    { platform: 'linkedin', contentText: 'We launch on Monday, here is why' },
  ],
};

// Answers are read loosely: each test names the fields it checks.
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function structured(result: unknown): Loose {
  return (result as CallToolResult).structuredContent as Loose;
}

describe('discovery', () => {
  test('without a token: 401 naming the protected resource metadata, which names this service', async () => {
    const res = await service.runtime.app.request(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
    expect(metadataUrl).toMatch(/\/\.well-known\/oauth-protected-resource\/mcp$/);
    expect(challenge).toContain(
      'scope="mcp:read posts:write posts:schedule posts:publish posts:delete brand:write"',
    );
    const metadata = (await (await service.runtime.app.request(new URL(metadataUrl).pathname)).json()) as {
      resource: string;
      authorization_servers: string[];
      scopes_supported: string[];
    };
    expect(metadata.resource).toBe(metadataUrl.replace('/.well-known/oauth-protected-resource', ''));
    expect(metadata.authorization_servers).toEqual([metadata.resource.replace(/\/mcp$/, '')]);
    expect(metadata.scopes_supported).toContain('posts:publish');
  });

  test('an unknown token: 401 invalid_token, and the SDK client cannot connect', async () => {
    const res = await service.runtime.app.request(mcpUrl, {
      method: 'POST',
      headers: { authorization: 'Bearer spa_not-a-token', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expect(mcpClient(service, 'spa_not-a-token')).rejects.toThrow();
  });
});

describe('an assistant with mcp:read and posts:write', () => {
  let assistant: TestAssistant;
  beforeAll(async () => {
    assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
      clientName: 'Claude',
    });
  });

  test('tools/list shows exactly the tools of its scopes, with input schemas', async () => {
    const { tools } = await assistant.client.listTools();
    // Exactly the declared operations' tools of its scopes (api/slices.ts), and none needing another scope.
    const granted = new Set(['mcp:read', 'posts:write']);
    const expected = declared
      .filter((op) => op.tool !== undefined && op.access.scope !== undefined && granted.has(op.access.scope))
      .map((op) => op.name);
    expect(tools.map((t) => t.name).sort()).toEqual([...expected].sort());
    expect(expected).toEqual(expect.arrayContaining(['create_draft_post', 'list_posts', 'update_post']));
    expect(expected).not.toContain('approve_post_group');
    const create = tools.find((t) => t.name === 'create_draft_post')!;
    expect(create.inputSchema.type).toBe('object');
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['title', 'posts']));
    expect(tools.find((t) => t.name === 'list_posts')!.annotations?.readOnlyHint).toBe(true);
  });

  test('list_social_accounts answers the REST list under `items` (a tool answers an object), with a summary', async () => {
    const result = (await assistant.client.callTool({
      name: 'list_social_accounts',
      arguments: {},
    })) as CallToolResult;
    const rest = await service.request('GET', `${ws.base}/accounts`, { token: ws.tokens.editor });
    const { data } = (await rest.json()) as { data: unknown[] };
    expect(result.structuredContent).toEqual({ items: data });
    expect(result.content).toEqual([{ type: 'text', text: `${data.length} connected account(s).` }]);
  });

  test('a draft it creates waits for approval, and the audit trail names the assistant and its user', async () => {
    const result = structured(
      await assistant.client.callTool({ name: 'create_draft_post', arguments: draft }),
    );
    expect(result.group.status).toBe('pending_approval');
    expect((result.posts as Array<{ status: string }>).map((p) => p.status)).toEqual([
      'pending_approval',
      'pending_approval',
    ]);

    // The same draft is what the app sees, through the same use case's read side.
    const listed = structured(
      await assistant.client.callTool({
        name: 'list_posts',
        arguments: { 'filter[status]': 'pending_approval' },
      }),
    );
    expect((listed.items as Array<{ groupId: string }>).map((p) => p.groupId)).toContain(result.group.id);

    const history = await service.request('GET', `${ws.base}/post-groups/${result.group.id}/history`, {
      token: ws.tokens.owner,
    });
    const entries = ((await history.json()) as { data: { entries: Array<{ actor: unknown }> } }).data.entries;
    expect(entries[0]!.actor).toEqual({
      type: 'assistant',
      clientId: assistant.clientId,
      clientName: 'Claude',
      userId: ws.userIds.editor,
    });
    const events = await service.runtime.eventStore.readStream(`postGroup-${result.group.id}`);
    expect(events[0]!.metadata).toMatchObject({
      actor: `assistant:${assistant.clientId}`,
      assistant: {
        clientId: assistant.clientId,
        clientName: 'Claude',
        connectionId: assistant.connectionId,
        onBehalfOf: ws.userIds.editor,
      },
    });
  });

  test('a tool outside its scopes is refused as a tool error (403 insufficient_scope)', async () => {
    const result = (await assistant.client.callTool({
      name: 'approve_post_group',
      arguments: { groupId: '00000000-0000-4000-8000-000000000000' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  test('bad input: a tool error with the HTTP 400 details, nothing created', async () => {
    const before = structured(await assistant.client.callTool({ name: 'list_posts', arguments: {} })).total;
    const result = (await assistant.client.callTool({
      name: 'create_draft_post',
      arguments: { title: '', posts: [], extra: 1 },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 400, error: 'Invalid request' });
    const paths = (result.structuredContent!.details as Array<{ path: string }>).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['arguments.title', 'arguments.posts', 'arguments.extra']));
    expect(structured(await assistant.client.callTool({ name: 'list_posts', arguments: {} })).total).toBe(
      before,
    );
  });

  test('a domain error keeps the HTTP answer’s status and message (404 for a group of another workspace)', async () => {
    const other = await createTestWorkspace(service, 'Other');
    const res = await service.request('POST', `${other.base}/drafts`, {
      token: other.tokens.owner,
      body: draft,
    });
    const foreignGroup = ((await res.json()) as { data: { group: { id: string } } }).data.group.id;
    const http = await service.request('PATCH', `${ws.base}/post-groups/${foreignGroup}`, {
      token: ws.tokens.editor,
      body: { title: 'Mine now' },
    });
    const result = (await assistant.client.callTool({
      name: 'update_post_group',
      arguments: { groupId: foreignGroup, title: 'Mine now' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ status: http.status, ...((await http.json()) as object) });
    expect(http.status).toBe(404);
  });
});

describe('approval rules', () => {
  test('post_now refuses a post that is not approved (409), as the route does', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['posts:write', 'posts:publish'],
    });
    const created = structured(
      await assistant.client.callTool({ name: 'create_draft_post', arguments: draft }),
    );
    const postId = created.posts[0].id as string;
    const result = (await assistant.client.callTool({
      name: 'post_now',
      arguments: { postId },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 409 });
    const group = await service.request('GET', `${ws.base}/post-groups/${created.group.id}`, {
      token: ws.tokens.owner,
    });
    const posts = ((await group.json()) as { data: { posts: Array<{ status: string }> } }).data.posts;
    expect(posts.map((p) => p.status)).toEqual(['pending_approval', 'pending_approval']);
  });

  test('an assistant never approves what an assistant drafted (403), a member does, and the history names who acted', async () => {
    const drafter = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['posts:write', 'posts:schedule'],
      clientName: 'Drafter',
    });
    const created = structured(
      await drafter.client.callTool({ name: 'create_draft_post', arguments: draft }),
    );
    const groupId = created.group.id as string;
    // Neither the drafting connection nor another assistant of the same user may approve it.
    const another = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['posts:write', 'posts:schedule'],
    });
    for (const assistant of [drafter, another]) {
      const refused = (await assistant.client.callTool({
        name: 'approve_post_group',
        arguments: { groupId, autoSchedule: false },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({
        status: 403,
        code: 'assistant_cannot_approve_assistant_content',
      });
      const patched = (await assistant.client.callTool({
        name: 'update_post',
        arguments: { postId: created.posts[0].id, status: 'approved' },
      })) as CallToolResult;
      expect(patched.structuredContent).toMatchObject({ status: 403 });
    }
    const unchanged = await service.request('GET', `${ws.base}/post-groups/${groupId}`, {
      token: ws.tokens.owner,
    });
    expect(((await unchanged.json()) as { data: { group: { status: string } } }).data.group.status).toBe(
      'pending_approval',
    );

    // A member's draft an assistant may approve: the approval names the assistant acting for its user.
    const res = await service.request('POST', `${ws.base}/drafts`, { token: ws.tokens.owner, body: draft });
    const memberGroup = ((await res.json()) as { data: { group: { id: string } } }).data.group.id;
    const approved = structured(
      await drafter.client.callTool({
        name: 'approve_post_group',
        arguments: { groupId: memberGroup, autoSchedule: false },
      }),
    );
    expect((approved.approvals as Loose[]).at(-1)).toMatchObject({
      action: 'approved',
      approvedByUserId: ws.userIds.owner,
      assistant: { clientId: drafter.clientId, clientName: 'Drafter' },
    });
    const history = await service.request('GET', `${ws.base}/post-groups/${memberGroup}/history`, {
      token: ws.tokens.owner,
    });
    const entries = ((await history.json()) as { data: { entries: Array<Loose> } }).data.entries;
    expect(entries.at(-1)).toMatchObject({
      action: 'approved',
      actor: { type: 'assistant', clientId: drafter.clientId, userId: ws.userIds.owner },
    });

    // The assistant's draft, approved by the member in the app.
    const byMember = await service.request('POST', `${ws.base}/post-groups/${groupId}/approve`, {
      token: ws.tokens.owner,
      body: { autoSchedule: false },
    });
    expect(byMember.status).toBe(200);
  });

  test('the role still limits an assistant: a viewer’s connection cannot draft even with posts:write', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const result = (await assistant.client.callTool({
      name: 'create_draft_post',
      arguments: draft,
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 403 });
  });
});

test('a revoked connection ends at once: its access token gets 401', async () => {
  const assistant = await connectAssistant(service, {
    userId: ws.userIds.editor,
    orgId: ws.orgId,
    scopes: [],
  });
  expect((await assistant.client.listTools()).tools.map((t) => t.name)).toEqual(
    expect.arrayContaining(['list_posts']),
  );
  await assistant.revoke();
  await expect(assistant.client.listTools()).rejects.toThrow();
  await expect(mcpClient(service, assistant.accessToken)).rejects.toThrow();
});

test('DNS rebinding: another host or a foreign browser origin is refused (403) before anything else', async () => {
  const { accessToken } = await connectAssistant(service, {
    userId: ws.userIds.editor,
    orgId: ws.orgId,
    scopes: [],
  });
  const post = (headers: Record<string, string>) =>
    service.runtime.app.request(mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
  expect((await post({ host: 'evil.example.com' })).status).toBe(403);
  expect((await post({ host: 'localhost:3000', origin: 'http://evil.example.com' })).status).toBe(403);
  expect((await post({ host: '127.0.0.1:3000', origin: 'http://localhost:3000' })).status).toBe(200);
  // A page another program serves on another loopback port is another origin.
  expect((await post({ host: 'localhost:3000', origin: 'http://localhost:5173' })).status).toBe(403);
  expect((await post({ host: 'localhost:3000', origin: 'http://127.0.0.1:8080' })).status).toBe(403);
  expect((await post({ host: 'localhost:3000', origin: 'https://localhost:3000' })).status).toBe(403);
  expect((await post({ host: 'localhost:3000', origin: 'null' })).status).toBe(403);
});

describe('the Origin a browser may send to /mcp', () => {
  const app = ['https://app.example.org', 'http://localhost:5173'];
  test('a configured app origin, exactly: scheme, host and port', () => {
    const allowed = (base: string, host: string, origin: string) => hostAllowed(base, app, host, origin);
    expect(allowed('https://api.example.org', 'api.example.org', 'https://app.example.org')).toBe(true);
    expect(allowed('https://api.example.org', 'api.example.org', 'https://app.example.org:8443')).toBe(false);
    expect(allowed('https://api.example.org', 'api.example.org', 'http://app.example.org')).toBe(false);
    expect(allowed('http://localhost:3000', 'localhost:3000', 'http://localhost:5173')).toBe(true);
    expect(allowed('http://localhost:3000', 'localhost:3000', 'http://localhost:5174')).toBe(false);
  });

  test('its own origin only for a service on loopback (any loopback name, same port); none sent is fine', () => {
    expect(hostAllowed('http://localhost:3000', [], 'localhost:3000', 'http://[::1]:3000')).toBe(true);
    expect(hostAllowed('http://localhost:3000', [], 'localhost:3000', 'http://localhost:3001')).toBe(false);
    expect(hostAllowed('http://localhost', [], 'localhost', 'http://127.0.0.1:80')).toBe(true);
    expect(hostAllowed('https://api.example.org', [], 'api.example.org', 'https://api.example.org')).toBe(
      false,
    );
    expect(hostAllowed('https://api.example.org', [], 'api.example.org', undefined)).toBe(true);
  });
});

test('tokens do not cross over: an app token is refused at /mcp, an assistant token on the app API', async () => {
  const asMcp = await service.runtime.app.request(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ws.tokens.owner}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  expect(asMcp.status).toBe(401);
  expect(asMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
  const { accessToken } = await connectAssistant(service, {
    userId: ws.userIds.owner,
    orgId: ws.orgId,
    scopes: ['posts:write'],
  });
  const asApp = await service.request('GET', `${ws.base}/posts`, { token: accessToken });
  expect(asApp.status).toBe(401);
});
