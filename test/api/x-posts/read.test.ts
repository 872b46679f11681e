// POST ORG/marketing/x-posts/read and x-posts/thread (Tools: get_x_post, get_x_thread) through the X sandbox: the
// X post shape, usage, credits charged exactly once per post returned (the ledger's balance and usage rows say
// so), nothing for a read that fails (a deleted post, a revoked account), 402 fair_use_limit when the credits do
// not cover the read's most, Idempotency-Key retries charged once, bad input 400 naming the field, roles and
// other workspaces refused, and the tools for assistants granted posts:write only.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../../commands/billing/credits.js';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import { setSandboxAccountRevoked, type SandboxTables } from '../../../infra/connectors/sandbox/index.js';
import type { XPost } from '../../../infra/connectors/x-reads.js';
import type { SocialAccountView } from '../../../domain/social-accounts/social-account.js';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let account: SocialAccountView;
let credits: CreditsService;
let cost: number;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
  other = await createTestWorkspace(service, 'Other');
  account = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
  const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  cost = catalog.actionCost('x_post_read')!.credits;
  const commands = service.runtime.commands;
  const now = () => new Date();
  credits = new CreditsService({
    commands,
    catalog,
    store: new CreditLedgerStore(service.runtime.database.db),
    now,
    ensureStarted: async (orgId) => (await ensureStarted({ commands, catalog, now }, orgId)).state,
    readModels: service.runtime.readModels,
  });
}, 120_000);
afterAll(async () => service?.stop());

const balance = async (orgId = ws.orgId) => (await credits.summaryOf(orgId)).creditBalance.total;

interface Usage {
  postsReturned: number;
  postsCharged: number;
  creditsUsed: number;
}
interface ThreadRead {
  post: XPost;
  root: XPost | null;
  thread: XPost[];
  replies: XPost[];
  hasMore: boolean;
  usage: Usage;
}

const read = (body: unknown, token = ws.tokens.owner, headers: Record<string, string> = {}) =>
  service.request('POST', `${ws.base}/x-posts/read`, { token, body, headers });
const thread = (body: unknown, token = ws.tokens.owner, headers: Record<string, string> = {}) =>
  service.request('POST', `${ws.base}/x-posts/thread`, { token, body, headers });
const dataOf = async <T>(res: Response) => ((await res.json()) as { data: T }).data;

/** A sandbox post that opens a conversation with a thread and replies (the sandbox's ids are deterministic). */
async function conversationRoot(): Promise<XPost> {
  for (let n = 0; n < 200; n++) {
    const id = String(1790000000000000000n + BigInt(n) * 7919n);
    const res = await thread({ post: id, includeReplies: true, limit: 100 });
    const data = await dataOf<ThreadRead>(res);
    if (data.thread.length >= 2 && data.replies.length >= 2) return data.post;
  }
  throw new Error('no sandbox conversation with a thread and replies found');
}

