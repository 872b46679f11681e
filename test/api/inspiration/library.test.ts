// The inspiration library through the whole service on the embedded default (sandbox connectors, offline writer):
// saving by text and by link (X through the X post read, charged x_post_read once; LinkedIn through the connector;
// a link saved again answers the first item and charges nothing), the offline analysis (ready, with provider,
// model and prompt version), every filter of GET ORG/inspiration, the compact and verbose forms, both sorts,
// relevance that follows the strategy, PATCH (new text analysed again), DELETE, the opportunity moves and the
// opportunities list, drafts kept on the item and put in review only when asked, roles, 400s naming the field,
// Idempotency-Key replays, and read-your-writes.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testCredits } from '../../support/ai-runtime.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
}, 120_000);
afterAll(async () => service?.stop());

interface Item {
  id: string;
  orgId: string;
  platform: string;
  sourceType: string;
  sourceExternalId: string | null;
  sourceUrl: string | null;
  authorName: string | null;
  authorHandle: string | null;
  contentText: string;
  analysisStatus: string;
  analysisError: string | null;
  analysis: { topic: string; hook: string; format: string; keywords: string[]; qualityScore: number } | null;
  analysisProvider: string | null;
  analysisModel: string | null;
  analysisPromptVersion: string | null;
  analyzedAt: string | null;
  notes: string | null;
  tags: string[];
  relevanceScore: number | null;
  whyItMatters: string | null;
  interpretation: {
    relevanceScore: number;
    scoreBreakdown: Record<string, number>;
    matchedPillars: string[];
    matchedPriorities: string[];
  } | null;
  strategyId: string | null;
  strategyVersion: number | null;
  engagement: { likes: number | null } | null;
  generatedDrafts: { destination: string; styleKey: string; text: string }[];
  opportunityStatus: string;
  createdAt: string;
}
interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

const req = (
  method: string,
  path: string,
  body?: unknown,
  token = ws.tokens.owner,
  headers?: Record<string, string>,
  w = ws,
) =>
  service.request(method, `/v1/orgs/${w.orgId}${path}`, {
    token,
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });
async function data<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return ((await res.json()) as { data: T }).data;
}
const save = async (body: Record<string, unknown>, w = ws) =>
  data<Item>(await req('POST', '/inspiration', body, w.tokens.owner, undefined, w), 201);
const list = async (query: string, w = ws) =>
  data<Page<Item & { contentExcerpt?: string; contentTruncated?: boolean }>>(
    await req('GET', `/inspiration?${query}`, undefined, w.tokens.owner, undefined, w),
  );

const onboardingText =
  'Most B2B onboarding fails in the first 10 minutes.\n\nWe cut time-to-value by doing three things:\n\n1. One goal per session\n2. Sample data by default\n3. A check-in on day 2\n\nWhat would you drop?';
const pricingText =
  'Unpopular opinion: pricing pages for founders should show the price.\n\nEvery sales call is a week lost. #pricing';

