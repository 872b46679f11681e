// POST ORG/onboarding/from-website through the whole service, against a locally served small site: the brand
// profile inferred and saved unconfirmed, a draft strategy generated from it (the notes as its goal) and not
// activated; onboarding's brand and strategy steps then follow the real state until a person confirms both (so
// onboarding can complete); both AI steps are agent runs; an idempotent retry; bad input changes nothing. The
// site is reached through OUTBOUND_ALLOW_ORIGINS (the operator's own private origins), other private addresses not. With a
// locally served model, every prompt the provider receives is inspected: the workspace's private and restricted
// knowledge and its guardrails are in none of them, while its public knowledge reaches the strategy's prompt.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeStrategyOffline } from '../../../domain/strategy/generate-job.js';
import { inferProfileOffline } from '../../../domain/brand-profile/infer-job.js';
import { localModelEnv } from '../../support/ai-runtime.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { b2bSaasBrand } from '../../fixtures/brand-contexts.js';
import { startSite, type ErrorBody, type LocalSite } from '../brand/support.js';

let site: LocalSite;
let offline: TestService;
let withModel: TestService;
let model: ModelServer;

const home = `<!doctype html><html><head><title>Northwind Tea | Loose-leaf tea by mail</title>
<meta name="description" content="Single-estate loose-leaf tea, delivered monthly to tea lovers across Europe.">
</head><body><nav><a href="/about">About</a> <a href="/pricing">Pricing</a></nav>
<h1>Single-estate tea, straight from the garden</h1>
<p>We buy directly from small tea gardens and ship within a week of harvest.
<h2>A subscription that fits your cup</h2><p>Pick two or four teas a month; pause any time.</p>
</body></html>`;
const about = `<html><head><title>About Northwind Tea</title></head><body><main><h1>About us</h1>
<p>Northwind Tea was started in 2021 by a tea buyer and a baker in Rotterdam. Our mission is to make great tea an everyday habit.</p>
</main></body></html>`;
const pricing = `<html><head><title>Pricing</title></head><body><h1>Plans</h1>
<div><h3>Two teas</h3><p>€18/month</p></div><div><h3>Four teas</h3><p>€32/month</p></div></body></html>`;

