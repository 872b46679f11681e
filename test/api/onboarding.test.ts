// GET and PATCH /v1/orgs/{orgId}/onboarding through the whole service: each step's completion follows the
// workspace's real state (accounts connected, content approved), and only the chosen step is recorded.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { connectSandboxAccount } from '../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';
import { roles } from '../../domain/workspaces/roles.js';
import { twoPlatformDraft, workspaceClient } from './post-groups/support.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

interface Status {
  currentStep: string;
  completed: boolean;
  steps: Array<{ key: string; label: string; completed: boolean; required: boolean }>;
  socialConnected: boolean;
  xConnected: boolean;
  firstContentReady: boolean;
  [fact: string]: unknown;
}

async function status(ws: TestWorkspace, role: (typeof roles)[number] = 'viewer'): Promise<Status> {
  const res = await service.request('GET', `/v1/orgs/${ws.orgId}/onboarding`, { token: ws.tokens[role] });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return (JSON.parse(text) as { data: Status }).data;
}

const done = (s: Status) => s.steps.filter((step) => step.completed).map((step) => step.key);

function patch(ws: TestWorkspace, body: unknown, role: (typeof roles)[number] = 'owner', key?: string) {
  return service.request('PATCH', `/v1/orgs/${ws.orgId}/onboarding`, {
    token: ws.tokens[role],
    body,
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });
}

describe('onboarding status', () => {
  test('a fresh workspace: its trial is running (billing done, not required), nothing else done, the first step current', async () => {
    const ws = await createTestWorkspace(service);
    expect(await status(ws)).toEqual({
      currentStep: 'brand',
      completed: false,
      steps: [
        { key: 'brand', label: 'Confirm your brand', completed: false, required: true },
        { key: 'social', label: 'Connect a social account', completed: false, required: true },
        { key: 'x_connection', label: 'Connect X', completed: false, required: false },
        { key: 'billing', label: 'Choose a plan', completed: true, required: false },
        { key: 'strategy', label: 'Activate a content strategy', completed: false, required: true },
        { key: 'first_content', label: 'Approve your first post', completed: false, required: true },
      ],
      brandProfileDetected: false,
      brandConfirmed: false,
      socialConnected: false,
      xConnected: false,
      strategyReady: false,
      firstContentReady: false,
      paidTrialActive: true,
      subscriptionRequired: false,
    });
  });

  test('connecting accounts and approving a post group complete their steps, as the state says', async () => {
    const ws = await createTestWorkspace(service);
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'linkedin');
    const social = await status(ws);
    expect(done(social)).toEqual(['social', 'billing']);
    expect(social).toMatchObject({ socialConnected: true, xConnected: false, currentStep: 'brand' });

    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
    expect(done(await status(ws))).toEqual(['social', 'x_connection', 'billing']);

    const client = workspaceClient(service, ws);
    const drafted = await client.draft(twoPlatformDraft('First post'));
    // Drafted and waiting for approval is not done yet.
    expect((await status(ws)).firstContentReady).toBe(false);
    await client.approve(drafted.group.id, { autoSchedule: false });
    const approved = await status(ws);
    expect(done(approved)).toEqual(['social', 'x_connection', 'billing', 'first_content']);
    expect(approved).toMatchObject({ firstContentReady: true, completed: false });
  });

  test('a disconnected account no longer counts', async () => {
    const ws = await createTestWorkspace(service);
    const account = await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
    expect((await status(ws)).xConnected).toBe(true);
    const res = await service.request('DELETE', `${ws.base}/accounts/${account.id}`, {
      token: ws.tokens.owner,
    });
    expect(res.status, await res.text()).toBe(200);
    expect(await status(ws)).toMatchObject({ socialConnected: false, xConnected: false });
  });

  test('PATCH records the chosen step, which GET shows to every member; the same step again appends nothing', async () => {
    const ws = await createTestWorkspace(service);
    const res = await patch(ws, { currentStep: 'social' }, 'admin');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Status }).data).toMatchObject({
      currentStep: 'social',
      completed: false,
    });
    for (const role of roles) expect((await status(ws, role)).currentStep).toBe('social');

    const before = await eventCount(service);
    expect((await patch(ws, { currentStep: 'social' })).status).toBe(200);
    expect((await patch(ws, {})).status).toBe(200);
    expect(await eventCount(service)).toBe(before);

    // A chosen step stays chosen even when it is done.
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'linkedin');
    expect(await status(ws)).toMatchObject({ currentStep: 'social', socialConnected: true });
  });

  test('PATCH with an Idempotency-Key replays its answer', async () => {
    const ws = await createTestWorkspace(service);
    const first = await patch(ws, { currentStep: 'strategy' }, 'owner', 'onb-1');
    const again = await patch(ws, { currentStep: 'strategy' }, 'owner', 'onb-1');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect((await patch(ws, { currentStep: 'brand' }, 'owner', 'onb-1')).status).toBe(422);
  });

  test.each([
    [{ currentStep: 'launch' }, 'body.currentStep'],
    [{ currentStep: null }, 'body.currentStep'],
    [{ completed: true }, 'body.completed'],
  ])('PATCH %j is a 400 naming %s, and changes nothing', async (body, path) => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    const res = await patch(ws, body);
    expect(res.status).toBe(400);
    const error = (await res.json()) as { details: Array<{ path: string }> };
    expect(error.details.map((d) => d.path)).toContain(path);
    expect(await eventCount(service)).toBe(before);
    expect((await status(ws)).currentStep).toBe('brand');
  });

  test.each(['reviewer', 'editor', 'viewer'] as const)('a %s may read but not PATCH (403)', async (role) => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    expect((await patch(ws, { currentStep: 'social' }, role)).status).toBe(403);
    expect(await eventCount(service)).toBe(before);
    expect((await status(ws, role)).currentStep).toBe('brand');
  });

  test("another workspace's onboarding: 403; without a token: 401", async () => {
    const ws = await createTestWorkspace(service);
    const other = await createTestWorkspace(service, 'Other');
    const res = await service.request('GET', `/v1/orgs/${other.orgId}/onboarding`, {
      token: ws.tokens.owner,
    });
    expect(res.status).toBe(403);
    expect((await patch({ ...other, tokens: ws.tokens }, { currentStep: 'social' })).status).toBe(403);
    expect((await service.request('GET', `/v1/orgs/${ws.orgId}/onboarding`)).status).toBe(401);
  });
});
