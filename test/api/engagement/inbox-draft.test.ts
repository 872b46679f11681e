// Drafting a reply for the reply inbox (POST ORG/engagement/{itemId}/draft) with a locally served model
// (test/support/model-server.ts records every prompt): the prompt has the brand voice, the post answered and the
// guidance, never the workspace's private or restricted knowledge; the item becomes drafted with draftReason; an X
// reply is fitted to 280; the offline writer drafts deterministically; nothing reaches a connector's send. And
// POST ORG/engagement/reddit-suggestions: keywords and subreddits from the brand and the strategy, saving nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { localModelEnv } from '../../support/ai-runtime.js';
import { candidate, installFakeEngagement, type FakeEngagement } from '../../support/fake-engagement.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let model: ModelServer;
let service: TestService;
let offline: TestService;
let fake: FakeEngagement;

beforeAll(async () => {
  model = await startModelServer();
  model.scenarios.set('reply-ok', () => ({
    content: JSON.stringify({
      draftText: 'We schedule threads natively, happy to show you.',
      draftReason: 'They asked.',
    }),
    usage: { input: 400, output: 40 },
  }));
  model.scenarios.set('reply-long', () => ({
    content: JSON.stringify({ draftText: 'word '.repeat(200).trim(), draftReason: 'Long.' }),
    usage: { input: 400, output: 400 },
  }));
  service = await startTestService({ env: localModelEnv(model.baseUrl, { AI_TIMEOUT_SECONDS: '10' }) });
  fake = installFakeEngagement(service);
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await offline?.stop();
  await model?.close();
});

const secrets = ['SECRET-RUNWAY-9-MONTHS', 'RESTRICTED-PIVOT-PLAN', 'GUARDRAIL-NEVER-NAME-ZEUS'];

async function workspaceWithItem(
  on: TestService,
  f: FakeEngagement,
): Promise<{ ws: TestWorkspace; item: Loose }> {
  const ws = await createTestWorkspace(on, 'Voice Co');
  const res = await on.request('PATCH', `/v1/orgs/${ws.orgId}/brand/profile`, {
    token: ws.tokens.owner,
    body: {
      voice: { tone: 'VOICE-WARM-AND-DIRECT', bannedPhrases: ['synergy'] },
      topics: ['SaaS marketing', 'social media scheduling'],
      knowledgeItems: [
        { kind: 'fact', text: `Runway is ${secrets[0]}`, disclosure: 'private' },
        { kind: 'claim', text: `We have a ${secrets[1]}`, disclosure: 'restricted' },
        { kind: 'fact', text: 'PUBLIC-FACT-THREADS-NATIVE', disclosure: 'public' },
      ],
      guardrails: [{ text: secrets[2], disclosure: 'restricted' }],
    },
  });
  expect(res.status).toBe(200);
  await connectSandboxAccount(on, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
  const post = candidate({
    text: 'POST-TEXT: does anyone schedule X threads ahead?',
    author: { handle: 'dana', name: 'Dana', followers: 10 },
  });
  f.posts = { x_mentions: [post] };
  const refreshed = await on.request('POST', `/v1/orgs/${ws.orgId}/engagement/refresh`, {
    token: ws.tokens.editor,
    body: {},
  });
  f.posts = {};
  const item = (((await refreshed.json()) as Loose).data.items as Loose[])[0]!;
  return { ws, item };
}

const draft = (on: TestService, ws: TestWorkspace, itemId: string, body: unknown) =>
  on.request('POST', `/v1/orgs/${ws.orgId}/engagement/${itemId}/draft`, { token: ws.tokens.editor, body });

describe('POST …/draft', () => {
  test('with a model: brand voice, the post and the guidance, never private knowledge; drafted; nothing sent', async () => {
    const { ws, item } = await workspaceWithItem(service, fake);
    const from = model.requests.length;
    const res = await draft(service, ws, item.id, { guidance: 'scenario:reply-ok GUIDANCE-OFFER-A-DEMO' });
    expect(res.status).toBe(200);
    const drafted = ((await res.json()) as Loose).data;
    expect(drafted).toMatchObject({
      status: 'drafted',
      draftText: 'We schedule threads natively, happy to show you.',
      draftReason: 'They asked.',
    });
    const prompts = model.prompts().slice(from);
    expect(prompts).toHaveLength(1);
    const prompt = prompts[0]!;
    expect(prompt).toContain('VOICE-WARM-AND-DIRECT');
    expect(prompt).toContain('Never use these phrases: synergy');
    expect(prompt).toContain('POST-TEXT: does anyone schedule X threads ahead?');
    expect(prompt).toContain('@dana');
    expect(prompt).toContain('GUIDANCE-OFFER-A-DEMO');
    expect(prompt).toContain('Recent posts of the brand');
    expect(prompt).toContain('PUBLIC-FACT-THREADS-NATIVE');
    for (const secret of secrets) expect(prompt).not.toContain(secret);
    expect(fake.sends).toEqual([]);
  });

  test("a model's reply longer than X takes is fitted to 280", async () => {
    const { ws, item } = await workspaceWithItem(service, fake);
    const res = await draft(service, ws, item.id, { guidance: 'scenario:reply-long' });
    expect(res.status).toBe(200);
    const drafted = ((await res.json()) as Loose).data;
    expect(drafted.draftText.length).toBeLessThanOrEqual(280);
    expect(drafted.status).toBe('drafted');
  });

  test('offline writer: deterministic; viewers 403; a sent item 409', async () => {
    offline = await startTestService();
    const f = installFakeEngagement(offline);
    const { ws, item } = await workspaceWithItem(offline, f);
    const first = ((await (await draft(offline, ws, item.id, {})).json()) as Loose).data;
    const second = ((await (await draft(offline, ws, item.id, {})).json()) as Loose).data;
    expect(first.draftText).toMatch(/^@dana Good question/);
    expect(second.draftText).toBe(first.draftText);
    expect(first.status).toBe('drafted');
    const viewer = await offline.request('POST', `/v1/orgs/${ws.orgId}/engagement/${item.id}/draft`, {
      token: ws.tokens.viewer,
      body: {},
    });
    expect(viewer.status).toBe(403);
    await offline.request('PATCH', `/v1/orgs/${ws.orgId}/engagement/${item.id}`, {
      token: ws.tokens.owner,
      body: { status: 'sent' },
    });
    expect((await draft(offline, ws, item.id, {})).status).toBe(409);
    expect(f.sends).toEqual([]);

    // Reddit suggestions: from the brand's topics; nothing saved.
    const before = await eventCount(offline);
    const res = await offline.request('POST', `/v1/orgs/${ws.orgId}/engagement/reddit-suggestions`, {
      token: ws.tokens.editor,
    });
    expect(res.status).toBe(200);
    const s = ((await res.json()) as Loose).data;
    expect(s.redditKeywords).toEqual(expect.arrayContaining(['SaaS marketing', 'social media scheduling']));
    expect(s.subreddits).toEqual(expect.arrayContaining(['SaaS', 'marketing', 'socialmedia']));
    expect(await eventCount(offline)).toBe(before);
  });
});
