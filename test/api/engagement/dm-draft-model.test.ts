// Drafting a DM with a locally served model (test/support/model-server.ts records every prompt): the prompt
// carries the brand voice, the person and their last message, and never the workspace's private or restricted
// knowledge or its guardrails; the run is charged once (an Idempotency-Key retry answers the same draft without a
// second call or charge); a provider failure answers the runtime's error, changes nothing and charges nothing.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { localModelEnv } from '../../support/ai-runtime.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

/** An answer as JSON, read loosely: each test checks the fields it is about. */
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let model: ModelServer;
let service: TestService;

beforeAll(async () => {
  model = await startModelServer();
  model.scenarios.set('dm-ok', () => ({
    content: JSON.stringify({
      draftText: 'Happy to help: approvals are one click. Want a quick walkthrough?',
      draftReason: 'They asked how approvals work.',
    }),
    usage: { input: 400, output: 60 },
  }));
  model.scenarios.set('dm-down', () => ({
    status: 500,
    body: { error: { message: 'overloaded', type: 'server_error' } },
  }));
  service = await startTestService({ env: localModelEnv(model.baseUrl, { AI_TIMEOUT_SECONDS: '10' }) });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await model?.close();
});

const secrets = ['SECRET-RUNWAY-9-MONTHS', 'RESTRICTED-PIVOT-PLAN', 'GUARDRAIL-NEVER-NAME-ZEUS'];

async function workspaceWithBrand(): Promise<TestWorkspace> {
  const ws = await createTestWorkspace(service, 'Voice Co');
  const res = await service.request('PATCH', `/v1/orgs/${ws.orgId}/brand/profile`, {
    token: ws.tokens.owner,
    body: {
      voice: { tone: 'VOICE-WARM-AND-DIRECT', bannedPhrases: ['synergy'] },
      knowledgeItems: [
        { kind: 'fact', text: `Runway is ${secrets[0]}`, disclosure: 'private' },
        { kind: 'claim', text: `We have a ${secrets[1]}`, disclosure: 'restricted' },
        { kind: 'fact', text: 'PUBLIC-FACT-APPROVALS-IN-ONE-CLICK', disclosure: 'public' },
      ],
      guardrails: [{ text: secrets[2], disclosure: 'restricted' }],
    },
  });
  expect(res.status).toBe(200);
  return ws;
}

const post = (ws: TestWorkspace, rest: string, body: unknown, headers?: Record<string, string>) =>
  service.request('POST', `/v1/orgs/${ws.orgId}/dms${rest}`, {
    token: ws.tokens.editor,
    body,
    ...(headers ? { headers } : {}),
  });

async function runs(ws: TestWorkspace): Promise<Loose[]> {
  const res = await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs?jobType=engagement.dm_draft`, {
    token: ws.tokens.owner,
  });
  return ((await res.json()) as Loose).data.items as Loose[];
}

describe('POST …/draft with a model', () => {
  test('the prompt has the brand voice and their last message, never private knowledge; charged once', async () => {
    const ws = await workspaceWithBrand();
    const added = await post(ws, '', {
      handle: 'dana',
      messages: [
        { from: 'me', text: 'Saw your thread on review flows' },
        { from: 'them', text: 'LAST-MESSAGE: how do approvals work for a team of five?' },
      ],
      notes: 'NOTES-RUNS-AN-AGENCY',
    });
    expect(added.status).toBe(201);
    const conversation = ((await added.json()) as Loose).data;

    const from = model.requests.length;
    const headers = { 'idempotency-key': 'dm-draft-1' };
    const res = await post(
      ws,
      `/${conversation.id}/draft`,
      { guidance: 'scenario:dm-ok offer a walkthrough' },
      headers,
    );
    expect(res.status).toBe(200);
    const drafted = ((await res.json()) as Loose).data;
    expect(drafted).toMatchObject({
      draftText: 'Happy to help: approvals are one click. Want a quick walkthrough?',
      draftReason: 'They asked how approvals work.',
    });

    const prompts = model.prompts().slice(from);
    expect(prompts).toHaveLength(1);
    const prompt = prompts[0]!;
    expect(prompt).toContain('VOICE-WARM-AND-DIRECT');
    expect(prompt).toContain('Never use these phrases: synergy');
    expect(prompt).toContain('Them (');
    expect(prompt).toContain('LAST-MESSAGE: how do approvals work for a team of five?');
    expect(prompt).toContain('NOTES-RUNS-AN-AGENCY');
    expect(prompt).toContain('Person: @dana');
    // The check can fail: public knowledge does reach the prompt.
    expect(prompt).toContain('PUBLIC-FACT-APPROVALS-IN-ONE-CLICK');
    for (const secret of secrets) expect(prompt).not.toContain(secret);

    // A retry with the same key answers the same draft: no second model call, no second charge.
    const again = await post(
      ws,
      `/${conversation.id}/draft`,
      { guidance: 'scenario:dm-ok offer a walkthrough' },
      headers,
    );
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as Loose).data).toEqual(drafted);
    expect(model.requests.length - from).toBe(1);
    const [run, ...others] = await runs(ws);
    expect(others).toEqual([]);
    expect(run).toMatchObject({ status: 'succeeded', jobType: 'engagement.dm_draft' });
    expect(run!.costCredits).toBeGreaterThan(0);
  });

  test('a provider failure answers an error, changes nothing and charges nothing', async () => {
    const ws = await workspaceWithBrand();
    const added = await post(ws, '', { handle: 'eve', messages: [{ from: 'them', text: 'hello?' }] });
    const conversation = ((await added.json()) as Loose).data;
    const res = await post(ws, `/${conversation.id}/draft`, { guidance: 'scenario:dm-down' });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(((await res.json()) as Loose).error).toEqual(expect.any(String));
    // With draft: true on PATCH the message is not logged either: the write is all or nothing.
    const patched = await service.request('PATCH', `/v1/orgs/${ws.orgId}/dms/${conversation.id}`, {
      token: ws.tokens.owner,
      body: { addMessage: { from: 'them', text: 'still there?' }, draft: true, guidance: 'scenario:dm-down' },
    });
    expect(patched.status).toBeGreaterThanOrEqual(500);
    const listed = await service.request('GET', `/v1/orgs/${ws.orgId}/dms`, { token: ws.tokens.owner });
    const [shown] = ((await listed.json()) as Loose).data.items as Loose[];
    expect(shown).toMatchObject({ id: conversation.id, draftText: null, messages: [expect.anything()] });
    const failed = await runs(ws);
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(failed.every((r) => r.status === 'failed' && (r.costCredits ?? 0) === 0)).toBe(true);
    // Only the failed runs were recorded (the agent-run log), nothing of the conversation.
    const conversationEvents = await service.runtime.database.pool.query<{ n: string }>(
      `select count(*) as n from es_events where stream_name = $1`,
      [`dmConversation-${conversation.id}`],
    );
    expect(Number(conversationEvents.rows[0]!.n)).toBe(2);
  });
});
