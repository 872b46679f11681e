// GET ORG/brand/kit/website against a local server serving a page and its stylesheet (candidates with their
// sources, a suggestion, nothing saved), sites that cannot be read (reachable false), the SSRF battery (a clear
// 400 for what the URL says by itself, reachable false alike for whatever the network says), a 2 MB page, roles; and the tools get_brand_kit, find_brand_kit_on_website (mcp:read) and update_brand_kit
// (brand:write, absent without it).
import type { LookupAddress } from 'node:dns';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectAssistant } from '../../support/assistant.js';
import {
  startAnotherInstance,
  eventCount,
  startTestService,
  type TestService,
} from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { maxAnswerBytes, pageTimeoutMs } from '../../../infra/brand/website-reader.js';
import { pngOf, startSite, type ErrorBody, type LocalSite } from './support.js';

let service: TestService;
let site: LocalSite;
let ws: TestWorkspace;

const resolve = async (host: string): Promise<LookupAddress[]> => {
  if (host === 'internal.example') return [{ address: '192.168.10.20', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

const page = (origin: string) => `<!doctype html>
<html><head>
  <title>Acme Rockets</title>
  <meta name="description" content="Rockets that land where you point them.">
  <meta name="theme-color" content="#e4572e">
  <meta property="og:image" content="/share.png">
  <link rel="stylesheet" href="/site.css">
  <link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Poppins:wght@700&family=Inter">
  <link rel="icon" href="/favicon.png">
  <script type="application/ld+json">{"@type":"Organization","logo":"${origin}/logo.png"}</script>
  <style>h1 { font-family: Poppins, sans-serif } body { font-family: Inter, sans-serif; background: #ffffff }</style>
</head><body><img src="/img/acme-logo.png" alt="Acme"><p style="color:#17a398">Hi</p></body></html>`;

beforeAll(async () => {
  site = await startSite();
  service = await startTestService({ outbound: { allowPrivate: [site.origin], resolve } });
  ws = await createTestWorkspace(service);
  site.routes.set('/', { type: 'text/html; charset=utf-8', body: page(site.origin) });
  site.routes.set('/site.css', {
    type: 'text/css',
    body: ':root { --brand-navy: #172a58 } .btn { background: #172a58; color: #fff } .tag { color: #17a398 }',
  });
  site.routes.set('/logo.png', { type: 'image/png', body: pngOf(300, 300) });
  site.routes.set('/data.json', { type: 'application/json', body: '{"not":"html"}' });
  site.routes.set('/down', { status: 503, type: 'text/html', body: '<h1>Down</h1>' });
  site.routes.set('/huge', {
    type: 'text/html',
    body: `<html><head><title>Huge</title></head><body>${Array.from(
      { length: 20_000 },
      (_, i) => `<img src="/logo-${i}.png" style="color:#${(0x100000 + i * 41).toString(16).slice(-6)}">`,
    ).join('')}${'x'.repeat(2 * 1024 * 1024)}</body></html>`,
  });
  site.routes.set('/slow', { type: 'text/html', trickleMs: 500 });
  site.routes.set('/to-metadata', { status: 301, headers: { location: 'http://169.254.169.254/' } });
  site.routes.set('/to-private', { status: 302, headers: { location: 'http://10.0.0.1/' } });
});
afterAll(async () => {
  await service.stop();
  await site.close();
});

const websitePath = (url: string) => `/v1/orgs/${ws.orgId}/brand/kit/website?url=${encodeURIComponent(url)}`;

interface Candidates {
  websiteUrl: string;
  reachable: boolean;
  siteName: string | null;
  tagline: string | null;
  colors: Array<{ hex: string; source: string; detail: string | null; uses: number; neutral: boolean }>;
  logos: Array<{ url: string; source: string }>;
  images: Array<{ url: string; source: string }>;
  fonts: Array<{ family: string; source: string }>;
  suggestion: Record<string, unknown>;
}

async function read(url: string, role: keyof TestWorkspace['tokens'] = 'viewer') {
  return service.request('GET', websitePath(url), { token: ws.tokens[role] });
}

describe('GET ORG/brand/kit/website', () => {
  test('candidates with their sources and a suggestion; nothing saved', async () => {
    const before = await eventCount(service);
    const res = await read(`${site.origin}/`);
    expect(res.status).toBe(200);
    const found = ((await res.json()) as { data: Candidates }).data;
    expect(found).toMatchObject({
      websiteUrl: `${site.origin}/`,
      reachable: true,
      siteName: 'Acme Rockets',
      tagline: 'Rockets that land where you point them.',
    });
    expect(found.colors).toEqual(
      expect.arrayContaining([
        { hex: '#e4572e', source: 'theme-color', detail: null, uses: 1, neutral: false },
        { hex: '#172a58', source: 'css-variable', detail: '--brand-navy', uses: 1, neutral: false },
        { hex: '#172a58', source: 'stylesheet', detail: null, uses: 1, neutral: false },
        { hex: '#17a398', source: 'inline', detail: null, uses: 1, neutral: false },
        { hex: '#ffffff', source: 'inline', detail: null, uses: 1, neutral: true },
      ]),
    );
    expect(found.logos).toEqual([
      { url: `${site.origin}/logo.png`, source: 'structured-data' },
      { url: `${site.origin}/img/acme-logo.png`, source: 'img' },
      { url: `${site.origin}/favicon.png`, source: 'icon' },
    ]);
    expect(found.images).toEqual([{ url: `${site.origin}/share.png`, source: 'og:image' }]);
    expect(found.fonts.slice(0, 2)).toEqual([
      { family: 'Poppins', source: 'google-fonts' },
      { family: 'Inter', source: 'google-fonts' },
    ]);
    expect(found.suggestion).toEqual({
      website: `${site.origin}/`,
      colors: { primary: '#e4572e', secondary: '#172a58', accent: '#17a398', background: '#ffffff' },
      headingFont: 'Poppins',
      bodyFont: 'Inter',
      logo: { url: `${site.origin}/logo.png` },
    });
    expect(await eventCount(service)).toBe(before);
  });

  test('the suggestion can be applied as it is', async () => {
    const found = ((await (await read(`${site.origin}/`)).json()) as { data: Candidates }).data;
    const res = await service.request('PATCH', `/v1/orgs/${ws.orgId}/brand/kit`, {
      token: ws.tokens.editor,
      body: { ...found.suggestion, website: 'https://acme.example/', dryRun: true },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { kit: { missing: string[] } } }).data.kit.missing).toEqual([
      'tagline',
    ]);
  });

  test.each([
    ['an error status', '/down'],
    ['a page that is not HTML', '/data.json'],
    ['a missing page', '/nothing-here'],
  ])('%s: 200 with reachable false and empty lists', async (_, path) => {
    const res = await read(`${site.origin}${path}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Candidates }).data).toEqual({
      websiteUrl: `${site.origin}${path}`,
      reachable: false,
      siteName: null,
      tagline: null,
      colors: [],
      logos: [],
      images: [],
      fonts: [],
      suggestion: { website: `${site.origin}${path}` },
    });
  });

  test('a site whose name does not resolve: reachable false', async () => {
    const res = await read('https://nowhere.example/');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Candidates }).data.reachable).toBe(false);
  });

  test('every member may read; a missing url is a 400', async () => {
    for (const role of ['owner', 'reviewer', 'editor'] as const)
      expect((await read(`${site.origin}/`, role)).status).toBe(200);
    const res = await service.request('GET', `/v1/orgs/${ws.orgId}/brand/kit/website`, {
      token: ws.tokens.viewer,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).details?.[0]?.path).toBe('query.url');
  });
});

describe('SSRF battery on website reading', () => {
  test.each([
    ['not http(s)', 'file:///etc/passwd', /Only http and https/],
    ['javascript', 'javascript:alert(1)', /Only http and https/],
    ['not a URL', 'acme rockets', /not a URL/],
    ['loopback', 'http://127.0.0.1/', /private address/],
    ['loopback by name', 'http://localhost/', /private address/],
    ['a private range (10/8)', 'http://10.1.1.1/', /private address/],
    ['a private range (172.16/12)', 'https://172.20.0.1/', /private address/],
    ['a private range (192.168/16)', 'http://192.168.0.1/', /private address/],
    ['link-local cloud metadata', 'http://169.254.169.254/latest/meta-data/', /private address/],
    ['IPv4-mapped IPv6', 'http://[::ffff:169.254.169.254]/', /private address/],
    ['IPv4-mapped IPv6 in hex', 'http://[::ffff:7f00:1]/', /private address/],
  ])('refused by the URL alone, a clear 400: %s', async (_, url, message) => {
    const before = await eventCount(service);
    const res = await read(url);
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.error).toMatch(message);
    expect(body.details).toEqual([{ path: 'query.url', message: expect.stringMatching(message) }]);
    expect(await eventCount(service)).toBe(before);
  });

  // What the network says is answered alike (no internal DNS oracle): a name resolving to a private address,
  // a redirect into one, a name that does not resolve, a refused connection and a 404 are all `reachable: false`.
  test.each([
    ['a public name resolving to a private address', 'http://internal.example/'],
    ['a name that does not resolve', 'https://nowhere.example/'],
    ['a redirect into cloud metadata', '/to-metadata'],
    ['a redirect into a private range', '/to-private'],
    ['a missing page', '/nothing-here'],
  ])('refused by the network, answered like any unreachable site: %s', async (_, url) => {
    const before = await eventCount(service);
    const websiteUrl = url.startsWith('/') ? `${site.origin}${url}` : url;
    const res = await read(websiteUrl);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Candidates }).data).toEqual({
      websiteUrl,
      reachable: false,
      siteName: null,
      tagline: null,
      colors: [],
      logos: [],
      images: [],
      fonts: [],
      suggestion: { website: websiteUrl },
    });
    expect(await eventCount(service)).toBe(before);
  });

  test('a 2 MB page is read up to its cap and answered in a few KB', async () => {
    const res = await read(`${site.origin}/huge`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeLessThan(maxAnswerBytes);
    const found = (JSON.parse(text) as { data: Candidates }).data;
    expect(found).toMatchObject({ reachable: true, siteName: 'Huge' });
    expect(found.logos.length).toBeGreaterThan(0);
  });

  test('a page slower than the deadline: reachable false', async () => {
    // A second instance on the same database and keys whose page fetches have a short deadline (the service's is
    // pageTimeoutMs, 10 s): the same answer without waiting the production limit.
    const quick = await startAnotherInstance(service, {
      outbound: { allowPrivate: [site.origin], resolve },
      fetchTimeoutMs: 800,
    });
    try {
      const started = Date.now();
      const res = await quick.request('GET', websitePath(`${site.origin}/slow`), { token: ws.tokens.viewer });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: Candidates }).data.reachable).toBe(false);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await quick.stop();
    }
    expect(pageTimeoutMs).toBe(10_000);
  });
});

describe('tools', () => {
  const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

  test('get_brand_kit and find_brand_kit_on_website with mcp:read; update_brand_kit absent and refused without brand:write', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: [],
    });
    const names = (await assistant.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['get_brand_kit', 'find_brand_kit_on_website']));
    expect(names).not.toContain('update_brand_kit');

    const kit = (await assistant.client.callTool({ name: 'get_brand_kit', arguments: {} })) as CallToolResult;
    expect(kit.isError).toBeFalsy();
    const viaRoute = await service.request('GET', `/v1/orgs/${ws.orgId}/brand/kit`, {
      token: ws.tokens.viewer,
    });
    expect(kit.structuredContent).toEqual(((await viaRoute.json()) as { data: unknown }).data);

    const found = (await assistant.client.callTool({
      name: 'find_brand_kit_on_website',
      arguments: { url: `${site.origin}/` },
    })) as CallToolResult;
    expect(found.isError).toBeFalsy();
    expect((found.structuredContent as unknown as Candidates).suggestion).toMatchObject({
      headingFont: 'Poppins',
    });
    expect(text(found)).toMatch(/Acme Rockets: \d+ colours, 3 logos/);

    // Three reads of a 2 MB page in one batch: each answer a few KB.
    const batch = (await Promise.all(
      [1, 2, 3].map(() =>
        assistant.client.callTool({
          name: 'find_brand_kit_on_website',
          arguments: { url: `${site.origin}/huge` },
        }),
      ),
    )) as CallToolResult[];
    for (const one of batch) {
      expect(one.isError).toBeFalsy();
      expect(JSON.stringify(one).length).toBeLessThan(2 * maxAnswerBytes);
    }

    const refusedRead = (await assistant.client.callTool({
      name: 'find_brand_kit_on_website',
      arguments: { url: 'http://169.254.169.254/' },
    })) as CallToolResult;
    expect(refusedRead.isError).toBe(true);
    expect(JSON.stringify(refusedRead.content)).toMatch(/400.*private address|private address.*400/);

    const before = await eventCount(service);
    const refused = (await assistant.client.callTool({
      name: 'update_brand_kit',
      arguments: { tagline: 'Sneaky' },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(await eventCount(service)).toBe(before);
  });

  test('update_brand_kit with brand:write: saves, lists each bad field when refused', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['brand:write'],
    });
    expect((await assistant.client.listTools()).tools.map((t) => t.name)).toContain('update_brand_kit');
    const saved = (await assistant.client.callTool({
      name: 'update_brand_kit',
      arguments: { colors: { primary: 'teal' }, bodyFont: 'inter', logo: { url: `${site.origin}/logo.png` } },
    })) as CallToolResult;
    expect(saved.isError).toBeFalsy();
    expect(saved.structuredContent).toMatchObject({
      saved: true,
      changed: ['colors.primary', 'bodyFont', 'logo'],
      kit: { colors: { primary: '#008080' }, bodyFont: 'Inter', logo: { width: 300, height: 300 } },
    });
    expect(text(saved)).toMatch(/^Saved; changed: colors.primary, bodyFont, logo/);

    const before = await eventCount(service);
    const refused = (await assistant.client.callTool({
      name: 'update_brand_kit',
      arguments: { colors: { primary: 'nope' }, headingFont: 'Papyrus' },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    const message = JSON.stringify(refused.content);
    expect(message).toMatch(/422/);
    expect(message).toMatch(/colors.primary/);
    expect(message).toMatch(/headingFont/);
    expect(await eventCount(service)).toBe(before);

    const dry = (await assistant.client.callTool({
      name: 'update_brand_kit',
      arguments: { tagline: 'Just looking', dryRun: true },
    })) as CallToolResult;
    expect(dry.structuredContent).toMatchObject({ saved: false, changed: ['tagline'] });
    expect(await eventCount(service)).toBe(before);
  });
});

describe('the OpenAPI document', () => {
  test('describes the three endpoints with their schemas', async () => {
    const res = await service.request('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const document = (await res.json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(document.paths['/v1/orgs/{orgId}/brand/kit']?.get?.operationId).toBe('get_brand_kit');
    expect(document.paths['/v1/orgs/{orgId}/brand/kit']?.patch?.operationId).toBe('update_brand_kit');
    expect(document.paths['/v1/orgs/{orgId}/brand/kit/website']?.get?.operationId).toBe(
      'find_brand_kit_on_website',
    );
    for (const name of ['BrandKit', 'BrandKitUpdate', 'UpdateBrandKit', 'BrandKitWebsiteCandidates'])
      expect(document.components.schemas).toHaveProperty(name);
  });
});