beforeAll(async () => {
  site = await startSite();
  site.routes.set('/', { type: 'text/html; charset=utf-8', body: home });
  site.routes.set('/about', { type: 'text/html', body: about });
  site.routes.set('/pricing', { type: 'text/html', body: pricing });
  model = await startModelServer();
  // The model answers each job with a valid output of its schema (the offline writers' own outputs).
  model.scenarios.set('ok', (call) => {
    const schemaName = JSON.stringify(call.body).includes('"name":"strategy"') ? 'strategy' : 'brand_profile';
    const output =
      schemaName === 'strategy'
        ? writeStrategyOffline({
            goal: 'Grow subscriptions',
            brand: b2bSaasBrand,
            workspaceName: 'Northwind',
            connectedPlatforms: ['linkedin'],
          })
        : inferProfileOffline({
            websiteUrl: `${site.origin}/`,
            pages: [
              {
                url: `${site.origin}/`,
                kind: 'home',
                title: 'Northwind Tea',
                siteName: null,
                description: null,
                headings: [],
                paragraphs: ['Tea.'],
                text: 'Tea.',
                plans: [],
              },
            ],
          });
    return { content: JSON.stringify(output), usage: { input: 900, output: 300 } };
  });
  const outbound = { allowPrivate: [site.origin] };
  [offline, withModel] = await Promise.all([
    // The operator's setting opens the local site (and nothing else) to the service without a model.
    startTestService({ env: { OUTBOUND_ALLOW_ORIGINS: site.origin } }),
    startTestService({ outbound, env: localModelEnv(model.baseUrl, { AI_TIMEOUT_SECONDS: '10' }) }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([offline?.stop(), withModel?.stop()]);
  await Promise.all([site?.close(), model?.close()]);
});

interface Result {
  brand: {
    profile: { websiteUrl: string | null; tagline: string | null; meta: { confirmedAt: string | null } };
    source: string;
  };
  strategy: { id: string; status: string; version: number; sourceGoal: string | null; pillars: unknown[] };
}
interface Status {
  completed: boolean;
  brandProfileDetected: boolean;
  brandConfirmed: boolean;
  strategyReady: boolean;
  steps: { key: string; completed: boolean }[];
}

const start = (
  service: TestService,
  ws: TestWorkspace,
  body: unknown,
  role: keyof TestWorkspace['tokens'] = 'owner',
  headers?: Record<string, string>,
) =>
  service.request('POST', `/v1/orgs/${ws.orgId}/onboarding/from-website`, {
    token: ws.tokens[role],
    body,
    ...(headers ? { headers } : {}),
  });

const statusOf = async (service: TestService, ws: TestWorkspace): Promise<Status> => {
  const res = await service.request('GET', `/v1/orgs/${ws.orgId}/onboarding`, { token: ws.tokens.owner });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Status }).data;
};
const stepDone = (status: Status | null, key: string) => status?.steps.find((s) => s.key === key)?.completed;

describe('POST ORG/onboarding/from-website (offline writer)', () => {
  test('saves an unconfirmed profile and a draft strategy; onboarding follows until a person confirms both', async () => {
    const ws = await createTestWorkspace(offline, 'Northwind');
    const res = await start(offline, ws, { websiteUrl: `${site.origin}/`, notes: 'Grow tea subscriptions' });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Result };
    expect(data.brand.source).toBe('heuristic');
    expect(data.brand.profile.websiteUrl).toBe(`${site.origin}/`);
    expect(data.brand.profile.tagline).toBeTruthy();
    expect(data.brand.profile.meta.confirmedAt).toBeNull();
    expect(data.strategy.status).toBe('draft');
    expect(data.strategy.sourceGoal).toBe('Grow tea subscriptions');
    expect(data.strategy.pillars.length).toBeGreaterThan(0);

    const before = await waitUntil(async () => {
      const s = await statusOf(offline, ws);
      return s.brandProfileDetected ? s : null;
    });
    expect(before).toMatchObject({ brandProfileDetected: true, brandConfirmed: false, strategyReady: false });
    expect(stepDone(before, 'brand')).toBe(false);
    expect(stepDone(before, 'strategy')).toBe(false);

    // Both AI steps ran as agent runs, written by the offline writer.
    const runs = await offline.request('GET', `/v1/orgs/${ws.orgId}/agent-runs`, { token: ws.tokens.viewer });
    const items = ((await runs.json()) as { data: { items: { jobType: string; status: string }[] } }).data
      .items;
    expect(items.map((r) => r.jobType).sort()).toEqual(['brand_profile.infer', 'strategy.generate']);
    expect(items.every((r) => r.status === 'succeeded')).toBe(true);

    const confirmBrand = await offline.request('PATCH', `/v1/orgs/${ws.orgId}/brand/profile`, {
      token: ws.tokens.owner,
      body: { confirmBrandContext: true },
    });
    expect(confirmBrand.status).toBe(200);
    const confirmStrategy = await offline.request('POST', `/v1/orgs/${ws.orgId}/strategy/confirm`, {
      token: ws.tokens.owner,
      body: {},
    });
    expect(confirmStrategy.status).toBe(200);
    const after = await waitUntil(async () => {
      const s = await statusOf(offline, ws);
      return s.brandConfirmed && s.strategyReady ? s : null;
    });
    expect(stepDone(after, 'brand')).toBe(true);
    expect(stepDone(after, 'strategy')).toBe(true);
  });

  test('a retry with the same Idempotency-Key answers the first result and records nothing more', async () => {
    const ws = await createTestWorkspace(offline, 'Retry');
    const headers = { 'Idempotency-Key': 'onboarding-from-website-1' };
    const first = await start(offline, ws, { websiteUrl: `${site.origin}/` }, 'owner', headers);
    expect(first.status).toBe(200);
    const firstBody = (await first.json()) as { data: Result };
    const events = await eventCount(offline);
    const again = await start(offline, ws, { websiteUrl: `${site.origin}/` }, 'owner', headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { data: Result }).data.strategy.id).toBe(firstBody.data.strategy.id);
    expect(await eventCount(offline)).toBe(events);
  });

  test('bad input, a private address and a role without workspace:manage change nothing', async () => {
    const ws = await createTestWorkspace(offline, 'Refusals');
    const events = await eventCount(offline);
    const missing = await start(offline, ws, { notes: 'no address' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ErrorBody).details?.[0]?.path).toBe('body.websiteUrl');
    const extra = await start(offline, ws, { websiteUrl: `${site.origin}/`, confirm: true });
    expect(extra.status).toBe(400);
    const local = await start(offline, ws, { websiteUrl: 'http://10.1.2.3/' });
    expect(local.status).toBe(400);
    const editor = await start(offline, ws, { websiteUrl: `${site.origin}/` }, 'editor');
    expect(editor.status).toBe(403);
    expect(await eventCount(offline)).toBe(events);
    const profile = await offline.request('GET', `/v1/orgs/${ws.orgId}/brand/profile`, {
      token: ws.tokens.owner,
    });
    expect(((await profile.json()) as { data: { websiteUrl: string | null } }).data.websiteUrl).toBeNull();
  });
});