describe('saving and analysing', () => {
  test('by text: 201, analysed offline at once (ready, provider and model offline, the prompt version)', async () => {
    const item = await save({
      contentText: onboardingText,
      platform: 'linkedin',
      authorName: 'Jane Doe',
      authorHandle: 'janedoe',
      tags: ['Onboarding', 'onboarding', 'SaaS'],
      notes: 'Good list format',
    });
    expect(item).toMatchObject({
      orgId: ws.orgId,
      platform: 'linkedin',
      sourceType: 'manual_text',
      sourceUrl: null,
      authorName: 'Jane Doe',
      tags: ['Onboarding', 'SaaS'],
      notes: 'Good list format',
      analysisStatus: 'ready',
      analysisError: null,
      analysisProvider: 'offline',
      analysisModel: 'offline',
      analysisPromptVersion: 'inspiration-analysis/1',
      opportunityStatus: 'open',
      generatedDrafts: [],
      // No strategy yet: nothing to read it against.
      relevanceScore: null,
      interpretation: null,
      strategyId: null,
    });
    expect(item.analysis).toMatchObject({
      hook: 'Most B2B onboarding fails in the first 10 minutes.',
      format: 'listicle',
    });
    expect(item.analysis!.keywords).toContain('onboarding');
    expect(item.analyzedAt).not.toBeNull();
    // Read-your-writes: GET one and the list show it at once.
    expect(await data<Item>(await req('GET', `/inspiration/${item.id}`))).toEqual(item);
    expect((await list('includeHidden=false&verbose=true')).items.map((i) => i.id)).toContain(item.id);
  });

  test('refused input: 400 naming the field, nothing stored; a viewer may read but not save', async () => {
    const before = await eventCount(service);
    const cases: [unknown, string][] = [
      [{}, 'body.url'],
      [{ contentText: 'x', url: 'https://x.com/a/status/1' }, 'body.contentText'],
      [{ contentText: 'text' }, 'body.platform'],
      [{ contentText: '   ', platform: 'x' }, 'body.contentText'],
      [{ url: 'https://example.com/post/1' }, 'body.url'],
      [{ contentText: 'ok', platform: 'mastodon' }, 'body.platform'],
    ];
    for (const [body, field] of cases) {
      const res = await req('POST', '/inspiration', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const err = (await res.json()) as { details?: { path: string }[] };
      expect(err.details?.map((d) => d.path).join(), JSON.stringify(body)).toContain(field);
    }
    expect(
      (await req('POST', '/inspiration', { contentText: 'hi', platform: 'x' }, ws.tokens.viewer)).status,
    ).toBe(403);
    expect(await eventCount(service)).toBe(before);
    expect(
      (await req('GET', '/inspiration?includeHidden=false&verbose=false', undefined, ws.tokens.viewer))
        .status,
    ).toBe(200);
    // includeHidden and verbose are required (spec).
    const missing = await req('GET', '/inspiration?verbose=true');
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await missing.json())).toContain('query.includeHidden');
  });

  test('an Idempotency-Key replays the first answer and saves once', async () => {
    const headers = { 'Idempotency-Key': 'save-once-1' };
    const body = { contentText: 'A post saved twice by a retry.', platform: 'x' };
    const first = await data<Item>(await req('POST', '/inspiration', body, ws.tokens.owner, headers), 201);
    const again = await req('POST', '/inspiration', body, ws.tokens.owner, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { data: Item }).data).toEqual(first);
  });
});

describe('saving by link on the sandbox', () => {
  test('an X link is read through the X post read (x_post_read charged once); saved again, the same item and no charge', async () => {
    const w = await createTestWorkspace(service, 'Links');
    await connectSandboxAccount(service, { orgId: w.orgId, userId: w.userIds.owner }, 'x');
    const { credits, catalog } = testCredits(service);
    const cost = catalog.actionCost('x_post_read')!.credits;
    const balance = async () => (await credits.summaryOf(w.orgId)).creditBalance.total;
    const before = await balance();
    const url = 'https://x.com/someone/status/1790000000000000000?s=20';
    const item = await save({ url, tags: ['x'] }, w);
    expect(item).toMatchObject({
      platform: 'x',
      sourceType: 'manual_url',
      sourceExternalId: '1790000000000000000',
      analysisStatus: expect.stringMatching(/ready|skipped/),
    });
    expect(item.sourceUrl).toMatch(/status\/1790000000000000000$/);
    expect(item.authorHandle).toEqual(expect.any(String));
    expect(item.engagement?.likes).toEqual(expect.any(Number));
    expect(await balance()).toBe(before - cost);
    const again = await save({ url: 'https://twitter.com/other/status/1790000000000000000' }, w);
    expect(again.id).toBe(item.id);
    expect(await balance()).toBe(before - cost);
    // Without an X account: 409 naming what to do, nothing saved.
    const bare = await createTestWorkspace(service, 'Bare');
    const res = await req('POST', '/inspiration', { url }, bare.tokens.owner, undefined, bare);
    expect(res.status).toBe(409);
  });

  test('a LinkedIn link is read through the LinkedIn connector; a missing post is 404', async () => {
    const w = await createTestWorkspace(service, 'LinkedIn links');
    await connectSandboxAccount(service, { orgId: w.orgId, userId: w.userIds.owner }, 'linkedin');
    const item = await save(
      { url: 'https://www.linkedin.com/feed/update/urn:li:activity:7260000000000000001/' },
      w,
    );
    expect(item).toMatchObject({
      platform: 'linkedin',
      sourceType: 'manual_url',
      sourceExternalId: 'urn:li:share:7260000000000000001',
      analysisStatus: 'ready',
    });
    expect(item.contentText.length).toBeGreaterThan(20);
    expect(item.authorName).toEqual(expect.any(String));
    const res = await req(
      'POST',
      '/inspiration',
      { url: 'https://www.linkedin.com/feed/update/urn:li:share:7260000000000000404/' },
      w.tokens.owner,
      undefined,
      w,
    );
    expect(res.status).toBe(404);
  });
});