describe('reading one post', () => {
  test('by link or id: the X post shape and its usage; one post returned, one charged', async () => {
    const before = await balance();
    const res = await read({
      post: 'https://x.com/someone/status/1790000000000000000?s=20',
      includeMedia: true,
    });
    expect(res.status).toBe(200);
    const { post, usage } = await dataOf<{ post: XPost; usage: Usage }>(res);
    expect(post).toMatchObject({
      id: '1790000000000000000',
      conversationId: '1790000000000000000',
      possiblySensitive: false,
    });
    expect(post.author).toMatchObject({ handle: expect.any(String), verified: expect.any(Boolean) });
    expect(post.metrics.likes).toBeGreaterThanOrEqual(0);
    expect(post.media.length).toBe(post.mediaCount);
    expect(usage).toEqual({ postsReturned: 1, postsCharged: 1, creditsUsed: cost });
    expect(await balance()).toBe(before - cost);

    // The same post by id reads the same (deterministic), without media unless asked.
    const again = await dataOf<{ post: XPost }>(await read({ post: '1790000000000000000' }));
    expect({ ...again.post, metrics: null }).toEqual({ ...post, media: [], metrics: null });
    expect(await balance()).toBe(before - 2 * cost);
  });

  test('a post published through the service reads back with its text, by the workspace’s account', async () => {
    const res = await service.request('POST', `${ws.base}/post-groups`, {
      token: ws.tokens.owner,
      body: { title: 'T', posts: [{ platform: 'x', contentText: 'Shipping the #changelog today @acme' }] },
    });
    const { group, posts } = await dataOf<{ group: { id: string }; posts: Array<{ id: string }> }>(res);
    await service.request('POST', `${ws.base}/post-groups/${group.id}/approve`, {
      token: ws.tokens.owner,
      body: { autoSchedule: false },
    });
    const published = await dataOf<{ publishedExternalId: string }>(
      await service.request('POST', `${ws.base}/posts/${posts[0]!.id}/post-now`, { token: ws.tokens.owner }),
    );
    const { post } = await dataOf<{ post: XPost }>(await read({ post: published.publishedExternalId }));
    expect(post).toMatchObject({
      text: 'Shipping the #changelog today @acme',
      hashtags: ['changelog'],
      mentions: ['acme'],
      author: { id: account.accountExternalId, handle: account.accountHandle },
    });
  });

  test('a post that is not there is a 404 and charges nothing', async () => {
    const before = await balance();
    const res = await read({ post: '1790000000000000404' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'x_post_not_found' });
    expect(await balance()).toBe(before);
  });

  test('a retry with the same Idempotency-Key answers the first read and charges once', async () => {
    const before = await balance();
    const headers = { 'Idempotency-Key': 'read-once-1' };
    const first = await read({ post: '1790000000000001234' }, ws.tokens.owner, headers);
    const second = await read({ post: '1790000000000001234' }, ws.tokens.owner, headers);
    expect(second.status).toBe(200);
    expect(second.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    expect(await balance()).toBe(before - cost);
  });
});

describe('reading a conversation', () => {
  test('root, the author’s thread oldest first and the replies; each distinct post charged once', async () => {
    const root = await conversationRoot();
    const before = await balance();
    const res = await thread({ post: root.id, includeReplies: true, limit: 100 });
    expect(res.status).toBe(200);
    const data = await dataOf<ThreadRead>(res);
    expect(data.root!.id).toBe(root.id);
    expect(data.post.id).toBe(root.id);
    for (const part of data.thread) {
      expect(part.author!.id).toBe(root.author!.id);
      expect(part.conversationId).toBe(root.id);
    }
    for (const reply of data.replies) expect(reply.author!.id).not.toBe(root.author!.id);
    const times = data.thread.map((p) => Date.parse(p.createdAt!));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The post is the root: it counts once.
    const distinct = 1 + data.thread.length + data.replies.length;
    expect(data.usage).toEqual({
      postsReturned: distinct,
      postsCharged: distinct,
      creditsUsed: distinct * cost,
    });
    expect(await balance()).toBe(before - distinct * cost);

    // A thread part read by id tells the same story: its conversation, its place, its root as the answer's root.
    const part = data.thread[1]!;
    const fromPart = await dataOf<ThreadRead>(await thread({ post: part.id, limit: 1 }));
    expect(fromPart.post).toMatchObject({
      id: part.id,
      text: part.text,
      inReplyToPostId: data.thread[0]!.id,
    });
    expect(fromPart.root!.id).toBe(root.id);
    expect(fromPart.post.referencedPosts[0]).toMatchObject({ type: 'replied_to', id: data.thread[0]!.id });
    // limit 1: the post, the root and one thread part (the first, which is not the post): three distinct posts.
    expect(fromPart.thread).toHaveLength(1);
    expect(fromPart.hasMore).toBe(true);
    expect(fromPart.usage.postsReturned).toBe(3);
  });

  test('the usage row says how many posts the read returned', async () => {
    const root = await conversationRoot();
    const res = await thread({ post: root.id, limit: 2 }, ws.tokens.editor);
    const { usage } = await dataOf<ThreadRead>(res);
    const page = await dataOf<{ data: Array<{ quantity: number; amountUsed: number; metricKey: string }> }>(
      await service.request(
        'GET',
        `/v1/orgs/${ws.orgId}/billing/credits/usage?metricKey=x_post_read&limit=1`,
        {
          token: ws.tokens.viewer,
        },
      ),
    );
    expect(page.data[0]).toMatchObject({
      metricKey: 'x_post_read',
      quantity: usage.postsReturned,
      amountUsed: usage.creditsUsed,
    });
  });
});

describe('credits', () => {
  test('402 fair_use_limit when the credits do not cover the read’s most; nothing charged', async () => {
    const poor = await createTestWorkspace(service, 'Poor');
    await connectSandboxAccount(service, { orgId: poor.orgId, userId: poor.userIds.owner }, 'x');
    const total = await balance(poor.orgId);
    await credits.spend({ orgId: poor.orgId, key: 'drain', credits: total - 3 * cost, metricKey: 'test' });
    const at = (path: string, body: unknown) =>
      service.request('POST', `${poor.base}/x-posts/${path}`, { token: poor.tokens.owner, body });
    // A thread of up to 5 (limit 3 + the post + its root) does not fit in 3 posts' credits.
    const refused = await at('thread', { post: '1790000000000000000', limit: 3 });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({
      code: 'fair_use_limit',
      error: expect.stringMatching(/up to 5 posts/),
    });
    expect(await balance(poor.orgId)).toBe(3 * cost);
    // One post fits, three times; the fourth read is refused.
    for (let i = 0; i < 3; i++) expect((await at('read', { post: '1790000000000000000' })).status).toBe(200);
    const broke = await at('read', { post: '1790000000000000000' });
    expect(broke.status).toBe(402);
    expect(await broke.json()).toMatchObject({ code: 'fair_use_limit' });
    expect(await balance(poor.orgId)).toBe(0);
  });

  test('a read that fails at X charges nothing: a revoked account needs reconnecting (409)', async () => {
    const revoked = await createTestWorkspace(service, 'Revoked');
    const acc = await connectSandboxAccount(
      service,
      { orgId: revoked.orgId, userId: revoked.userIds.owner },
      'x',
      {
        account: 'revoked_reader',
      },
    );
    await setSandboxAccountRevoked(
      service.runtime.readModels as unknown as Kysely<SandboxTables>,
      'x',
      acc.accountExternalId,
      true,
    );
    const before = await balance(revoked.orgId);
    const res = await service.request('POST', `${revoked.base}/x-posts/read`, {
      token: revoked.tokens.owner,
      body: { post: '1790000000000000000' },
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'account_needs_reconnect' });
    expect(await balance(revoked.orgId)).toBe(before);
  });
});

describe('refusals', () => {
  test('bad input is a 400 naming the field and changes nothing', async () => {
    const before = await eventCount(service);
    const cases: Array<[string, unknown, string]> = [
      ['read', { post: 'https://example.com/not-a-post' }, 'body.post'],
      ['read', { post: '' }, 'body.post'],
      ['read', {}, 'body.post'],
      ['read', { post: '1', extra: true }, 'body'],
      ['read', { post: '1', includeMedia: 'yes' }, 'body.includeMedia'],
      ['thread', { post: '1', limit: 0 }, 'body.limit'],
      ['thread', { post: '1', limit: 101 }, 'body.limit'],
      ['thread', { post: '1', socialAccountId: 'nope' }, 'body.socialAccountId'],
    ];
    for (const [path, body, field] of cases) {
      const res = await (path === 'read' ? read(body) : thread(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = (await res.json()) as { error: string; details: Array<{ path: string }> };
      expect(error.error).toEqual(expect.any(String));
      expect(error.details.map((d) => d.path).join(' '), JSON.stringify(body)).toContain(field);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('an X account of another workspace is a 400 naming socialAccountId; none connected is a 409', async () => {
    const res = await read({ post: '1', socialAccountId: '00000000-0000-4000-8000-000000000099' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { details: Array<{ path: string }> }).details[0]!.path).toBe(
      'body.socialAccountId',
    );
    const none = await service.request('POST', `${other.base}/x-posts/read`, {
      token: other.tokens.owner,
      body: { post: '1790000000000000000' },
    });
    expect(none.status).toBe(409);
    expect(await none.json()).toMatchObject({ code: 'account_none' });
  });

  test('roles that may not draft, other workspaces and missing tokens are refused', async () => {
    for (const role of ['viewer', 'reviewer'] as const)
      expect((await read({ post: '1790000000000000000' }, ws.tokens[role])).status).toBe(403);
    expect((await read({ post: '1790000000000000000' }, other.tokens.owner)).status).toBe(403);
    expect((await thread({ post: '1790000000000000000' }, other.tokens.owner)).status).toBe(403);
    expect((await service.request('POST', `${ws.base}/x-posts/read`, { body: { post: '1' } })).status).toBe(
      401,
    );
  });
});

describe('tools', () => {
  test('get_x_post and get_x_thread for posts:write; absent without it', async () => {
    const writer = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['mcp:read', 'posts:write'],
    });
    const names = (await writer.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['get_x_post', 'get_x_thread', 'get_x_account_analytics']));
    const before = await balance();
    const post = (await writer.client.callTool({
      name: 'get_x_post',
      arguments: { post: 'https://twitter.com/x/status/1790000000000000000' },
    })) as CallToolResult;
    expect(post.isError).toBeFalsy();
    expect(post.structuredContent).toMatchObject({
      post: { id: '1790000000000000000' },
      usage: { postsReturned: 1, postsCharged: 1 },
    });
    const conversation = (await writer.client.callTool({
      name: 'get_x_thread',
      arguments: { post: '1790000000000000000', limit: 2 },
    })) as CallToolResult;
    expect(conversation.isError).toBeFalsy();
    const used = (conversation.structuredContent as { usage: Usage }).usage;
    expect(await balance()).toBe(before - cost - used.creditsUsed);
    const bad = (await writer.client.callTool({
      name: 'get_x_post',
      arguments: { post: 'nope' },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('arguments.post');

    const reader = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['mcp:read'],
    });
    const readable = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(readable).not.toContain('get_x_post');
    expect(readable).not.toContain('get_x_thread');
    expect(readable).toContain('get_x_account_analytics');
  });
});
