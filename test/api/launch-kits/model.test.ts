// POST ORG/launch-kits against a locally served model: the prompt carries the pitch, the brand voice, the public
// knowledge and the strategy pillars, never the private or restricted knowledge or the guardrails; the model's copy
// is used (a post it left out is the offline writer's); the credits (ai_launch_kit) are reserved and charged once
// per run (a replay with the same key charges nothing more); a provider failure leaves no kit, no group, no
// charge, and answers the runner's error.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LaunchKitCopy } from '../../../domain/launch-kits/create-job.js';
import { localModelEnv, testCredits } from '../../support/ai-runtime.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { answer, kitCalls, refused, type Created, type Kit } from './support.js';
import { sql } from 'kysely';

let service: TestService;
let model: ModelServer;
let call: ReturnType<typeof kitCalls>['call'];
let cost: number;

const copy: LaunchKitCopy = {
  productName: 'Shipday',
  productHunt: {
    name: 'Shipday',
    tagline: 'Release notes people read',
    description: 'MODEL-PH-DESCRIPTION: Shipday turns a changelog into release notes.',
    topics: ['Developer Tools', 'Productivity'],
    firstComment: 'MODEL-FIRST-COMMENT',
    galleryIdeas: ['MODEL-GALLERY-1'],
  },
  hackerNews: {
    title: 'Show HN: Shipday – release notes from your changelog',
    url: null,
    text: 'MODEL-HN-TEXT',
  },
  posts: [
    { key: 'x.teaser', channel: 'x', contentText: 'MODEL-X-TEASER', title: null },
    { key: 'x.launch', channel: 'x', contentText: 'MODEL-X-LAUNCH', title: null },
    { key: 'x.follow_up', channel: 'x', contentText: 'MODEL-X-FOLLOW-UP', title: null },
    { key: 'linkedin.teaser', channel: 'linkedin', contentText: 'MODEL-LI-TEASER', title: null },
    { key: 'linkedin.launch', channel: 'linkedin', contentText: 'MODEL-LI-LAUNCH', title: null },
    // linkedin.follow_up left out: the offline writer's post is drafted instead.
  ],
  tasks: [{ key: 'assets', detail: 'MODEL-ASSETS-DETAIL' }],
};

beforeAll(async () => {
  model = await startModelServer();
  model.scenarios.set('ok', () => ({ content: JSON.stringify(copy), usage: { input: 1500, output: 700 } }));
  model.scenarios.set('down', () => ({ status: 500, body: { error: { message: 'provider down' } } }));
  service = await startTestService({ env: localModelEnv(model.baseUrl, { AI_TIMEOUT_SECONDS: '10' }) });
  call = kitCalls(service).call;
  cost = testCredits(service).catalog.actionCost('ai_launch_kit')!.credits;
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await model?.close();
});

const balance = async (ws: TestWorkspace) =>
  (await testCredits(service).credits.summaryOf(ws.orgId)).creditBalance.total;
const groupsOf = async (ws: TestWorkspace) =>
  (
    await sql<{ n: number }>`select count(*)::int as n from post_groups where org_id = ${ws.orgId}`.execute(
      service.runtime.readModels,
    )
  ).rows[0]!.n;

const secrets = [
  'SECRET-MARGIN-41-PERCENT',
  'RESTRICTED-ACQUISITION-TALKS',
  'GUARDRAIL-NEVER-MENTION-FALCON',
];

async function groundedWorkspace(): Promise<TestWorkspace> {
  const ws = await createTestWorkspace(service, 'Shipday Inc');
  const profile = await service.request('PATCH', `/v1/orgs/${ws.orgId}/brand/profile`, {
    token: ws.tokens.owner,
    body: {
      voice: { tone: 'VOICE-PLAINSPOKEN-AND-DRY', bannedPhrases: ['game-changer'] },
      knowledgeItems: [
        { kind: 'fact', text: `Our gross margin is ${secrets[0]}`, disclosure: 'private' },
        { kind: 'claim', text: `We are in ${secrets[1]}`, disclosure: 'restricted' },
        { kind: 'fact', text: 'PUBLIC-FACT-USED-BY-300-TEAMS', disclosure: 'public' },
      ],
      guardrails: [{ text: secrets[2], disclosure: 'restricted' }],
    },
  });
  expect(profile.status, await profile.clone().text()).toBe(200);
  const strategy = await service.request('PATCH', `/v1/orgs/${ws.orgId}/strategy`, {
    token: ws.tokens.owner,
    body: { pillars: [{ name: 'PILLAR-RELEASE-HYGIENE', description: 'Shipping habits' }] },
  });
  expect(strategy.status, await strategy.clone().text()).toBe(200);
  return ws;
}

