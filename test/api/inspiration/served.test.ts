// The inspiration library against locally served platforms and a locally served model: an X link is read by the
// live X connector from X API v2's documented tweet lookup (author, media, metrics; x_post_read charged), a
// LinkedIn link by the live LinkedIn connector from the Posts API, social actions and organizations (little text
// read back as plain text; a 403 answered as the permission it needs); the analysis is written by the model (ready,
// provider and model recorded, one ai_inspiration_analysis charge, the prompt free of private knowledge), a
// provider failure leaves the item saved with analysisStatus failed and its error, and a re-run makes it ready;
// drafts are written by the model and go to review only when asked.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLinkedInConnector } from '../../../infra/connectors/linkedin/linkedin-connector.js';
import { createXConnector } from '../../../infra/connectors/x/x-connector.js';
import { localModelEnv, testCredits } from '../../support/ai-runtime.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { fixtureReader } from '../../connectors/support/connector-fixtures.js';
import { startFakePlatform, type FakePlatform } from '../../connectors/support/fake-platform.js';

let service: TestService;
let model: ModelServer;
let x: FakePlatform;
let linkedin: FakePlatform;
let ws: TestWorkspace;

const analysis = (topic: string) =>
  JSON.stringify({
    topic,
    hook: 'MODEL-HOOK',
    format: 'listicle',
    tone: 'informative',
    audience: 'developers',
    cta: 'none',
    writingFramework: 'hook, list, takeaway',
    keywords: ['api', 'developers'],
    qualityScore: 81,
  });

beforeAll(async () => {
  model = await startModelServer();
  model.scenarios.set('ok', (call) =>
    call.text.includes('inspiration_drafts') || call.text.includes('Write exactly one draft')
      ? {
          content: JSON.stringify({
            drafts: [
              { destination: 'x', styleKey: 'listicle', text: 'MODEL-DRAFT-X: three API habits.' },
              {
                destination: 'linkedin',
                styleKey: 'listicle',
                text: 'MODEL-DRAFT-LINKEDIN: three API habits.',
              },
            ],
          }),
          usage: { input: 900, output: 200 },
        }
      : { content: analysis('MODEL-TOPIC'), usage: { input: 500, output: 80 } },
  );
  model.scenarios.set('down', () => ({ status: 500 }));
  x = await startFakePlatform();
  linkedin = await startFakePlatform();
  service = await startTestService({ env: localModelEnv(model.baseUrl, { AI_TIMEOUT_SECONDS: '10' }) });
  // The runtime's X and LinkedIn connectors read through the live connectors, against the served APIs.
  const liveX = createXConnector({
    clientId: 'c',
    clientSecret: 's',
    apiBaseUrl: x.baseUrl,
    timeoutMs: 5_000,
    sleep: async () => {},
  });
  const liveLinkedIn = createLinkedInConnector({
    clientId: 'c',
    clientSecret: 's',
    apiBaseUrl: linkedin.baseUrl,
    timeoutMs: 5_000,
  });
  const runtimeX = service.runtime.connectors.get('x');
  runtimeX.readXPosts = liveX.readXPosts!.bind(liveX);
  const runtimeLinkedIn = service.runtime.connectors.get('linkedin');
  runtimeLinkedIn.readLinkedInPost = liveLinkedIn.readLinkedInPost!.bind(liveLinkedIn);
  ws = await createTestWorkspace(service, 'Served');
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'linkedin');
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await model?.close();
  await x?.close();
  await linkedin?.close();
});

interface Item {
  id: string;
  platform: string;
  sourceExternalId: string | null;
  sourceUrl: string | null;
  authorName: string | null;
  authorHandle: string | null;
  authorProfileUrl: string | null;
  contentText: string;
  media: { items: { type: string; url: string }[] } | null;
  publishedAt: string | null;
  engagement: { likes: number | null; comments: number | null; shares: number | null } | null;
  analysisStatus: string;
  analysisError: string | null;
  analysis: { topic: string; hook: string; qualityScore: number } | null;
  analysisProvider: string | null;
  analysisModel: string | null;
  analysisPromptVersion: string | null;
}

const req = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  service.request(method, `/v1/orgs/${ws.orgId}${path}`, {
    token: ws.tokens.owner,
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });
async function data<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return ((await res.json()) as { data: T }).data;
}
const balance = async () => (await testCredits(service).credits.summaryOf(ws.orgId)).creditBalance.total;
const cost = (key: string) => testCredits(service).catalog.actionCost(key)!.credits;

