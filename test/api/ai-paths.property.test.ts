// Issue 29, item 5, as a property: whatever the AI writing paths are asked (thought drafting, launch kits, X
// threads, rewrites, generated and summarised text), by whichever caller (an owner, an editor, an assistant granted
// every scope including posts:schedule and posts:publish), nothing they produce is ever scheduled or published:
// every group they create waits in review as pending_approval, no approval, scheduling or publishing event is ever
// appended, and no publish job reaches a connector.
import fc from 'fast-check';
import { sql } from 'kysely';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectAssistant, type TestAssistant } from '../support/assistant.js';
import { propertyRuns } from '../support/property-runs.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { connectSandboxAccount } from '../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
let assistant: TestAssistant;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Property Co');
  // Accounts the drafts could go out on: nothing stands between a draft and a connector but review.
  for (const platform of ['x', 'linkedin', 'bluesky', 'threads'] as const)
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, platform);
  assistant = await connectAssistant(service, {
    userId: ws.userIds.owner,
    orgId: ws.orgId,
    scopes: ['mcp:read', 'posts:write', 'posts:schedule', 'posts:publish'],
  });
});

afterAll(async () => {
  await assistant?.client.close();
  await service?.stop();
});

type Caller = 'owner' | 'editor' | 'assistant';
const org = () => `/v1/orgs/${ws.orgId}`;

/** One call by a caller: a user through its REST route, an assistant through the tool. */
async function call(
  caller: Caller,
  rest: { method: string; path: string; body?: unknown },
  tool: { name: string; arguments: Record<string, unknown> } | null,
): Promise<{ ok: boolean; status: number; data: unknown }> {
  if (caller === 'assistant' && tool) {
    const result = (await assistant.client.callTool(tool)) as CallToolResult;
    const content = result.structuredContent;
    return { ok: !result.isError, status: Number(content?.status ?? 200), data: content };
  }
  const token = ws.tokens[caller === 'assistant' ? 'owner' : caller];
  const res = await service.request(rest.method, rest.path, {
    token,
    ...(rest.body !== undefined ? { body: rest.body } : {}),
  });
  const json = (await res.json()) as { data?: unknown };
  return { ok: res.ok, status: res.status, data: json.data ?? json };
}

const forbiddenEvents = [
  'PostGroupApproved',
  'PostsScheduled',
  'PostPublishRequested',
  'PostPublishAttemptStarted',
  'PostPublished',
  'PostAwaitingPlatform',
  'PostPublishAttemptFailed',
];

const words = fc.array(
  fc.constantFrom('ship', 'weekly', 'customers', 'pricing', 'lesson', 'data', 'café', '🚀'),
  {
    minLength: 2,
    maxLength: 30,
  },
);
const sentence = words.map((w) => `${w.join(' ')}.`);
const text = fc.array(sentence, { minLength: 1, maxLength: 4 }).map((s) => s.join(' '));
const guidance = fc.option(fc.constantFrom('shorter', 'add a question', 'more formal', 'no emoji'), {
  nil: undefined,
});
const socialPlatforms = fc.subarray(['x', 'linkedin', 'bluesky', 'threads'] as const, { minLength: 1 });

/** The post ids the writing paths made so far: rewrite picks among them. */
const madePosts: string[] = [];

const action = fc.oneof(
  fc.record({
    kind: fc.constant('thought' as const),
    text,
    thoughtKind: fc.constantFrom('thought', 'tip', 'opinion', 'story', 'lesson'),
    platforms: socialPlatforms,
    guidance,
  }),
  fc.record({
    kind: fc.constant('launch' as const),
    pitch: text,
    daysAhead: fc.integer({ min: -30, max: 400 }),
    channels: fc.subarray(['product_hunt', 'hacker_news', 'x', 'linkedin'] as const, { minLength: 1 }),
  }),
  fc.record({ kind: fc.constant('thread' as const), topic: text, parts: fc.integer({ min: 2, max: 6 }) }),
  fc.record({
    kind: fc.constant('rewrite' as const),
    pick: fc.nat(),
    guidance: fc.constantFrom('shorter', 'add a question'),
  }),
  fc.record({ kind: fc.constant('generate' as const), prompt: text }),
  fc.record({ kind: fc.constant('summarize' as const), text }),
);

