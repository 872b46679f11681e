// Drafting from a thought against a locally served model (test/support/model-server.ts records every prompt): the
// prompt carries the brand voice, a strategy pillar, a current priority, the thought and the guidance, and never
// the brand profile's private or restricted knowledge; the other active thoughts ground it, archived ones and the
// drafted thought itself do not; of the context library (issue 31) the enabled public document grounds it, and the
// private, restricted and disabled ones never reach it; credits are charged once per run (a retry with the same key charges nothing
// more); a too-long answer is asked again; a provider failure leaves no group, no charge and the thought unchanged.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxNotionPages } from '../../../infra/notion/sandbox.js';
import { localModelEnv } from '../../support/ai-runtime.js';
import { connectSandboxNotion } from '../../support/context.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let model: ModelServer;

const answer = (x: string, linkedin: string) =>
  JSON.stringify({
    title: 'Ship weekly',
    posts: [
      { platform: 'x', format: 'contrarian_take', contentText: x },
      { platform: 'linkedin', format: 'lesson_learned', contentText: linkedin },
    ],
  });

beforeAll(async () => {
  model = await startModelServer();
  model.scenarios.set('ok', () => ({
    content: answer('Ship weekly. Perfect is a release that never happens.', 'We shipped weekly for a year.'),
    usage: { input: 800, output: 200 },
  }));
  // The first answer runs past X's 280: malformed, asked again.
  model.scenarios.set('toolong', (call) => ({
    content:
      call.callNumber === 1
        ? answer('x'.repeat(400), 'Too long on X.')
        : answer('Short enough for X.', 'Fine on LinkedIn.'),
  }));
  model.scenarios.set('down', () => ({ status: 500 }));
  service = await startTestService({ env: localModelEnv(model.baseUrl, { AI_TIMEOUT_SECONDS: '10' }) });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await model?.close();
});

interface Drafts {
  thought: { id: string; status: string; draftGroupIds: string[] };
  group: { id: string; status: string; title: string };
  posts: { platform: string; contentText: string }[];
  providerModel: string;
  creditsUsed: number;
  remainingCredits: number;
}

const req = (
  ws: TestWorkspace,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) =>
  service.request(method, `/v1/orgs/${ws.orgId}${path}`, {
    token: ws.tokens.owner,
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });
async function data<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return ((await res.json()) as { data: T }).data;
}
const saveThought = async (ws: TestWorkspace, text: string) =>
  data<{ id: string }>(await req(ws, 'POST', '/thoughts', { text, kind: 'opinion' }), 201);
const balance = async (ws: TestWorkspace) =>
  (await data<{ creditBalance: { total: number } }>(await req(ws, 'GET', '/billing'))).creditBalance.total;
const groupCount = async (ws: TestWorkspace) =>
  (await data<{ total: number }>(await req(ws, 'GET', '/marketing/posts?limit=1'))).total;
const runs = async (ws: TestWorkspace) =>
  (
    await data<{ items: { jobType: string; status: string; costCredits: number | null }[] }>(
      await req(ws, 'GET', '/agent-runs?jobType=thoughts.draft'),
    )
  ).items;

const secrets = [
  'SECRET-MARGIN-41-PERCENT',
  'RESTRICTED-ACQUISITION-TALKS',
  'GUARDRAIL-NEVER-MENTION-FALCON',
];

async function groundedWorkspace(): Promise<TestWorkspace> {
  const ws = await createTestWorkspace(service, 'Northwind');
  await data(
    await req(ws, 'PATCH', '/brand/profile', {
      voice: { tone: 'VOICE-DRY-AND-PRECISE', bannedPhrases: ['game-changer'] },
      topics: ['Release engineering'],
      knowledgeItems: [
        { kind: 'fact', text: `Our gross margin is ${secrets[0]}`, disclosure: 'private' },
        { kind: 'claim', text: `We are in ${secrets[1]}`, disclosure: 'restricted' },
        { kind: 'fact', text: 'PUBLIC-FACT-SHIPS-DAILY', disclosure: 'public' },
      ],
      guardrails: [{ text: secrets[2], disclosure: 'restricted' }],
    }),
  );
  await data(
    await req(ws, 'PATCH', '/strategy', {
      pillars: [{ name: 'PILLAR-SHIPPING-CADENCE', keywords: ['releases'] }],
    }),
  );
  await data(await req(ws, 'POST', '/strategy/priorities', { text: 'PRIORITY-LAUNCH-WEEK' }));
  // The context library: the sandbox Notion's four pages, one made public, one restricted, one left private (the
  // default), one public but disabled.
  const { source } = await connectSandboxNotion(service, ws);
  const { synced } = await data<{ synced: { id: string }[] }>(
    await req(ws, 'POST', `/context/sources/${source.id}/sync`, {
      pageIds: sandboxNotionPages.map((p) => p.id),
    }),
  );
  const [overview, principles, , story] = synced;
  await data(await req(ws, 'PATCH', `/context/documents/${overview!.id}`, { disclosure: 'public' }));
  await data(await req(ws, 'PATCH', `/context/documents/${principles!.id}`, { disclosure: 'restricted' }));
  await data(
    await req(ws, 'PATCH', `/context/documents/${story!.id}`, { disclosure: 'public', enabled: false }),
  );
  return ws;
}

/** Words of the context documents that must never reach a prompt: restricted, private, public but disabled. */
const hiddenDocuments = [
  'Small releases are easy to review',
  'gross margin is 61 percent',
  'design reviews to Acme Studio',
];

