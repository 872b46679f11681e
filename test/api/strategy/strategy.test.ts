// ORG/strategy through the whole service: generate (offline writer), GET showing the draft then the active version,
// confirm, PATCH, versions, priorities (expired at read time), recommendations, the bad-input battery (400 naming
// the field, nothing appended), roles, Idempotency-Key, the get_strategy tool, and the wiring into onboarding's
// strategy step and schedule coverage's targetPosts.
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Slice } from '../../../api/shared/slice.js';
import { slices } from '../../../api/slices.js';
import { strategyDraftsService, type StrategyDrafts } from '../../../api/strategy/services.js';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let drafts: StrategyDrafts;

/** A slice of the tests that requires the strategy slice's drafts service, as onboarding from a website will. */
const draftsUser: Slice = {
  name: 'drafts-user',
  requires: [strategyDraftsService],
  routes: (ctx) => {
    drafts = ctx.use(strategyDraftsService);
    return [];
  },
};

beforeAll(async () => {
  service = await startTestService({ slices: [...slices, draftsUser] });
});
afterAll(async () => service.stop());

interface Strategy {
  id: string;
  orgId: string;
  version: number;
  status: 'draft' | 'active' | 'superseded';
  sourceGoal: string | null;
  primaryObjective: string;
  targetAudience: string;
  pillars: Array<{ id: string; name: string; priority?: number }>;
  channelPriorities: Array<{ platform: string; enabled?: boolean; postsPerWeek?: number }>;
  contentMix: Array<{ contentType: string; targetPercent: number }>;
  priorities: Array<{ id: string; text: string; startsAt: string; endsAt: string | null; status: string }>;
  recommendations: Array<{ id: string; summary: string; status: string }>;
  meta: {
    schemaVersion: number;
    generatedAt: string | null;
    confirmedAt: string | null;
    confirmedBy: string | null;
    lastEditedAt: string | null;
    lastSuggestedAt: string | null;
    source: string;
    providerModel: string | null;
    agentRunId: string | null;
  };
}
interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}

const path = (ws: TestWorkspace, rest = '') => `/v1/orgs/${ws.orgId}/strategy${rest}`;

