// The research tools through the whole service (issue 31, part 3): the curated set labelled and dated where no live
// source is connected; newsjacking settings (defaults, saves, refusals naming the field, roles, idempotent retries);
// niche news from RSS and Atom feeds served locally (read through the safe fetcher, parsed off-thread, cached, a
// malformed and an oversized feed warnings, exclude terms); trends and X accounts against a locally served X API v2
// (personalized trends, recent search) with credits reserved and charged for what X returned, nothing on failure;
// the sandbox X end to end; the tools for assistants.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CreditLedgerStore } from '../../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../../commands/billing/credits.js';
import { ensureStarted } from '../../../commands/billing/subscription-commands.js';
import { viralFormatKeys, viralFormats } from '../../../domain/ai/viral-formats.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
} from '../../../infra/billing/config.js';
import type { PlatformConnector } from '../../../infra/connectors/port.js';
import { createXConnector } from '../../../infra/connectors/x/x-connector.js';
import { curatedSet } from '../../../infra/research/curated.js';
import { feedLimits } from '../../../infra/research/feed-reader.js';
import { startFakePlatform, type FakePlatform } from '../../connectors/support/fake-platform.js';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
let served: FakePlatform;
let credits: CreditsService;
let postCost: number;
let trendsCost: number;

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);

const rss = (items: string) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Pipeline Weekly</title><link>https://news.example/</link>
${items}
</channel></rss>`;
const rssItem = (title: string, description: string, at: Date, id: string) => `<item>
  <title>${title}</title><link>https://news.example/${id}</link><guid>${id}</guid>
  <description><![CDATA[<p>${description}</p>]]></description><pubDate>${at.toUTCString()}</pubDate></item>`;

const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Forecast Journal</title><id>urn:fj</id>
<updated>${hoursAgo(1).toISOString()}</updated>
<entry><title type="html">Forecasting &amp;amp; revenue: the new playbook</title><id>urn:fj:1</id>
<link rel="alternate" href="https://journal.example/1"/><updated>${hoursAgo(2).toISOString()}</updated>
<summary>How teams forecast revenue with less guesswork.</summary></entry>
<entry><title>Gardening notes</title><id>urn:fj:2</id><link href="https://journal.example/2"/>
<updated>${hoursAgo(3).toISOString()}</updated><summary>Tomatoes in November.</summary></entry>
</feed>`;