describe('with a model: every prompt sent to the provider is inspected', () => {
  test('private and restricted knowledge and guardrails reach no prompt; public knowledge does', async () => {
    const ws = await createTestWorkspace(withModel, 'Disclosure');
    const secrets = [
      'SECRET-MARGIN-41-PERCENT',
      'RESTRICTED-ACQUISITION-TALKS',
      'GUARDRAIL-NEVER-MENTION-FALCON',
      'PRIVATE-PROFILE-IDENTITY-NOTE',
    ];
    const patch = await withModel.request('PATCH', `/v1/orgs/${ws.orgId}/brand/profile`, {
      token: ws.tokens.owner,
      body: {
        topics: ['Loose-leaf tea'],
        knowledgeItems: [
          { kind: 'fact', text: `Our gross margin is ${secrets[0]}`, disclosure: 'private' },
          { kind: 'claim', text: `We are in ${secrets[1]}`, disclosure: 'restricted' },
          { kind: 'fact', text: 'PUBLIC-FACT-HARVEST-TO-CUP-7-DAYS', disclosure: 'public' },
        ],
        guardrails: [{ text: secrets[2], disclosure: 'restricted' }],
      },
    });
    expect(patch.status).toBe(200);
    const from = model.requests.length;
    const res = await start(withModel, ws, { websiteUrl: `${site.origin}/`, notes: 'Grow subscriptions' });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Result };
    expect(data.brand.source).toBe('ai');
    expect(data.strategy.status).toBe('draft');

    const prompts = model.prompts().slice(from);
    expect(prompts.length).toBeGreaterThanOrEqual(2);
    for (const prompt of prompts) for (const secret of secrets) expect(prompt).not.toContain(secret);
    // The check can fail: the strategy's prompt does carry the workspace's public knowledge.
    expect(prompts.some((p) => p.includes('PUBLIC-FACT-HARVEST-TO-CUP-7-DAYS'))).toBe(true);

    // Both runs were model calls, charged through the ledger.
    const runs = await withModel.request('GET', `/v1/orgs/${ws.orgId}/agent-runs`, {
      token: ws.tokens.owner,
    });
    const items = ((await runs.json()) as { data: { items: { costCredits: number | null }[] } }).data.items;
    expect(items).toHaveLength(2);
    expect(items.every((r) => (r.costCredits ?? 0) > 0)).toBe(true);
  });
});