describe('save by link against the served platforms', () => {
  test('X: the documented tweet lookup becomes the item (author, media, metrics); the read and the analysis are charged', async () => {
    x.on('GET', '/2/tweets/1460323737035677698', { body: fixtureReader('x')('tweet-lookup-expanded') });
    const before = await balance();
    const item = await data<Item>(
      await req('POST', '/inspiration', { url: 'https://x.com/TwitterDev/status/1460323737035677698' }),
      201,
    );
    expect(x.calls('GET', '/2/tweets/1460323737035677698')).toHaveLength(1);
    expect(item).toMatchObject({
      platform: 'x',
      sourceExternalId: '1460323737035677698',
      // The fixture's author (X renamed the account; the link's handle is not trusted).
      authorHandle: 'XDevelopers',
      authorProfileUrl: 'https://x.com/XDevelopers',
      publishedAt: '2021-11-15T19:08:05.000Z',
      analysisStatus: 'ready',
      analysisProvider: expect.stringMatching(/openai/),
      analysisModel: 'gpt-4o-mini',
      analysisPromptVersion: 'inspiration-analysis/1',
      analysis: { topic: 'MODEL-TOPIC', hook: 'MODEL-HOOK', qualityScore: 81 },
    });
    expect(item.contentText).toMatch(/^Introducing a new era for the Twitter Developer Platform/);
    expect(item.sourceUrl).toMatch(/\/status\/1460323737035677698$/);
    // The fixture's media (an animated GIF) and its link.
    expect(item.media!.items.map((m) => m.type)).toEqual(['video', 'link']);
    expect(item.engagement!.likes).toEqual(expect.any(Number));
    expect(await balance()).toBe(before - cost('x_post_read') - cost('ai_inspiration_analysis'));
    const prompt = model.prompts().at(-1)!;
    expect(prompt).toContain('Introducing a new era for the Twitter Developer Platform');
  });

  test('LinkedIn: the Posts API answer, its social actions and the page become the item; little text reads as plain text', async () => {
    const urn = 'urn:li:share:7150000000000000001';
    linkedin.on('GET', /^\/rest\/posts\//, (r) =>
      r.path.includes('7150000000000000001')
        ? {
            body: {
              id: urn,
              author: 'urn:li:organization:2414183',
              commentary:
                'Three API habits \\(from 10 years\\):\n\n1. Version\n2. Document\n3. Deprecate slowly {hashtag|\\#|api}',
              createdAt: 1767225660000,
              publishedAt: 1767225660000,
              lifecycleState: 'PUBLISHED',
              visibility: 'PUBLIC',
              content: { article: { source: 'https://example.org/api-habits', title: 'API habits' } },
            },
          }
        : { status: 404, body: { status: 404, message: 'Not Found' } },
    );
    linkedin.on('GET', /^\/rest\/socialActions\//, { body: fixtureReader('linkedin')('social-actions') });
    linkedin.on('GET', '/rest/organizations/2414183', {
      body: { id: 2414183, localizedName: 'Devtestco', vanityName: 'devtestco' },
    });
    const item = await data<Item>(
      await req('POST', '/inspiration', { url: `https://www.linkedin.com/feed/update/${urn}/` }),
      201,
    );
    expect(item).toMatchObject({
      platform: 'linkedin',
      sourceExternalId: urn,
      sourceUrl: `https://www.linkedin.com/feed/update/${urn}`,
      authorName: 'Devtestco',
      authorHandle: 'devtestco',
      authorProfileUrl: 'https://www.linkedin.com/company/devtestco/',
      contentText: 'Three API habits (from 10 years):\n\n1. Version\n2. Document\n3. Deprecate slowly #api',
      publishedAt: new Date(1767225660000).toISOString(),
      engagement: { likes: 37, comments: 6, shares: null },
      media: {
        items: [{ type: 'link', url: 'https://example.org/api-habits', alt: 'API habits', mimeType: '' }],
      },
      analysisStatus: 'ready',
    });
    const [call] = linkedin.calls('GET', /^\/rest\/posts\//);
    expect(call!.headers['linkedin-version']).toMatch(/^\d{6}$/);

    // An activity link tries the share, then the ugcPost; LinkedIn has neither: 404, nothing saved.
    const missing = await req('POST', '/inspiration', {
      url: 'https://www.linkedin.com/posts/jane-doe_api-activity-7150000000000000999-AbCd',
    });
    expect(missing.status).toBe(404);
    expect(linkedin.calls('GET', /7150000000000000999/).map((c) => decodeURIComponent(c.path))).toEqual([
      '/rest/posts/urn:li:share:7150000000000000999',
      '/rest/posts/urn:li:ugcPost:7150000000000000999',
    ]);
  });

  test('LinkedIn refusing the read (403) answers 409 naming the permission it needs', async () => {
    linkedin.on('GET', /7150000000000000403/, {
      status: 403,
      body: { status: 403, message: 'Not enough permissions to access: posts.GET' },
    });
    const res = await req('POST', '/inspiration', {
      url: 'https://www.linkedin.com/feed/update/urn:li:share:7150000000000000403',
    });
    expect(res.status).toBe(409);
    expect(JSON.stringify(await res.json())).toContain('r_member_social');
  });
});

describe('analysis by the served model', () => {
  test('the prompt holds the post and the public brand context, never private knowledge', async () => {
    await data(
      await req('PATCH', '/brand/profile', {
        topics: ['PUBLIC-TOPIC-APIS'],
        knowledgeItems: [
          { kind: 'fact', text: 'SECRET-MARGIN-41-PERCENT', disclosure: 'private' },
          { kind: 'claim', text: 'RESTRICTED-ACQUISITION-TALKS', disclosure: 'restricted' },
        ],
      }),
    );
    const from = model.requests.length;
    await data<Item>(
      await req('POST', '/inspiration', { contentText: 'POST-TEXT-ABOUT-APIS', platform: 'x' }),
      201,
    );
    const prompts = model.prompts().slice(from).join('\n');
    expect(prompts).toContain('POST-TEXT-ABOUT-APIS');
    expect(prompts).toContain('PUBLIC-TOPIC-APIS');
    expect(prompts).not.toContain('SECRET-MARGIN-41-PERCENT');
    expect(prompts).not.toContain('RESTRICTED-ACQUISITION-TALKS');
  });

  test('a provider failure keeps the item, failed with its error and nothing charged; analysing again makes it ready', async () => {
    const before = await balance();
    const item = await data<Item>(
      await req('POST', '/inspiration', {
        contentText: 'scenario:down A post the model cannot read.',
        platform: 'linkedin',
      }),
      201,
    );
    expect(item.analysisStatus).toBe('failed');
    expect(item.analysisError).toEqual(expect.any(String));
    expect(item.analysis).toBeNull();
    expect(await balance()).toBe(before);
    const listed = await data<{ items: { id: string }[] }>(
      await req('GET', '/inspiration?includeHidden=false&verbose=false&analysisStatus=failed'),
    );
    expect(listed.items.map((i) => i.id)).toEqual([item.id]);

    await data(
      await req('PATCH', `/inspiration/${item.id}`, { contentText: 'A post the model can read now.' }),
    );
    const again = await data<Item>(await req('POST', `/inspiration/${item.id}/analyze`));
    expect(again).toMatchObject({
      analysisStatus: 'ready',
      analysisError: null,
      analysisModel: 'gpt-4o-mini',
    });
  });

  test('drafts by the model, kept on the item; with review: true, one group pending approval', async () => {
    const item = await data<Item>(
      await req('POST', '/inspiration', { contentText: 'Three API habits that last.', platform: 'x' }),
      201,
    );
    const drafted = await data<{
      drafts: { destination: string; text: string }[];
      group: { status: string } | null;
      providerModel: string;
      creditsUsed: number;
    }>(await req('POST', `/inspiration/${item.id}/drafts`, { styleKey: 'listicle', review: true }));
    expect(drafted.providerModel).toMatch(/gpt-4o-mini/);
    expect(drafted.creditsUsed).toBe(cost('ai_draft'));
    expect(drafted.drafts.map((d) => d.text)).toEqual([
      'MODEL-DRAFT-X: three API habits.',
      'MODEL-DRAFT-LINKEDIN: three API habits.',
    ]);
    expect(drafted.group!.status).toBe('pending_approval');
  });
});