describe('with a model', () => {
  test('the prompt is grounded and discloses nothing private; the copy is the model’s; credits charged once', async () => {
    const ws = await groundedWorkspace();
    const before = await balance(ws);
    const from = model.requests.length;
    const body = {
      pitch: 'PITCH-SHIPDAY: release notes from your changelog.',
      launchDate: '2026-11-03',
      url: 'https://shipday.example',
      channels: ['product_hunt', 'hacker_news', 'x', 'linkedin'],
      guidance: 'GUIDANCE-STRESS-SPEED',
    };
    const headers = { 'Idempotency-Key': 'model-kit' };
    const created = await answer<Created>(await call(ws, 'POST', '', body, { headers }), 201);
    expect(created.providerModel).toBe('openai-compatible:gpt-4o-mini');
    expect(created.creditsUsed).toBe(cost);
    expect(await balance(ws)).toBe(before - cost);
    expect(created.remainingCredits).toBe(before - cost);

    const prompts = model.prompts().slice(from);
    expect(prompts).toHaveLength(1);
    const prompt = prompts[0]!;
    for (const needed of [
      'PITCH-SHIPDAY',
      'VOICE-PLAINSPOKEN-AND-DRY',
      'game-changer',
      'PUBLIC-FACT-USED-BY-300-TEAMS',
      'PILLAR-RELEASE-HYGIENE',
      'GUIDANCE-STRESS-SPEED',
      'https://shipday.example',
      '2026-11-03',
      'x.teaser',
      'linkedin.follow_up',
    ])
      expect(prompt).toContain(needed);
    for (const secret of secrets) expect(prompt).not.toContain(secret);

    const kit = created.kit;
    expect(kit.productHunt).toMatchObject({
      firstComment: 'MODEL-FIRST-COMMENT',
      tagline: 'Release notes people read',
    });
    // The URL the person gave is the Show HN link.
    expect(kit.hackerNews).toEqual({ ...copy.hackerNews, url: 'https://shipday.example' });
    const text = (title: string) => kit.steps.find((s) => s.title === title)!.postText;
    expect(text('Teaser on X')).toBe('MODEL-X-TEASER');
    expect(text('Launch post on LinkedIn')).toBe('MODEL-LI-LAUNCH');
    expect(text('What we learned, on LinkedIn')).toMatch(/Shipday/);
    expect(kit.steps.find((s) => s.title === 'Prepare the launch assets')!.detail).toBe(
      'MODEL-ASSETS-DETAIL',
    );
    for (const s of kit.steps.filter((s) => s.kind === 'post')) expect(s.postStatus).toBe('pending_approval');

    // The same key again: the first answer, no model call, no second charge.
    const again = await call(ws, 'POST', '', body, { headers });
    expect(again.status).toBe(201);
    expect(((await again.json()) as { data: Created }).data).toEqual(created);
    expect(model.requests.length).toBe(from + 1);
    expect(await balance(ws)).toBe(before - cost);
    expect(await answer<Kit>(await call(ws, 'GET', `/${kit.id}`))).toEqual(kit);
  });

  test('a provider failure leaves no kit, no group and no charge', async () => {
    const ws = await createTestWorkspace(service);
    const before = await balance(ws);
    const error = await refused(
      await call(ws, 'POST', '', {
        pitch: 'A product. scenario:down',
        launchDate: '2026-11-03',
        channels: ['x'],
      }),
      503,
    );
    expect(error.code).toMatch(/^ai_/);
    expect(await balance(ws)).toBe(before);
    expect(await groupsOf(ws)).toBe(0);
    const list = await answer<{ total: number }>(await call(ws, 'GET', ''));
    expect(list.total).toBe(0);
    // No launch kit event was written for the workspace.
    const kitEvents = await service.runtime.database.pool.query<{ n: string }>(
      "select count(*) as n from es_events where stream_name like 'launchKit-%' and data->>'orgId' = $1",
      [ws.orgId],
    );
    const kitEventCount = Number(kitEvents.rows[0]!.n);
    expect(kitEventCount).toBe(0);
  });
});