describe('the list', () => {
  let lib: TestWorkspace;
  let onboarding: Item;
  let pricing: Item;
  let story: Item;

  beforeAll(async () => {
    lib = await createTestWorkspace(service, 'Library');
    onboarding = await save(
      { contentText: onboardingText, platform: 'linkedin', authorName: 'Jane Doe', tags: ['growth'] },
      lib,
    );
    pricing = await save(
      { contentText: pricingText, platform: 'x', authorHandle: 'pricingpro', tags: ['Pricing'] },
      lib,
    );
    story = await save(
      {
        contentText: 'Three years ago we shipped a redesign nobody asked for. The lesson: talk to customers.',
        platform: 'x',
      },
      lib,
    );
  });

  const ids = (page: Page<{ id: string }>) => page.items.map((i) => i.id);

  test('compact (verbose=false) and full (verbose=true) forms; newest first; paging', async () => {
    const compact = await list('includeHidden=false&verbose=false', lib);
    expect(ids(compact)).toEqual([story.id, pricing.id, onboarding.id]);
    expect(compact.items[0]).toEqual({
      id: story.id,
      platform: 'x',
      sourceUrl: null,
      authorName: null,
      contentExcerpt: story.contentText,
      contentTruncated: false,
      analysisStatus: 'ready',
      topic: story.analysis!.topic,
      hook: story.analysis!.hook,
      keywords: story.analysis!.keywords,
      opportunityStatus: 'open',
      relevanceScore: null,
      whyItMatters: null,
      scoreBreakdown: null,
      matchedPillars: [],
      matchedPriorities: [],
      strategyNotes: [],
      generatedDrafts: [],
      tags: [],
      createdAt: story.createdAt,
    });
    const full = await list('includeHidden=0&verbose=1&limit=2', lib);
    expect(full.items[0]).toEqual(story);
    expect(full).toMatchObject({ page: 1, limit: 2, total: 3, hasMore: true });
    expect(ids(await list('includeHidden=false&verbose=false&limit=2&page=2', lib))).toEqual([onboarding.id]);
  });

  test('every filter', async () => {
    const q = (f: string) => list(`includeHidden=false&verbose=false&${f}`, lib).then(ids);
    expect(await q('platform=x')).toEqual([story.id, pricing.id]);
    expect(await q('platform=linkedin')).toEqual([onboarding.id]);
    expect(await q('tag=pricing')).toEqual([pricing.id]);
    expect(await q('creator=jane')).toEqual([onboarding.id]);
    expect(await q('creator=PRICINGPRO')).toEqual([pricing.id]);
    expect(await q('hook=unpopular')).toEqual([pricing.id]);
    expect(await q(`topic=${encodeURIComponent(onboarding.analysis!.topic.split(',')[0]!)}`)).toContain(
      onboarding.id,
    );
    expect(await q('audience=founders')).toEqual([pricing.id]);
    expect(await q('analysisStatus=ready')).toHaveLength(3);
    expect(await q('analysisStatus=failed')).toEqual([]);
    expect(await q('opportunityStatus=open')).toHaveLength(3);
    expect(await q(`savedFrom=${encodeURIComponent(pricing.createdAt)}`)).toEqual([story.id, pricing.id]);
    expect(await q(`savedTo=${encodeURIComponent(pricing.createdAt)}`)).toEqual([pricing.id, onboarding.id]);
    expect(await q('savedFrom=2000-01-01&savedTo=2000-01-02')).toEqual([]);
    expect(await q('hook=%25')).toEqual([]);
    const bad = await req(
      'GET',
      '/inspiration?includeHidden=false&verbose=false&sort=best',
      undefined,
      lib.tokens.owner,
      undefined,
      lib,
    );
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('query.sort');
  });

  test('relevance follows the strategy: a pillar keyword raises the items that mention it, and the sort follows', async () => {
    await data(
      await req(
        'PATCH',
        '/strategy',
        {
          pillars: [{ name: 'Customer onboarding', keywords: ['onboarding'] }],
          targetAudience: 'B2B founders',
        },
        lib.tokens.owner,
        undefined,
        lib,
      ),
    );
    const byRelevance = await list('includeHidden=false&verbose=true&sort=relevance', lib);
    expect(byRelevance.items[0]!.id).toBe(onboarding.id);
    const first = byRelevance.items[0]!;
    expect(first.interpretation!.matchedPillars).toEqual(['Customer onboarding']);
    expect(first.whyItMatters).toMatch(/Customer onboarding/);
    expect(first.strategyId).toEqual(expect.any(String));
    expect(first.strategyVersion).toBe(1);
    const pricingBefore = byRelevance.items.find((i) => i.id === pricing.id)!.relevanceScore!;

    await data(
      await req(
        'PATCH',
        '/strategy',
        {
          pillars: [
            { name: 'Customer onboarding', keywords: ['onboarding'] },
            { name: 'Pricing', keywords: ['sales call'] },
          ],
        },
        lib.tokens.owner,
        undefined,
        lib,
      ),
    );
    const after = await data<Item>(
      await req('GET', `/inspiration/${pricing.id}`, undefined, lib.tokens.owner, undefined, lib),
    );
    expect(after.relevanceScore!).toBeGreaterThan(pricingBefore);
    expect(after.interpretation!.matchedPillars).toEqual(['Pricing']);
    const recent = await list('includeHidden=false&verbose=false&sort=recent', lib);
    expect(ids(recent)).toEqual([story.id, pricing.id, onboarding.id]);
    const relevant = await list('includeHidden=false&verbose=false&sort=relevance', lib);
    expect(relevant.items.at(-1)!.id).toBe(story.id);
  });
});