async function call(
  ws: TestWorkspace,
  method: string,
  rest: string,
  body?: unknown,
  options: { role?: keyof TestWorkspace['tokens']; headers?: Record<string, string> } = {},
): Promise<Response> {
  return service.request(method, path(ws, rest), {
    token: ws.tokens[options.role ?? 'owner'],
    ...(body !== undefined ? { body } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

async function ok<T = Strategy>(res: Response): Promise<T> {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

async function refused(res: Response, status: number): Promise<ErrorBody> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as ErrorBody;
}

const onboarding = async (ws: TestWorkspace) =>
  ok<{ strategyReady: boolean; steps: Array<{ key: string; completed: boolean }> }>(
    await service.request('GET', `/v1/orgs/${ws.orgId}/onboarding`, { token: ws.tokens.viewer }),
  );

describe('generate, GET, confirm', () => {
  test('a new workspace has no strategy; generate writes a draft GET shows; confirm activates it and onboarding counts it', async () => {
    const ws = await createTestWorkspace(service);
    expect(await ok<Strategy | null>(await call(ws, 'GET', ''))).toBeNull();

    const draft = await ok(
      await call(ws, 'POST', '/generate', { goal: 'Book more demos with ops leaders.' }),
    );
    expect(draft).toMatchObject({
      orgId: ws.orgId,
      version: 1,
      status: 'draft',
      sourceGoal: 'Book more demos with ops leaders.',
      primaryObjective: 'Book more demos with ops leaders',
      meta: { schemaVersion: 1, source: 'heuristic', providerModel: 'offline', confirmedAt: null },
    });
    expect(draft.meta.agentRunId).toMatch(/^[0-9a-f-]{36}$/);
    expect(draft.meta.generatedAt).toEqual(expect.any(String));
    expect(draft.contentMix.reduce((n, m) => n + m.targetPercent, 0)).toBe(100);
    expect(draft.pillars.length).toBeGreaterThanOrEqual(3);

    // Only a draft: GET shows it (status draft) so it can be reviewed; onboarding's step is not done yet.
    expect(await ok(await call(ws, 'GET', '', undefined, { role: 'viewer' }))).toEqual(draft);
    expect((await onboarding(ws)).strategyReady).toBe(false);

    // Confirm's body is optional (only `updates?`): no body at all confirms as it is.
    const active = await ok(await call(ws, 'POST', '/confirm'));
    expect(active).toMatchObject({ id: draft.id, version: 1, status: 'active' });
    expect(active.meta.confirmedBy).toBe(ws.userIds.owner);
    expect(await ok(await call(ws, 'GET', ''))).toEqual(active);
    const status = await onboarding(ws);
    expect(status.strategyReady).toBe(true);
    expect(status.steps.find((s) => s.key === 'strategy')?.completed).toBe(true);
  });

  test('a second generation is a draft beside the active version; confirming it supersedes the first; versions list both', async () => {
    const ws = await createTestWorkspace(service);
    const first = await ok(await call(ws, 'POST', '/generate'));
    await ok(await call(ws, 'POST', '/confirm', {}));
    const proposal = await ok(await call(ws, 'POST', '/generate', { goal: 'Launch the new API' }));
    expect(proposal).toMatchObject({ id: first.id, version: 2, status: 'draft' });

    const shown = await ok(await call(ws, 'GET', ''));
    expect(shown).toMatchObject({ version: 1, status: 'active' });
    expect(shown.meta.lastSuggestedAt).toBe(proposal.meta.generatedAt);

    const confirmed = await ok(
      await call(ws, 'POST', '/confirm', { updates: { targetAudience: 'Platform engineers' } }),
    );
    expect(confirmed).toMatchObject({ version: 2, status: 'active', targetAudience: 'Platform engineers' });
    const versions = await ok<Strategy[]>(await call(ws, 'GET', '/versions', undefined, { role: 'viewer' }));
    expect(versions.map((v) => [v.version, v.status])).toEqual([
      [2, 'active'],
      [1, 'superseded'],
    ]);
    expect((await ok<Strategy[]>(await call(ws, 'GET', '/versions?limit=1'))).map((v) => v.version)).toEqual([
      2,
    ]);
    const second = await ok<Strategy[]>(await call(ws, 'GET', '/versions?limit=1&page=2'));
    expect(second.map((v) => v.version)).toEqual([1]);
    await refused(await call(ws, 'GET', '/versions?limit=0'), 400);
  });

  test('replaceActive makes the generated version active at once, unconfirmed (onboarding waits for a confirmation)', async () => {
    const ws = await createTestWorkspace(service);
    await ok(await call(ws, 'POST', '/generate', {}));
    await ok(await call(ws, 'POST', '/confirm', {}));
    expect((await onboarding(ws)).strategyReady).toBe(true);
    const replaced = await ok(await call(ws, 'POST', '/generate', { replaceActive: true }));
    expect(replaced).toMatchObject({ version: 2, status: 'active', meta: { confirmedAt: null } });
    expect((await onboarding(ws)).strategyReady).toBe(false);
    await ok(await call(ws, 'POST', '/confirm', {}));
    expect((await onboarding(ws)).strategyReady).toBe(true);
  });

  test('confirm with no strategy is a 404; an incomplete draft is a 422 naming what it lacks under updates', async () => {
    const ws = await createTestWorkspace(service);
    expect((await refused(await call(ws, 'POST', '/confirm', {}), 404)).code).toBe('strategy_not_found');
    await ok(await call(ws, 'PATCH', '', { primaryObjective: 'Grow' }));
    const body = await refused(await call(ws, 'POST', '/confirm', {}), 422);
    expect(body.code).toBe('strategy_incomplete');
    expect(body.details?.map((d) => d.path)).toEqual(['body.updates.targetAudience', 'body.updates.pillars']);
  });

  test('a repeated Idempotency-Key answers the first generation again, with no second version', async () => {
    const ws = await createTestWorkspace(service);
    const headers = { 'Idempotency-Key': randomUUID() };
    const first = await call(ws, 'POST', '/generate', { goal: 'Grow' }, { headers });
    const one = await ok(first);
    const again = await call(ws, 'POST', '/generate', { goal: 'Grow' }, { headers });
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await ok(again)).toEqual(one);
    expect(await ok<Strategy[]>(await call(ws, 'GET', '/versions'))).toHaveLength(1);
  });
});

describe('PATCH and its checks', () => {
  test('PATCH with nothing yet writes a draft by hand; later PATCHes edit what GET shows', async () => {
    const ws = await createTestWorkspace(service);
    const draft = await ok(
      await call(ws, 'PATCH', '', {
        primaryObjective: 'Be the reference on pipeline math',
        targetAudience: 'Revenue leaders',
        pillars: [{ name: 'Forecasting' }],
        channelPriorities: [{ platform: 'linkedin', enabled: true, postsPerWeek: 3 }],
        contentMix: [
          { contentType: 'educational', targetPercent: 70 },
          { contentType: 'opinion', targetPercent: 30 },
        ],
      }),
    );
    expect(draft).toMatchObject({
      version: 1,
      status: 'draft',
      meta: { source: 'user', providerModel: null },
    });
    expect(draft.pillars[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    const edited = await ok(await call(ws, 'PATCH', '', { guardrailNotes: ['No pricing talk'] }));
    expect(edited).toMatchObject({ version: 1, guardrailNotes: ['No pricing talk'], pillars: draft.pillars });
    expect(edited.meta.lastEditedAt).toEqual(expect.any(String));
  });

  test('bad input is a 400 naming the field, and appends nothing', async () => {
    const ws = await createTestWorkspace(service);
    await ok(await call(ws, 'POST', '/generate', {}));
    const before = await eventCount(service);
    const cases: Array<[unknown, string]> = [
      [{ contentMix: [{ contentType: 'educational', targetPercent: 60 }] }, 'body.contentMix'],
      [
        {
          contentMix: [
            { contentType: 'opinion', targetPercent: 50 },
            { contentType: 'opinion', targetPercent: 50 },
          ],
        },
        'body.contentMix.1.contentType',
      ],
      [{ contentMix: [{ contentType: 'memes', targetPercent: 100 }] }, 'body.contentMix.0.contentType'],
      [{ pillars: [{ name: 'A' }, { name: 'a' }] }, 'body.pillars.1.name'],
      [{ pillars: [{ description: 'no name' }] }, 'body.pillars.0.name'],
      [{ pillars: [{ name: 'A', priority: 1.5 }] }, 'body.pillars.0.priority'],
      [{ channelPriorities: [{ platform: 'x' }, { platform: 'x' }] }, 'body.channelPriorities.1.platform'],
      [{ channelPriorities: [{ platform: 'myspace' }] }, 'body.channelPriorities.0.platform'],
      [
        {
          priorities: [
            { id: 'q', text: 'Launch', startsAt: '2026-12-02T00:00:00Z', endsAt: '2026-12-01T00:00:00Z' },
          ],
        },
        'body.priorities.0.endsAt',
      ],
      [{ unknownField: 1 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const error = await refused(await call(ws, 'PATCH', '', body), 400);
      expect(error.details?.map((d) => d.path).join(' '), JSON.stringify(body)).toContain(field);
    }
    const confirmBad = await refused(
      await call(ws, 'POST', '/confirm', {
        updates: { contentMix: [{ contentType: 'opinion', targetPercent: 10 }] },
      }),
      400,
    );
    expect(confirmBad.details?.map((d) => d.path)).toEqual(['body.updates.contentMix']);
    expect(await eventCount(service)).toBe(before);
  });

  test('only owners and admins change the strategy; every member reads it', async () => {
    const ws = await createTestWorkspace(service);
    for (const role of ['editor', 'reviewer', 'viewer'] as const) {
      await refused(await call(ws, 'POST', '/generate', {}, { role }), 403);
      await refused(await call(ws, 'PATCH', '', { primaryObjective: 'x' }, { role }), 403);
    }
    await ok(await call(ws, 'POST', '/generate', {}, { role: 'admin' }));
    expect(await ok(await call(ws, 'GET', '', undefined, { role: 'reviewer' }))).toMatchObject({
      version: 1,
    });
  });
});

describe('priorities and recommendations', () => {
  test('a priority is added and reads expired once its end has passed; an end before the start is refused', async () => {
    const ws = await createTestWorkspace(service);
    expect((await refused(await call(ws, 'POST', '/priorities', { text: 'Launch' }), 404)).code).toBe(
      'strategy_not_found',
    );
    await ok(await call(ws, 'POST', '/generate', {}));
    const now = await ok(
      await call(ws, 'POST', '/priorities', { text: 'Black Friday', endsAt: '2099-01-01T00:00:00Z' }),
    );
    expect(now.priorities).toEqual([
      expect.objectContaining({ text: 'Black Friday', status: 'active', endsAt: '2099-01-01T00:00:00.000Z' }),
    ]);
    const past = await ok(
      await call(ws, 'POST', '/priorities', {
        text: 'Spring launch',
        startsAt: '2020-03-01T00:00:00Z',
        endsAt: '2020-04-01T00:00:00Z',
      }),
    );
    expect(past.priorities.map((p) => [p.text, p.status])).toEqual([
      ['Black Friday', 'active'],
      ['Spring launch', 'expired'],
    ]);
    const bad = await refused(
      await call(ws, 'POST', '/priorities', {
        text: 'Backwards',
        startsAt: '2026-12-02T00:00:00Z',
        endsAt: '2026-12-01T00:00:00Z',
      }),
      400,
    );
    expect(bad.details?.map((d) => d.path)).toEqual(['body.endsAt']);
  });

  test("the offline writer's recommendations are accepted or rejected once; unknown ones are 404", async () => {
    const ws = await createTestWorkspace(service);
    const strategy = await ok(await call(ws, 'POST', '/generate', {}));
    // No brand profile, no account, no goal: it says so.
    expect(strategy.recommendations.map((r) => r.summary)).toEqual([
      'Fill in the brand profile',
      'Connect LinkedIn and X',
      'Give the strategy a goal',
    ]);
    const [first, second] = strategy.recommendations;
    const accepted = await ok(
      await call(ws, 'POST', `/recommendations/${first!.id}`, { decision: 'accepted' }),
    );
    expect(accepted.recommendations.map((r) => r.status)).toEqual(['accepted', 'pending', 'pending']);
    await ok(await call(ws, 'POST', `/recommendations/${first!.id}`, { decision: 'accepted' }));
    expect(
      (await refused(await call(ws, 'POST', `/recommendations/${first!.id}`, { decision: 'rejected' }), 409))
        .code,
    ).toBe('recommendation_decided');
    await ok(await call(ws, 'POST', `/recommendations/${second!.id}`, { decision: 'rejected' }));
    await refused(await call(ws, 'POST', '/recommendations/nope', { decision: 'rejected' }), 404);
    await refused(await call(ws, 'POST', `/recommendations/${first!.id}`, { decision: 'maybe' }), 400);
  });
});

describe('the get_strategy tool', () => {
  test('answers { strategy } as GET does, null without one; the strategy writes have no tools', async () => {
    const ws = await createTestWorkspace(service);
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: [],
    });
    const names = (await assistant.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('get_strategy');
    const none = (await assistant.client.callTool({ name: 'get_strategy', arguments: {} })) as CallToolResult;
    expect(none.isError).toBeFalsy();
    expect(none.structuredContent).toEqual({ strategy: null });
    expect((none.content[0] as { text: string }).text).toMatch(/no content strategy/);

    await ok(await call(ws, 'POST', '/generate', { goal: 'Hire engineers' }));
    const some = (await assistant.client.callTool({ name: 'get_strategy', arguments: {} })) as CallToolResult;
    expect(some.structuredContent).toEqual({ strategy: await ok(await call(ws, 'GET', '')) });
    expect((some.content[0] as { text: string }).text).toMatch(
      /Strategy version 1 \(draft\): Hire engineers/,
    );
  });
});

describe('schedule coverage', () => {
  interface Coverage {
    channels: Array<{ platform: string; targetPosts: number | null; notes: string[] }>;
  }
  const coverage = async (ws: TestWorkspace) =>
    ok<Coverage>(
      await service.request('GET', `${ws.base}/scheduler/schedule-coverage?days=14`, {
        token: ws.tokens.viewer,
      }),
    );

  test("targetPosts follows the active strategy's channel priorities (a draft sets none; a disabled channel wants 0)", async () => {
    const ws = await createTestWorkspace(service);
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'linkedin');
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
    expect((await coverage(ws)).channels.map((c) => c.targetPosts)).toEqual([null, null]);

    // The offline writer plans for the connected accounts: LinkedIn 3 and X 5 a week.
    const draft = await ok(await call(ws, 'POST', '/generate', {}));
    expect(draft.channelPriorities).toEqual([
      { platform: 'linkedin', enabled: true, postsPerWeek: 3, priority: 1 },
      { platform: 'x', enabled: true, postsPerWeek: 5, priority: 2 },
    ]);
    expect((await coverage(ws)).channels.map((c) => c.targetPosts)).toEqual([null, null]);

    await ok(await call(ws, 'POST', '/confirm', {}));
    const active = await coverage(ws);
    expect(active.channels.map((c) => [c.platform, c.targetPosts])).toEqual([
      ['x', 10],
      ['linkedin', 6],
    ]);
    expect(active.channels[1]!.notes.join(' ')).toMatch(/3 per week in the active strategy/);

    await ok(
      await call(ws, 'PATCH', '', {
        channelPriorities: [
          { platform: 'linkedin', enabled: true, postsPerWeek: 2 },
          { platform: 'x', enabled: false },
        ],
      }),
    );
    const paused = await coverage(ws);
    expect(paused.channels.map((c) => [c.platform, c.targetPosts])).toEqual([
      ['x', 0],
      ['linkedin', 4],
    ]);
    expect(paused.channels[0]).toMatchObject({ status: 'covered', nextGapAt: null });
  });
});

describe('the strategy drafts service (for onboarding from a website)', () => {
  test('saves a generated draft without activating it; the same key decides the same draft again', async () => {
    const ws = await createTestWorkspace(service);
    await ok(await call(ws, 'POST', '/generate', {}));
    const active = await ok(await call(ws, 'POST', '/confirm', {}));
    const metadata = {
      orgId: ws.orgId,
      actor: ws.userIds.owner,
      userId: ws.userIds.owner,
      correlationId: randomUUID(),
      now: new Date().toISOString(),
    };
    const key = randomUUID();
    const draft = await drafts.propose(
      ws.orgId,
      { goal: 'Grow the newsletter', idempotencyKey: key },
      metadata,
    );
    expect(draft).toMatchObject({ version: 2, status: 'draft', sourceGoal: 'Grow the newsletter' });
    expect(draft.meta).toMatchObject({ source: 'heuristic', providerModel: 'offline', confirmedAt: null });
    expect(await ok(await call(ws, 'GET', ''))).toMatchObject({ version: active.version, status: 'active' });
    const again = await drafts.propose(
      ws.orgId,
      { goal: 'Grow the newsletter', idempotencyKey: key },
      metadata,
    );
    expect(again.version).toBe(2);
    expect(await ok<Strategy[]>(await call(ws, 'GET', '/versions'))).toHaveLength(2);
  });
});