type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

async function run(caller: Caller, a: Action): Promise<void> {
  const remember = (data: unknown) => {
    const posts = (data as { posts?: { id: string }[] } | null)?.posts ?? [];
    madePosts.push(...posts.map((p) => p.id));
  };
  switch (a.kind) {
    case 'thought': {
      const saved = await call(
        caller,
        { method: 'POST', path: `${org()}/thoughts`, body: { text: a.text, kind: a.thoughtKind } },
        { name: 'save_thought', arguments: { text: a.text, kind: a.thoughtKind } },
      );
      expect(saved.ok, JSON.stringify(saved.data)).toBe(true);
      const thoughtId = (saved.data as { id: string }).id;
      const body = { platforms: a.platforms, ...(a.guidance ? { guidance: a.guidance } : {}) };
      const drafted = await call(
        caller,
        { method: 'POST', path: `${org()}/thoughts/${thoughtId}/drafts`, body },
        { name: 'draft_post_from_thought', arguments: { thoughtId, ...body } },
      );
      expect(drafted.ok, JSON.stringify(drafted.data)).toBe(true);
      remember(drafted.data);
      return;
    }
    case 'launch': {
      const launchDate = new Date(Date.now() + a.daysAhead * 86_400_000).toISOString().slice(0, 10);
      const body = { pitch: a.pitch, launchDate, channels: a.channels };
      const created = await call(
        caller,
        { method: 'POST', path: `${org()}/launch-kits`, body },
        { name: 'create_launch_kit', arguments: body },
      );
      expect(created.ok, JSON.stringify(created.data)).toBe(true);
      return;
    }
    case 'thread': {
      const body = { topic: a.topic, parts: a.parts };
      const created = await call(
        caller,
        { method: 'POST', path: `${org()}/marketing/drafts/x-thread`, body },
        { name: 'create_x_thread', arguments: body },
      );
      expect(created.ok, JSON.stringify(created.data)).toBe(true);
      remember(created.data);
      return;
    }
    case 'rewrite': {
      if (madePosts.length === 0) return;
      const postId = madePosts[a.pick % madePosts.length]!;
      const body = { guidance: a.guidance };
      const rewritten = await call(
        caller,
        { method: 'POST', path: `${org()}/marketing/posts/${postId}/rewrite`, body },
        { name: 'rewrite_post', arguments: { postId, ...body } },
      );
      expect(rewritten.ok, JSON.stringify(rewritten.data)).toBe(true);
      return;
    }
    case 'generate':
    case 'summarize': {
      // No tool: an assistant's person asks through the app.
      const path = a.kind === 'generate' ? 'ai/content/generate' : 'ai/summarize';
      const body = a.kind === 'generate' ? { prompt: a.prompt } : { text: a.text };
      const answered = await call(caller, { method: 'POST', path: `${org()}/${path}`, body }, null);
      expect(answered.ok, JSON.stringify(answered.data)).toBe(true);
      return;
    }
  }
}

describe('the AI writing paths never schedule or publish', () => {
  test('for any calls by any caller, every group they made waits in review and nothing went further', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom<Caller>('owner', 'editor', 'assistant'), action), {
          minLength: 1,
          maxLength: 4,
        }),
        async (calls) => {
          for (const [caller, a] of calls) await run(caller, a);
          const db = service.runtime.database.db;
          const events = await sql<{ type: string; n: number }>`
            select type, count(*)::int as n from es_events group by type`.execute(db);
          for (const row of events.rows) expect(forbiddenEvents).not.toContain(row.type);
          const groups = await sql<{ status: string; n: number }>`
            select status, count(*)::int as n from post_groups where org_id = ${ws.orgId} group by status`.execute(
            db,
          );
          expect(groups.rows.map((r) => r.status)).toEqual(
            groups.rows.length > 0 ? ['pending_approval'] : [],
          );
          const posts = await sql<{ status: string }>`
            select distinct status from posts where org_id = ${ws.orgId}`.execute(db);
          expect(posts.rows.map((r) => r.status)).toEqual(posts.rows.length > 0 ? ['pending_approval'] : []);
        },
      ),
      { numRuns: propertyRuns(40, 8) },
    );
  }, 300_000);
});