describe('editing, moving and removing', () => {
  test('PATCH: notes, tags, author; new text goes back through the analysis; drafts replace', async () => {
    const item = await save({ contentText: 'How to write a hook. Keep it short.', platform: 'x' });
    const edited = await data<Item>(
      await req('PATCH', `/inspiration/${item.id}`, {
        notes: null,
        tags: ['hooks'],
        authorName: 'Someone',
        contentText: 'Stop writing long hooks!\n\nShort ones win.',
        generatedDrafts: [{ destination: 'x', styleKey: 'contrarian_take', text: 'Short hooks win.' }],
      }),
    );
    expect(edited).toMatchObject({
      notes: null,
      tags: ['hooks'],
      authorName: 'Someone',
      contentText: 'Stop writing long hooks!\n\nShort ones win.',
      analysisStatus: 'ready',
      generatedDrafts: [{ destination: 'x', styleKey: 'contrarian_take', text: 'Short hooks win.' }],
    });
    expect(edited.analysis!.hook).toBe('Stop writing long hooks!');
    const bad = await req('PATCH', `/inspiration/${item.id}`, {
      generatedDrafts: [{ destination: 'tiktok', styleKey: 'a', text: 'b' }],
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('body.generatedDrafts.0.destination');
    expect((await req('PATCH', `/inspiration/${crypto.randomUUID()}`, { tags: [] })).status).toBe(404);
  });

  test('opportunity moves: hidden items leave the list unless asked for; acted_on is final; the opportunities list ranks open and saved', async () => {
    const w = await createTestWorkspace(service, 'Opportunities');
    await data(
      await req(
        'PATCH',
        '/strategy',
        { pillars: [{ name: 'Hiring', keywords: ['hiring', 'recruiting'] }] },
        w.tokens.owner,
        undefined,
        w,
      ),
    );
    const a = await save(
      { contentText: 'Hiring is a product. Treat recruiting like marketing.', platform: 'linkedin' },
      w,
    );
    const b = await save({ contentText: 'A nice sunset photo from the office.', platform: 'x' }, w);
    const c = await save({ contentText: 'Our hiring funnel, step by step.', platform: 'x' }, w);
    const move = (id: string, status: string, reason?: string) =>
      req(
        'POST',
        `/inspiration/${id}/opportunity`,
        { status, ...(reason ? { reason } : {}) },
        w.tokens.owner,
        undefined,
        w,
      );
    expect(await data<Item>(await move(b.id, 'hidden', 'off topic'))).toMatchObject({
      opportunityStatus: 'hidden',
      feedbackReason: 'off topic',
    });
    expect(await data<Item>(await move(c.id, 'saved'))).toMatchObject({ opportunityStatus: 'saved' });
    const visible = (await list('includeHidden=false&verbose=false', w)).items.map((i) => i.id);
    expect(visible).not.toContain(b.id);
    expect((await list('includeHidden=true&verbose=false', w)).total).toBe(3);
    expect(
      (await list('includeHidden=false&verbose=false&opportunityStatus=hidden', w)).items.map((i) => i.id),
    ).toEqual([b.id]);

    const opportunities = await data<Page<{ id: string; opportunityStatus: string; relevanceScore: number }>>(
      await req('GET', '/inspiration/opportunities', undefined, w.tokens.viewer, undefined, w),
    );
    expect(opportunities.items.map((i) => i.id)).toEqual([a.id, c.id]);
    expect(opportunities.items[0]!.relevanceScore).toBeGreaterThanOrEqual(
      opportunities.items[1]!.relevanceScore,
    );
    const saved = await data<Page<{ id: string }>>(
      await req('GET', '/inspiration/opportunities?status=saved', undefined, w.tokens.owner, undefined, w),
    );
    expect(saved.items.map((i) => i.id)).toEqual([c.id]);

    expect(await data<Item>(await move(a.id, 'acted_on'))).toMatchObject({ opportunityStatus: 'acted_on' });
    const final = await move(a.id, 'open');
    expect(final.status).toBe(409);
    // The same status again changes nothing.
    const events = await eventCount(service);
    expect(await data<Item>(await move(c.id, 'saved'))).toMatchObject({ opportunityStatus: 'saved' });
    expect(await eventCount(service)).toBe(events);
    expect((await move(b.id, 'flying')).status).toBe(400);
  });

  test('DELETE answers the item as it was; then 404 and gone from the list', async () => {
    const item = await save({ contentText: 'To be removed.', platform: 'x' });
    const removed = await data<Item>(await req('DELETE', `/inspiration/${item.id}`));
    expect(removed.id).toBe(item.id);
    expect((await req('GET', `/inspiration/${item.id}`)).status).toBe(404);
    expect((await req('DELETE', `/inspiration/${item.id}`)).status).toBe(404);
    expect((await list('includeHidden=true&verbose=false')).items.map((i) => i.id)).not.toContain(item.id);
    expect(
      (await req('DELETE', `/inspiration/${crypto.randomUUID()}`, undefined, ws.tokens.viewer)).status,
    ).toBe(403);
  });
});

describe('drafts', () => {
  interface Drafts {
    item: Item;
    drafts: { destination: string; styleKey: string; text: string }[];
    group: { id: string; status: string } | null;
    posts: { platform: string; contentText: string }[];
    providerModel: string;
    creditsUsed: number;
  }

  test('kept on the item, no post group, unless review is asked; in review: one group pending approval and the item acted on', async () => {
    const item = await save({ contentText: onboardingText, platform: 'linkedin' });
    const posts = async () =>
      (await data<{ total: number }>(await req('GET', '/marketing/posts?limit=1'))).total;
    const before = await posts();
    const drafted = await data<Drafts>(
      await req('POST', `/inspiration/${item.id}/drafts`, {
        destinations: ['x', 'thread', 'article'],
        styleKey: 'how_to_steps',
      }),
    );
    expect(drafted.providerModel).toBe('offline');
    expect(drafted.creditsUsed).toBe(0);
    expect(drafted.group).toBeNull();
    expect(drafted.drafts.map((d) => [d.destination, d.styleKey])).toEqual([
      ['x', 'how_to_steps'],
      ['thread', 'how_to_steps'],
      ['article', 'how_to_steps'],
    ]);
    expect(drafted.drafts[1]!.text).toContain('\n---\n');
    expect(drafted.item.generatedDrafts).toEqual(drafted.drafts);
    expect(drafted.item.opportunityStatus).toBe('open');
    expect(await posts()).toBe(before);

    const reviewed = await data<Drafts>(
      await req('POST', `/inspiration/${item.id}/drafts`, { review: true }),
    );
    expect(reviewed.group!.status).toBe('pending_approval');
    expect(reviewed.posts.map((p) => p.platform)).toEqual(['x', 'linkedin']);
    expect(reviewed.item.opportunityStatus).toBe('acted_on');
    // The x draft of another style was kept; same destination and style replaced.
    expect(reviewed.item.generatedDrafts.map((d) => d.destination)).toEqual([
      'x',
      'thread',
      'article',
      'x',
      'linkedin',
    ]);
    expect(await posts()).toBeGreaterThan(before);

    const onlyArticle = await req('POST', `/inspiration/${item.id}/drafts`, {
      destinations: ['article'],
      review: true,
    });
    expect(onlyArticle.status).toBe(400);
    expect((await req('POST', `/inspiration/${item.id}/drafts`, {}, ws.tokens.viewer)).status).toBe(403);
  });

  test('re-analysing answers the item; another workspace cannot see or touch it', async () => {
    const item = await save({ contentText: 'Re-analyse me, please. What do you think?', platform: 'x' });
    const again = await data<Item>(await req('POST', `/inspiration/${item.id}/analyze`));
    expect(again.analysisStatus).toBe('ready');
    expect(again.analyzedAt).not.toBeNull();
    const other = await createTestWorkspace(service, 'Other');
    for (const [method, path] of [
      ['GET', `/inspiration/${item.id}`],
      ['PATCH', `/inspiration/${item.id}`],
      ['DELETE', `/inspiration/${item.id}`],
      ['POST', `/inspiration/${item.id}/analyze`],
      ['POST', `/inspiration/${item.id}/drafts`],
    ] as const) {
      const res = await req(
        method,
        path,
        method === 'PATCH' ? { tags: [] } : method === 'POST' ? {} : undefined,
        other.tokens.owner,
        undefined,
        other,
      );
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});