beforeAll(async () => {
  served = await startFakePlatform();
  service = await startTestService({ outbound: { allowPrivate: [served.baseUrl] } });
  const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  postCost = catalog.actionCost('x_post_read')!.credits;
  trendsCost = catalog.actionCost('x_trends_read')!.credits;
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
afterAll(async () => {
  await service?.stop();
  await served?.close();
});

const balance = async (orgId: string) => (await credits.summaryOf(orgId)).creditBalance.total;

async function call(
  ws: TestWorkspace,
  method: string,
  rest: string,
  body?: unknown,
  options: { role?: keyof TestWorkspace['tokens']; headers?: Record<string, string> } = {},
) {
  const res = await service.request(method, `/v1/orgs/${ws.orgId}/inspiration${rest}`, {
    token: ws.tokens[options.role ?? 'owner'],
    ...(body !== undefined ? { body } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  return { status: res.status, json: (await res.json()) as Loose, headers: res.headers };
}
const data = (res: { status: number; json: Loose }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json.data as Loose;
};

async function givePillars(ws: TestWorkspace, pillars: { name: string; keywords?: string[] }[]) {
  const res = await service.request('PATCH', `/v1/orgs/${ws.orgId}/strategy`, {
    token: ws.tokens.owner,
    body: { primaryObjective: 'Be the reference', targetAudience: 'Revenue leaders', pillars },
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

describe('the curated set where nothing live is connected', () => {
  test('trends, formats, hints, news and X accounts answer the curated set, labelled and dated', async () => {
    const ws = await createTestWorkspace(service);
    await givePillars(ws, [{ name: 'Developer tools', keywords: ['open source', 'api'] }]);
    const set = curatedSet();
    const curated = { kind: 'curated', name: set.name, asOf: set.asOf };

    const trends = data(await call(ws, 'GET', '/trends'));
    expect(trends.source).toMatchObject(curated);
    expect(trends.creditsUsed).toBe(0);
    // The pillar's keywords bring the matching topic first.
    expect(trends.topics[0]).toMatchObject({ name: 'Developer tools and open source', source: curated });
    expect(trends.topics[0].matchedTerms).toEqual(expect.arrayContaining(['Developer tools', 'open source']));

    const formats = data(await call(ws, 'GET', '/formats'));
    expect((formats.items as Loose[]).map((f: Loose) => f.key as string)).toEqual([...viralFormatKeys]);
    expect(formats.items[0]).toEqual(viralFormats[viralFormatKeys[0]]);
    expect(formats.source.kind).toBe('curated');

    const hints = data(await call(ws, 'GET', '/algorithm-hints?platform=x'));
    expect(hints.platforms).toHaveLength(1);
    expect(hints.platforms[0].platform).toBe('x');
    expect(hints.platforms[0].hints.length).toBeGreaterThan(0);
    for (const h of hints.platforms[0].hints) expect(h.reference.url).toMatch(/^https:\/\//);
    expect(hints.source).toMatchObject(curated);
    const all = data(await call(ws, 'GET', '/algorithm-hints'));
    expect((all.platforms as Loose[]).map((p: Loose) => p.platform as string)).toContain('linkedin');
    expect((await call(ws, 'GET', '/algorithm-hints?platform=myspace')).status).toBe(400);

    // No feed configured: the curated reference items, those matching the workspace's terms.
    const news = data(await call(ws, 'GET', '/news?matchedOnly=false'));
    expect(news.sources).toEqual([expect.objectContaining(curated)]);
    expect(news.items.length).toBe(set.news.length);
    for (const item of news.items) expect(item.source.kind).toBe('curated');
    // Items mentioning a term come first (the Threads API item matches the pillar's `api`).
    expect(news.items[0].matchedTerms).toEqual(['api']);
    expect(news.items[0].title).toBe('Threads opens its API to developers');

    // No X account: the research tools answer the curated set and charge nothing.
    const before = await balance(ws.orgId);
    const found = data(await call(ws, 'POST', '/trends/search', {}));
    expect(found.source).toMatchObject(curated);
    expect(found.creditsUsed).toBe(0);
    expect((found.warnings as string[]).join(' ')).toMatch(/^X: .*curated set answers/);
    const accounts = data(await call(ws, 'POST', '/x-accounts', { topics: ['open source'] }));
    expect(accounts.source).toMatchObject(curated);
    expect((accounts.accounts as Loose[]).map((a: Loose) => a.handle as string)).toContain('github');
    expect(await balance(ws.orgId)).toBe(before);
  });
});

describe('newsjacking settings', () => {
  test('defaults, a save, omitted fields kept, refusals named, roles, idempotent retry', async () => {
    const ws = await createTestWorkspace(service);
    expect(data(await call(ws, 'GET', '/newsjacking-settings'))).toEqual({
      enabled: true,
      feeds: [],
      keywords: [],
      excludeTerms: [],
      alertThreshold: 60,
      updatedAt: null,
      updatedBy: null,
    });
    const saved = data(
      await call(ws, 'PATCH', '/newsjacking-settings', {
        feeds: [
          { url: 'https://news.example/feed.xml#top', name: 'Example' },
          { url: 'http://other.example/atom' },
        ],
        keywords: [' forecasting ', 'Forecasting', 'revenue'],
        alertThreshold: 70,
      }),
    );
    expect(saved).toMatchObject({
      enabled: true,
      keywords: ['forecasting', 'revenue'],
      alertThreshold: 70,
      updatedBy: ws.userIds.owner,
    });
    expect(saved.feeds).toEqual([
      { id: expect.any(String), name: 'Example', url: 'https://news.example/feed.xml', enabled: true },
      { id: expect.any(String), name: 'other.example', url: 'http://other.example/atom', enabled: true },
    ]);
    // A feed keeps its id when its url is sent again; omitted fields stay.
    const again = data(
      await call(ws, 'PATCH', '/newsjacking-settings', {
        feeds: [{ url: 'https://news.example/feed.xml', name: 'Example', enabled: false }],
      }),
    );
    expect(again.feeds).toEqual([{ ...saved.feeds[0], enabled: false }]);
    expect(again.keywords).toEqual(['forecasting', 'revenue']);

    const events = await eventCount(service);
    const refused = await call(ws, 'PATCH', '/newsjacking-settings', {
      feeds: [{ url: 'ftp://files.example/feed' }],
      alertThreshold: 101,
    });
    expect(refused.status).toBe(400);
    expect((refused.json.details as Loose[]).map((d: Loose) => d.path as string).sort()).toEqual([
      'body.alertThreshold',
      'body.feeds.0.url',
    ]);
    expect((await call(ws, 'PATCH', '/newsjacking-settings', { colour: 'red' })).status).toBe(400);
    expect(
      (await call(ws, 'PATCH', '/newsjacking-settings', { enabled: false }, { role: 'editor' })).status,
    ).toBe(403);
    expect(await eventCount(service)).toBe(events);
    expect((await call(ws, 'GET', '/newsjacking-settings', undefined, { role: 'viewer' })).status).toBe(200);

    const headers = { 'Idempotency-Key': `nj-${ws.orgId}` };
    const first = await call(ws, 'PATCH', '/newsjacking-settings', { enabled: false }, { headers });
    const retry = await call(ws, 'PATCH', '/newsjacking-settings', { enabled: false }, { headers });
    expect(retry.json).toEqual(first.json);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await eventCount(service)).toBe(events + 1);
  });
});

describe('another workspace', () => {
  test("a member's token reaches only its own workspace's research and settings", async () => {
    const a = await createTestWorkspace(service);
    const b = await createTestWorkspace(service, 'Other');
    for (const [method, rest, body] of [
      ['GET', '/trends', undefined],
      ['POST', '/trends/search', {}],
      ['GET', '/news', undefined],
      ['GET', '/formats', undefined],
      ['GET', '/algorithm-hints', undefined],
      ['POST', '/x-accounts', {}],
      ['GET', '/newsjacking-settings', undefined],
      ['PATCH', '/newsjacking-settings', { enabled: false }],
    ] as const) {
      const res = await service.request(method, `/v1/orgs/${b.orgId}/inspiration${rest}`, {
        token: a.tokens.owner,
        ...(body !== undefined ? { body } : {}),
      });
      expect(res.status, `${method} ${rest}`).toBe(403);
    }
    expect(data(await call(b, 'GET', '/newsjacking-settings')).updatedAt).toBeNull();
  });
});

describe('niche news from feeds served locally', () => {
  test('RSS and Atom read, matched and scored; a malformed and an oversized feed are warnings; cached', async () => {
    served.on('GET', '/rss.xml', {
      headers: { 'content-type': 'application/rss+xml' },
      body: rss(
        rssItem('Revenue forecasting gets an AI upgrade', 'Teams <b>forecast</b> faster.', hoursAgo(2), 'a') +
          rssItem('Forecasting webinar (sponsored)', 'Join us', hoursAgo(1), 'b') +
          rssItem('Celebrity gossip', 'Nothing to see', hoursAgo(1), 'c'),
      ),
    });
    served.on('GET', '/atom.xml', { headers: { 'content-type': 'application/atom+xml' }, body: atom });
    served.on('GET', '/broken.xml', {
      headers: { 'content-type': 'application/xml' },
      body: '<rss><channel><item><title>x</ti',
    });
    served.on('GET', '/big.xml', {
      headers: { 'content-type': 'application/xml' },
      body: rss(rssItem('Big', 'x'.repeat(feedLimits.maxBytes), hoursAgo(1), 'big')),
    });
    const ws = await createTestWorkspace(service);
    await givePillars(ws, [{ name: 'Forecasting', keywords: ['revenue'] }]);
    data(
      await call(ws, 'PATCH', '/newsjacking-settings', {
        feeds: ['/rss.xml', '/atom.xml', '/broken.xml', '/big.xml'].map((p, i) => ({
          url: `${served.baseUrl}${p}`,
          name: ['Pipeline Weekly', 'Forecast Journal', 'Broken', 'Big'][i],
        })),
        excludeTerms: ['sponsored'],
        alertThreshold: 70,
      }),
    );
    const news = data(await call(ws, 'GET', '/news'));
    expect(news.terms).toEqual(['Forecasting', 'revenue']);
    expect((news.items as Loose[]).map((i: Loose) => i.title as string)).toEqual([
      'Revenue forecasting gets an AI upgrade',
      'Forecasting & revenue: the new playbook',
    ]);
    const [first, second] = news.items as Loose[];
    expect(first).toMatchObject({
      url: `https://news.example/a`,
      summary: 'Teams forecast faster.',
      feedName: 'Pipeline Weekly',
      matchedTerms: ['Forecasting', 'revenue'],
      relevance: 80,
      alert: true,
      source: { kind: 'live', name: 'News feed: Pipeline Weekly', url: `${served.baseUrl}/rss.xml` },
    });
    expect(second).toMatchObject({ url: 'https://journal.example/1', source: { kind: 'live' } });
    expect(news.warnings).toEqual([
      expect.stringMatching(/^Broken: the feed is malformed/),
      `Big: the feed is larger than ${feedLimits.maxBytes / 1024} KiB`,
    ]);
    expect((news.sources as Loose[]).map((s: Loose) => s.kind as string)).toEqual(['live', 'live']);

    // Every item when asked, the excluded one still out; the feeds are not fetched again (cached).
    const fetched = served.requests.length;
    const everything = data(await call(ws, 'GET', '/news?matchedOnly=false&limit=10'));
    expect((everything.items as Loose[]).map((i: Loose) => i.title as string)).toContain('Celebrity gossip');
    expect((everything.items as Loose[]).map((i: Loose) => i.title as string)).not.toContain(
      'Forecasting webinar (sponsored)',
    );
    expect((everything.sources as Loose[]).map((s: Loose) => s.kind as string)).toEqual(['cached', 'cached']);
    expect(served.requests.length).toBe(fetched);
    // query replaces the workspace's terms.
    const garden = data(await call(ws, 'GET', '/news?query=tomatoes'));
    expect((garden.items as Loose[]).map((i: Loose) => i.title as string)).toEqual(['Gardening notes']);
  });

  test('a feed on a private address is refused by the safe fetcher', async () => {
    const ws = await createTestWorkspace(service);
    data(
      await call(ws, 'PATCH', '/newsjacking-settings', {
        feeds: [{ url: 'http://169.254.169.254/latest/meta-data', name: 'Metadata' }],
      }),
    );
    const news = data(await call(ws, 'GET', '/news?matchedOnly=false'));
    expect(news.warnings).toEqual([
      expect.stringMatching(/^Metadata: the feed cannot be read/),
      'No feed could be read: the curated set answers meanwhile',
    ]);
    // Nothing live was read: the curated items answer, labelled.
    expect((news.sources as Loose[]).map((s) => s.kind as string)).toEqual(['curated']);
    expect(news.items.length).toBeGreaterThan(0);
  });
});

describe('trends and X accounts against a locally served X API', () => {
  const xUsers = [
    { id: '201', name: 'Maya Chen', username: 'maya_builds', public_metrics: { followers_count: 18_420 } },
    { id: '202', name: 'Dan Okafor', username: 'devrel_dan', public_metrics: { followers_count: 7_310 } },
  ];
  const tweet = (id: string, author: string, text: string, minutesAgo: number, likes: number) => ({
    id,
    text,
    author_id: author,
    created_at: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
    public_metrics: { like_count: likes, reply_count: 2, retweet_count: 0, quote_count: 0 },
  });
  let x: PlatformConnector;
  let original: Pick<PlatformConnector, 'readXTrends' | 'readEngagement'>;

  beforeAll(() => {
    x = service.runtime.connectors.get('x');
    original = { readXTrends: x.readXTrends?.bind(x), readEngagement: x.readEngagement?.bind(x) };
    const live = createXConnector({
      clientId: 'client-id',
      clientSecret: 'client-secret',
      apiBaseUrl: served.baseUrl,
      timeoutMs: 2_000,
      sleep: async () => {},
    });
    x.readXTrends = live.readXTrends!.bind(live);
    x.readEngagement = live.readEngagement!.bind(live);
  });
  afterAll(() => {
    x.readXTrends = original.readXTrends;
    x.readEngagement = original.readEngagement;
  });

  test('find_trending_topics: personalized trends and topic momentum, charged for what X returned; kept', async () => {
    served.on('GET', '/2/users/personalized_trends', {
      body: {
        data: [
          {
            trend_name: 'Revenue forecasting',
            category: 'Business',
            post_count: '42K posts',
            trending_since: 'Trending now',
          },
          {
            trend_name: 'Tomatoes',
            category: 'Food',
            post_count: '1.2K posts',
            trending_since: '5 hours ago',
          },
        ],
      },
    });
    served.on('GET', '/2/tweets/search/recent', (request) => {
      const q = request.query.get('query') ?? '';
      const items = q.includes('Forecasting')
        ? [
            tweet('1870000000000000003', '201', 'Forecasting is a team sport', 10, 40),
            tweet('1870000000000000002', '202', 'Forecasting tip', 20, 5),
          ]
        : [tweet('1870000000000000001', '202', 'revenue ops', 300, 1)];
      return { body: { data: items, includes: { users: xUsers }, meta: { result_count: items.length } } };
    });
    const ws = await createTestWorkspace(service);
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
    await givePillars(ws, [{ name: 'Forecasting', keywords: ['revenue'] }]);
    const before = await balance(ws.orgId);
    const searchesBefore = served.calls('GET', '/2/tweets/search/recent').length;
    const found = data(await call(ws, 'POST', '/trends/search', {}));
    expect(found.source).toMatchObject({
      kind: 'live',
      name: expect.stringMatching(/^X personalized trends and recent search/),
    });
    expect(found.topics).toEqual([
      expect.objectContaining({
        name: 'Revenue forecasting',
        postCount: 42_000,
        trendingSince: 'Trending now',
        matchedTerms: ['Forecasting', 'revenue'],
      }),
      expect.objectContaining({ name: 'Tomatoes', postCount: 1_200, matchedTerms: [] }),
    ]);
    const searches = served.calls('GET', '/2/tweets/search/recent').slice(searchesBefore);
    expect(searches.map((r) => r.query.get('query'))).toEqual([
      'Forecasting -is:retweet',
      'revenue -is:retweet',
    ]);
    expect((found.research as Loose[]).map((r: Loose) => r.topic as string)).toEqual([
      'Forecasting',
      'revenue',
    ]);
    expect(found.research[0]).toMatchObject({ sampleSize: 2, score: 100 });
    expect(found.research[0].topPosts[0]).toMatchObject({ authorHandle: 'maya_builds', likes: 40 });
    expect(found.creditsUsed).toBe(trendsCost + 3 * postCost);
    expect(found.warnings).toEqual([]);
    expect(await balance(ws.orgId)).toBe(before - found.creditsUsed);

    // get_trending_topics answers what was found, as cached, and charges nothing.
    const kept = data(await call(ws, 'GET', '/trends', undefined, { role: 'viewer' }));
    expect(kept.source.kind).toBe('cached');
    expect(kept.topics[0]).toMatchObject({ name: 'Revenue forecasting', source: { kind: 'cached' } });
    expect(kept.creditsUsed).toBe(0);
    expect(await balance(ws.orgId)).toBe(before - found.creditsUsed);
  });

  test('X failing charges nothing and says so; the curated set answers', async () => {
    served.on('GET', '/2/users/personalized_trends', { status: 503, body: { title: 'Service Unavailable' } });
    served.on('GET', '/2/tweets/search/recent', {
      status: 429,
      headers: {
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(Math.floor(Date.now() / 1000) + 60),
      },
      body: { title: 'Too Many Requests' },
    });
    const ws = await createTestWorkspace(service);
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
    const before = await balance(ws.orgId);
    const found = data(await call(ws, 'POST', '/trends/search', { topics: ['forecasting'] }));
    expect(found.source.kind).toBe('curated');
    expect(found.creditsUsed).toBe(0);
    expect(found.warnings).toEqual([
      expect.stringMatching(/^X trends: .*nothing was charged$/),
      expect.stringMatching(/^X search: rate limited by X.*nothing was charged$/),
    ]);
    const accounts = data(await call(ws, 'POST', '/x-accounts', { topics: ['developer'] }));
    expect(accounts.source.kind).toBe('curated');
    expect((accounts.warnings as string[]).join(' ')).toMatch(/rate limited/);
    expect(await balance(ws.orgId)).toBe(before);
  });

  test('suggest_x_accounts: authors of the posts found, ranked, the account itself left out; charged per post', async () => {
    const ws = await createTestWorkspace(service);
    let duringCall: number | null = null;
    served.on('GET', '/2/tweets/search/recent', async () => {
      // What the workspace has left while X is being asked: the most the search may return is held.
      duringCall ??= await balance(ws.orgId);
      return {
        body: {
          data: [
            tweet('1870000000000000013', '201', 'Forecasting: three lessons', 10, 90),
            tweet('1870000000000000012', '201', 'More forecasting', 30, 20),
            tweet('1870000000000000011', '202', 'forecasting question', 40, 1),
          ],
          includes: { users: xUsers },
          meta: { result_count: 3 },
        },
      };
    });
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
    const before = await balance(ws.orgId);
    const answer = data(await call(ws, 'POST', '/x-accounts', { topics: ['forecasting'], limit: 5 }));
    // Reserved before X was asked (two pages of 50), charged after for the three posts it returned.
    expect(duringCall).toBe(before - 100 * postCost);
    expect(answer.source.kind).toBe('live');
    expect((answer.accounts as Loose[]).map((a: Loose) => a.handle as string)).toEqual([
      'maya_builds',
      'devrel_dan',
    ]);
    expect(answer.accounts[0]).toMatchObject({
      followers: 18_420,
      score: 100,
      matchedTerms: ['forecasting'],
      samplePostUrl: 'https://x.com/maya_builds/status/1870000000000000013',
      profileUrl: 'https://x.com/maya_builds',
    });
    expect(answer.creditsUsed).toBe(3 * postCost);
    expect(await balance(ws.orgId)).toBe(before - 3 * postCost);
    // Editors may research; viewers and reviewers may not.
    expect((await call(ws, 'POST', '/x-accounts', { topics: ['x'] }, { role: 'viewer' })).status).toBe(403);
    expect(
      (await call(ws, 'POST', '/x-accounts', { topics: ['a', 'b', 'c', 'd', 'e', 'f'] })).json.details,
    ).toEqual([expect.objectContaining({ path: 'body.topics' })]);
  });
});

describe('the sandbox X (embedded default)', () => {
  test('find_trending_topics and suggest_x_accounts read the sandbox X; the tools for assistants', async () => {
    const ws = await createTestWorkspace(service);
    await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
    const found = data(await call(ws, 'POST', '/trends/search', { topics: ['scheduling'] }));
    expect(found.source.kind).toBe('live');
    expect(found.topics.length).toBeGreaterThan(0);
    expect(found.research[0].sampleSize).toBeGreaterThan(0);
    expect(found.creditsUsed).toBe(trendsCost + found.research[0].sampleSize * postCost);

    const assistant = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['mcp:read', 'posts:write'],
    });
    const names = (await assistant.client.listTools()).tools.map((t) => t.name);
    for (const tool of [
      'get_trending_topics',
      'find_trending_topics',
      'get_niche_news',
      'list_viral_post_formats',
      'get_platform_algorithm_hints',
      'suggest_x_accounts',
      'get_newsjacking_settings',
      'update_newsjacking_settings',
    ])
      expect(names).toContain(tool);
    const accounts = (await assistant.client.callTool({
      name: 'suggest_x_accounts',
      arguments: { topics: ['scheduling'], limit: 3 },
    })) as CallToolResult;
    expect(accounts.isError).toBeFalsy();
    expect((accounts.structuredContent as Loose).source.kind).toBe('live');
    expect((accounts.structuredContent as Loose).accounts.length).toBeGreaterThan(0);
    await assistant.client.close();

    const reader = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: ['mcp:read'],
    });
    const readable = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(readable).toContain('get_trending_topics');
    expect(readable).not.toContain('find_trending_topics');
    expect(readable).not.toContain('suggest_x_accounts');
    expect(readable).not.toContain('update_newsjacking_settings');
    await reader.client.close();
  });
});