describe('drafting with a model', () => {
  test('the prompt is grounded in the public brand, pillars, priorities, the thought and the guidance; private knowledge never reaches it; charged once', async () => {
    const ws = await groundedWorkspace();
    const other = await saveThought(ws, 'OTHER-ACTIVE-THOUGHT about code review.');
    const archived = await saveThought(ws, 'ARCHIVED-THOUGHT about meetings.');
    await data(await req(ws, 'PATCH', `/thoughts/${archived.id}`, { status: 'archived' }));
    const thought = await saveThought(ws, 'THE-DRAFTED-THOUGHT: shipping weekly beats shipping perfectly.');
    const creditsBefore = await balance(ws);
    const from = model.requests.length;
    const headers = { 'Idempotency-Key': 'draft-with-model' };
    const drafts = await data<Drafts>(
      await req(
        ws,
        'POST',
        `/thoughts/${thought.id}/drafts`,
        { guidance: 'GUIDANCE-MENTION-LAUNCH' },
        headers,
      ),
    );
    expect(drafts.providerModel).toMatch(/gpt-4o-mini/);
    expect(drafts.group.status).toBe('pending_approval');
    expect(drafts.group.title).toBe('Ship weekly');
    expect(drafts.posts.map((p) => [p.platform, p.contentText])).toEqual([
      ['x', 'Ship weekly. Perfect is a release that never happens.'],
      ['linkedin', 'We shipped weekly for a year.'],
    ]);
    expect(drafts.thought).toMatchObject({ status: 'drafted', draftGroupIds: [drafts.group.id] });

    const prompts = model.prompts().slice(from);
    expect(prompts).toHaveLength(1);
    const prompt = prompts[0]!;
    for (const expected of [
      'VOICE-DRY-AND-PRECISE',
      'game-changer',
      'PILLAR-SHIPPING-CADENCE',
      'PRIORITY-LAUNCH-WEEK',
      'PUBLIC-FACT-SHIPS-DAILY',
      'THE-DRAFTED-THOUGHT',
      'GUIDANCE-MENTION-LAUNCH',
      'OTHER-ACTIVE-THOUGHT',
      'contrarian_take',
      // The enabled public context document.
      'Acme Studio builds a scheduling tool for small design teams.',
    ])
      expect(prompt).toContain(expected);
    for (const secret of [...secrets, ...hiddenDocuments]) expect(prompt).not.toContain(secret);
    // Archived thoughts stop feeding generation; the drafted thought is the subject, not "other" context.
    expect(prompt).not.toContain('ARCHIVED-THOUGHT');
    const others = prompt.split('\n').find((l) => l.startsWith('Other saved thoughts'))!;
    expect(others).toContain('OTHER-ACTIVE-THOUGHT');
    expect(others).not.toContain('THE-DRAFTED-THOUGHT');

    // Charged once, as the answer says: the ledger moved by creditsUsed (ai_draft: 2).
    expect(drafts.creditsUsed).toBe(2);
    expect(await balance(ws)).toBe(creditsBefore - 2);
    expect(drafts.remainingCredits).toBe(creditsBefore - 2);
    expect((await runs(ws)).map((r) => [r.status, r.costCredits])).toEqual([['succeeded', 2]]);

    // The same key again: the first answer, no second model call, no second charge.
    const again = await req(
      ws,
      'POST',
      `/thoughts/${thought.id}/drafts`,
      { guidance: 'GUIDANCE-MENTION-LAUNCH' },
      headers,
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await data<Drafts>(again)).group.id).toBe(drafts.group.id);
    expect(model.requests.length).toBe(from + 1);
    expect(await balance(ws)).toBe(creditsBefore - 2);

    // Once drafted from, a thought still grounds the others' drafts; archived, it stops.
    await data(await req(ws, 'PATCH', `/thoughts/${other.id}`, { status: 'archived' }));
    const next = model.requests.length;
    await data<Drafts>(await req(ws, 'POST', `/thoughts/${thought.id}/drafts`, {}));
    const second = model.prompts().slice(next)[0]!;
    expect(second).not.toContain('OTHER-ACTIVE-THOUGHT');
    expect(second).not.toContain('ARCHIVED-THOUGHT');
  });

  test('an answer too long for X is asked again; the run is charged once', async () => {
    const ws = await createTestWorkspace(service);
    const thought = await saveThought(ws, 'Keep posts short.');
    const creditsBefore = await balance(ws);
    const from = model.requests.length;
    const drafts = await data<Drafts>(
      await req(ws, 'POST', `/thoughts/${thought.id}/drafts`, { guidance: 'scenario:toolong' }),
    );
    expect(model.requests.length - from).toBe(2);
    expect(drafts.posts[0]!.contentText).toBe('Short enough for X.');
    expect(drafts.creditsUsed).toBe(2);
    expect(await balance(ws)).toBe(creditsBefore - 2);
  });

  test('a provider failure leaves no draft, no charge and the thought as it was', async () => {
    const ws = await createTestWorkspace(service);
    const thought = await saveThought(ws, 'Failures must cost nothing.');
    const creditsBefore = await balance(ws);
    const groupsBefore = await groupCount(ws);
    const res = await req(ws, 'POST', `/thoughts/${thought.id}/drafts`, { guidance: 'scenario:down' });
    expect(res.status, await res.clone().text()).toBe(503);
    expect(((await res.json()) as { code: string }).code).toBe('ai_provider_unavailable');
    expect(await groupCount(ws)).toBe(groupsBefore);
    expect(await balance(ws)).toBe(creditsBefore);
    const after = await data<{ items: { id: string; status: string; draftGroupIds: string[] }[] }>(
      await req(ws, 'GET', '/thoughts'),
    );
    expect(after.items).toEqual([
      expect.objectContaining({ id: thought.id, status: 'new', draftGroupIds: [] }),
    ]);
    expect((await runs(ws)).map((r) => [r.status, r.costCredits ?? 0])).toEqual([['failed', 0]]);
  });
});
