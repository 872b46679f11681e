// GET and PATCH ORG/brand/kit through the whole service: every field, 422 with one detail per bad field and
// nothing recorded, 400 for wrong types, 409 on a stale ifUpdatedAt, dryRun saving nothing, a logo by link (PNG,
// and a malicious SVG stored sanitised) or by media asset, roles, an idempotent retry, the SSRF battery on the
// logo download, and the reader the visuals slice renders with.
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createBrandKitReader } from '../../../commands/brand/brand-kit-reader.js';
import { logoFetchTimeoutMs } from '../../../commands/brand/brand-kit-use-cases.js';
import { inThreadLogoReader } from '../../../infra/brand/logo-image.js';
import type { MediaLibrary } from '../../../commands/media/library.js';
import { createMediaLibrary } from '../../../commands/media/media-library.js';
import type { Caller } from '../../../domain/shared/caller.js';
import { rolePermissions } from '../../../domain/workspaces/roles.js';
import {
  startAnotherInstance,
  eventCount,
  startTestService,
  type TestService,
} from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { maliciousSvg, pngOf, startSite, type ErrorBody, type LocalSite } from './support.js';

let service: TestService;
let site: LocalSite;
let library: MediaLibrary;

const resolve = async (host: string): Promise<LookupAddress[]> => {
  if (host === 'internal.example') return [{ address: '10.1.2.3', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  site = await startSite();
  service = await startTestService({ outbound: { allowPrivate: [site.origin], resolve } });
  library = createMediaLibrary({
    commands: service.runtime.commands,
    readModels: service.runtime.readModels,
    storage: service.runtime.storage,
    publicBaseUrl: 'http://localhost:3000',
    now: () => new Date(),
  });
  site.routes.set('/logo.png', { type: 'image/png', body: pngOf(400, 200) });
  site.routes.set('/small.png', { type: 'image/png', body: pngOf(120, 40) });
  // Declared as something else: the bytes decide.
  site.routes.set('/logo.svg', { type: 'text/plain', body: maliciousSvg });
  site.routes.set('/page.html', { type: 'text/html', body: '<!doctype html><title>Not a logo</title>' });
  site.routes.set('/gone.png', { status: 410, type: 'image/png', body: pngOf(10, 10) });
  site.routes.set('/huge.png', { type: 'image/png', body: new Uint8Array(6 * 1024 * 1024) });
  site.routes.set('/slow.png', { type: 'image/png', trickleMs: 500 });
  site.routes.set('/to-metadata', {
    status: 302,
    headers: { location: 'http://169.254.169.254/latest/meta-data/' },
  });
  site.routes.set('/to-loopback', { status: 307, headers: { location: 'http://127.0.0.1/logo.png' } });
});
afterAll(async () => {
  await service.stop();
  await site.close();
});

const kitPath = (ws: TestWorkspace) => `/v1/orgs/${ws.orgId}/brand/kit`;
const callerOf = (ws: TestWorkspace): Caller => ({
  kind: 'user',
  userId: ws.userIds.owner,
  orgId: ws.orgId,
  role: 'owner',
  permissions: rolePermissions.owner,
});

interface Kit {
  colors: Record<'primary' | 'secondary' | 'accent' | 'background', string | null>;
  headingFont: string | null;
  bodyFont: string | null;
  logo: {
    assetId: string | null;
    url: string | null;
    sourceUrl: string | null;
    width: number | null;
    height: number | null;
    contentType: string | null;
  } | null;
  tagline: string | null;
  website: string | null;
  updatedAt: string | null;
  missing: string[];
}
interface Update {
  saved: boolean;
  kit: Kit;
  changed: string[];
  warnings: Array<{ field: string; code: string; message: string }>;
  missing: string[];
  previewHint: string;
}

async function getKit(ws: TestWorkspace, role: keyof TestWorkspace['tokens'] = 'owner'): Promise<Kit> {
  const res = await service.request('GET', kitPath(ws), { token: ws.tokens[role] });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Kit }).data;
}

function patch(
  ws: TestWorkspace,
  body: unknown,
  options: { role?: keyof TestWorkspace['tokens']; key?: string } = {},
) {
  return service.request('PATCH', kitPath(ws), {
    token: ws.tokens[options.role ?? 'editor'],
    body,
    ...(options.key ? { headers: { 'idempotency-key': options.key } } : {}),
  });
}

async function patched(ws: TestWorkspace, body: unknown): Promise<Update> {
  const res = await patch(ws, body);
  const json = (await res.json()) as { data: Update } & ErrorBody;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data;
}

/**
 * Does what the hint says, as written: POST to the path it names with the JSON body it shows (and nothing
 * else); the preview must be a PNG data URI.
 */
async function followPreviewHint(ws: TestWorkspace, hint: string): Promise<void> {
  const path = /POST (\/v1\/\S+)/.exec(hint)?.[1];
  const body = /(\{.*\})/.exec(hint)?.[1];
  expect(path, hint).toBeDefined();
  expect(body, hint).toBeDefined();
  const res = await service.request('POST', path!, {
    token: ws.tokens.editor,
    body: JSON.parse(body!) as unknown,
  });
  const json = (await res.json()) as { data: { image: string } } & ErrorBody;
  expect(res.status, JSON.stringify(json)).toBe(200);
  expect(json.data.image).toMatch(/^data:image\/png;base64,/);
}

const allMissing = [
  'colors.primary',
  'colors.secondary',
  'colors.accent',
  'colors.background',
  'headingFont',
  'bodyFont',
  'logo',
  'tagline',
  'website',
];

describe('GET and PATCH with every field', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createTestWorkspace(service);
  });

  test('a kit never edited: every field null, everything missing; every role reads it', async () => {
    for (const role of ['owner', 'viewer', 'reviewer'] as const)
      expect(await getKit(ws, role)).toEqual({
        colors: { primary: null, secondary: null, accent: null, background: null },
        headingFont: null,
        bodyFont: null,
        logo: null,
        tagline: null,
        website: null,
        updatedAt: null,
        missing: allMissing,
      });
  });

  test('every field set at once, normalised, the logo downloaded and stored in the media library', async () => {
    const before = await eventCount(service);
    const update = await patched(ws, {
      colors: { primary: 'rgb(23, 42, 88)', secondary: '#E4572E', accent: 'gold', background: '#fff' },
      headingFont: 'montserrat',
      bodyFont: 'Open Sans',
      logo: { url: `${site.origin}/logo.png` },
      tagline: '  Rockets that land where you point them ',
      website: 'https://Acme.example',
      ifUpdatedAt: null,
    });
    expect(update.saved).toBe(true);
    expect(update.changed).toEqual(allMissing);
    expect(update.missing).toEqual([]);
    expect(update.kit).toMatchObject({
      colors: { primary: '#172a58', secondary: '#e4572e', accent: '#ffd700', background: '#ffffff' },
      headingFont: 'Montserrat',
      bodyFont: 'Open Sans',
      tagline: 'Rockets that land where you point them',
      website: 'https://acme.example/',
      missing: [],
    });
    expect(update.kit.logo).toEqual({
      assetId: expect.any(String),
      url: expect.stringMatching(/^http:\/\/localhost:3000\/v1\/assets\/orgs\//),
      sourceUrl: `${site.origin}/logo.png`,
      width: 400,
      height: 200,
      contentType: 'image/png',
    });
    // Orange and gold on white are hard to read: allowed, with a warning each.
    expect(update.warnings).toEqual([
      expect.objectContaining({ field: 'colors.secondary', code: 'low_contrast' }),
      expect.objectContaining({ field: 'colors.accent', code: 'low_contrast' }),
    ]);
    expect(update.previewHint).toContain(`/v1/orgs/${ws.orgId}/marketing/visuals/preview`);
    await followPreviewHint(ws, update.previewHint);
    const item = await library.get(ws.orgId, update.kit.logo!.assetId!);
    expect(item).toMatchObject({
      source: 'import',
      title: 'Logo',
      asset: { kind: 'image', width: 400, height: 200 },
    });
    // Read your write: the next GET shows it.
    expect(await getKit(ws, 'viewer')).toEqual(update.kit);
    expect(await eventCount(service)).toBeGreaterThan(before);
  });

  test('the same edit again changes nothing and records nothing (the same logo is the same asset)', async () => {
    const kit = await getKit(ws);
    const before = await eventCount(service);
    const update = await patched(ws, {
      colors: { primary: '#172A58' },
      headingFont: 'Montserrat',
      logo: { url: `${site.origin}/logo.png` },
      website: 'https://acme.example/',
    });
    expect(update).toMatchObject({ saved: true, changed: [], kit });
    expect(await eventCount(service)).toBe(before);
  });

  test('omitted fields stay, null clears; a small logo warns', async () => {
    const update = await patched(ws, {
      colors: { accent: null },
      tagline: null,
      logo: { url: `${site.origin}/small.png` },
    });
    expect(update.changed).toEqual(['colors.accent', 'logo', 'tagline']);
    expect(update.kit.colors).toEqual({
      primary: '#172a58',
      secondary: '#e4572e',
      accent: null,
      background: '#ffffff',
    });
    expect(update.missing).toEqual(['colors.accent', 'tagline']);
    expect(update.warnings.map((w) => `${w.field}:${w.code}`)).toEqual([
      'colors.secondary:low_contrast',
      'logo:small_logo',
    ]);
  });
});

describe('refused edits', () => {
  let ws: TestWorkspace;
  let kit: Kit;
  beforeAll(async () => {
    ws = await createTestWorkspace(service);
    await patched(ws, { colors: { primary: '#000080' }, tagline: 'Hello' });
    kit = await getKit(ws);
  });

  test('422 with one detail per bad field, all of them, and nothing recorded or stored', async () => {
    const before = await eventCount(service);
    const res = await patch(ws, {
      colors: { primary: 'blurple', secondary: 'rgba(0, 0, 0, 0.5)', accent: '#00ff00' },
      headingFont: 'Comic Sans MS',
      bodyFont: 'Inter',
      logo: { url: `${site.origin}/page.html` },
      tagline: 'x'.repeat(201),
      website: 'ftp://acme.example',
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorBody;
    expect(body.code).toBe('invalid_brand_kit');
    expect(body.details!.map((d) => d.path)).toEqual([
      'body.colors.primary',
      'body.colors.secondary',
      'body.headingFont',
      'body.tagline',
      'body.website',
      'body.logo.url',
    ]);
    expect(body.details![1]!.message).toMatch(/transparent/);
    expect(body.details![2]!.message).toMatch(/not an installed font.*Inter/);
    expect(body.details![5]!.message).toMatch(/not an image/);
    expect(body.error).toMatch(/6 fields are invalid/);
    expect(await eventCount(service)).toBe(before);
    expect(await getKit(ws)).toEqual(kit);
  });

  test.each([
    [
      'a link answering an error status',
      { url: '/gone.png' },
      'body.logo.url',
      /^the link could not be fetched$/,
    ],
    [
      'a link nobody answers',
      { url: 'http://nowhere.example/logo.png' },
      'body.logo.url',
      /^the link could not be fetched$/,
    ],
    // What the network says is answered alike (no internal DNS oracle), the reason only logged.
    [
      'a public name resolving to a private address',
      { url: 'http://internal.example/logo.png' },
      'body.logo.url',
      /^the link could not be fetched$/,
    ],
    [
      'a redirect into cloud metadata',
      { url: '/to-metadata' },
      'body.logo.url',
      /^the link could not be fetched$/,
    ],
    ['a redirect into loopback', { url: '/to-loopback' }, 'body.logo.url', /^the link could not be fetched$/],
    [
      'an asset not in the workspace',
      { assetId: '00000000-0000-4000-8000-000000000abc' },
      'body.logo.assetId',
      /no media asset/,
    ],
    ['an asset id that is no id', { assetId: 'logo' }, 'body.logo.assetId', /not a media asset id/],
  ])('422 for %s', async (_, logo, path, message) => {
    const before = await eventCount(service);
    const ref = 'url' in logo && logo.url.startsWith('/') ? { url: `${site.origin}${logo.url}` } : logo;
    const res = await patch(ws, { logo: ref });
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorBody;
    expect(body.details).toEqual([{ path, message: expect.stringMatching(message) }]);
    expect(await eventCount(service)).toBe(before);
  });

  test('422 for an asset that is not an image', async () => {
    const pdf = await library.store({
      orgId: ws.orgId,
      caller: callerOf(ws),
      source: 'upload',
      bytes: new TextEncoder().encode(
        '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
      ),
      contentType: 'application/pdf',
    });
    const res = await patch(ws, { logo: { assetId: pdf.id } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as ErrorBody).details).toEqual([
      { path: 'body.logo.assetId', message: expect.stringMatching(/is a document, not an image/) },
    ]);
  });

  test('400 for wrong types and unknown fields, naming them', async () => {
    const before = await eventCount(service);
    for (const [body, path] of [
      [{ colors: { primary: 5 } }, 'body.colors.primary'],
      [{ colors: { brand: '#fff' } }, 'body.colors.brand'],
      [{ tagline: ['a'] }, 'body.tagline'],
      [{ logo: 'https://acme.example/logo.png' }, 'body.logo'],
      [{ dryRun: 'yes' }, 'body.dryRun'],
      [{ ifUpdatedAt: 'yesterday' }, 'body.ifUpdatedAt'],
      [{ font: 'Inter' }, 'body.font'],
    ] as const) {
      const res = await patch(ws, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as ErrorBody).details?.map((d) => d.path)).toContain(path);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('roles without brand:write get 403 and change nothing', async () => {
    const before = await eventCount(service);
    for (const role of ['viewer', 'reviewer'] as const) {
      const res = await patch(ws, { tagline: 'Mine now' }, { role });
      expect(res.status).toBe(403);
    }
    expect(await eventCount(service)).toBe(before);
    expect(await getKit(ws)).toEqual(kit);
  });

  test('another workspace’s token gets 403', async () => {
    const other = await createTestWorkspace(service, 'Other');
    const res = await service.request('GET', kitPath(ws), { token: other.tokens.owner });
    expect(res.status).toBe(403);
  });
});

describe('ifUpdatedAt, dryRun and retries', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createTestWorkspace(service);
  });

  test('a stale ifUpdatedAt is refused with 409 stale_brand_kit naming the current one', async () => {
    const first = await patched(ws, { tagline: 'One', ifUpdatedAt: null });
    const second = await patched(ws, { tagline: 'Two', ifUpdatedAt: first.kit.updatedAt });
    expect(second.kit.updatedAt).not.toBe(first.kit.updatedAt);
    const before = await eventCount(service);
    const res = await patch(ws, { tagline: 'Three', ifUpdatedAt: first.kit.updatedAt });
    expect(res.status).toBe(409);
    const body = (await res.json()) as ErrorBody;
    expect(body.code).toBe('stale_brand_kit');
    expect(body.error).toContain(second.kit.updatedAt!);
    // "Never edited" is stale too once it has been.
    expect((await patch(ws, { tagline: 'Three', ifUpdatedAt: null })).status).toBe(409);
    // A stale logo edit stores nothing either (no media asset event).
    const stale = await patch(ws, {
      logo: { url: `${site.origin}/logo.png` },
      ifUpdatedAt: first.kit.updatedAt,
    });
    expect(stale.status).toBe(409);
    expect(await eventCount(service)).toBe(before);
    expect((await getKit(ws)).tagline).toBe('Two');
  });

  test('dryRun checks everything (the logo too), answers the kit as it would be, and saves nothing', async () => {
    const kit = await getKit(ws);
    const before = await eventCount(service);
    const hits = site.hits.length;
    const update = await patched(ws, {
      colors: { primary: 'rgb(228 87 46)' },
      logo: { url: `${site.origin}/logo.svg` },
      dryRun: true,
    });
    expect(site.hits.slice(hits)).toEqual(['/logo.svg']);
    expect(update.saved).toBe(false);
    expect(update.changed).toEqual(['colors.primary', 'logo']);
    expect(update.kit.colors.primary).toBe('#e4572e');
    expect(update.kit.logo).toEqual({
      assetId: null,
      url: null,
      sourceUrl: `${site.origin}/logo.svg`,
      width: 1024,
      height: 341,
      contentType: 'image/png',
    });
    expect(update.kit.updatedAt).toBe(kit.updatedAt);
    expect(await eventCount(service)).toBe(before);
    expect(await getKit(ws)).toEqual(kit);
    // A dry run is refused like an edit.
    const bad = await patch(ws, { colors: { primary: 'nope' }, dryRun: true });
    expect(bad.status).toBe(422);
    const stale = await patch(ws, { tagline: 'x', ifUpdatedAt: '2020-01-01T00:00:00Z', dryRun: true });
    expect(stale.status).toBe(409);
  });

  test('a retry with the same Idempotency-Key answers the first answer and records once', async () => {
    const key = `kit-${Date.now()}`;
    const body = { website: 'https://retry.example', colors: { background: '#fafafa' } };
    const first = await patch(ws, body, { key });
    expect(first.status).toBe(200);
    const count = await eventCount(service);
    const again = await patch(ws, body, { key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await eventCount(service)).toBe(count);
    const reused = await patch(ws, { website: 'https://other.example' }, { key });
    expect(reused.status).toBe(422);
  });
});

describe('logos', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createTestWorkspace(service);
  });

  test('a malicious SVG is stored sanitised, as a PNG rendition in the library and the SVG beside it', async () => {
    const update = await patched(ws, { logo: { url: `${site.origin}/logo.svg` } });
    const logo = update.kit.logo!;
    expect(logo).toMatchObject({
      contentType: 'image/png',
      width: 1024,
      height: 341,
      sourceUrl: `${site.origin}/logo.svg`,
    });
    const stored = await library.read(ws.orgId, logo.assetId!);
    expect(stored!.contentType).toBe('image/png');
    const svg = await service.runtime.storage.get(`orgs/${ws.orgId}/brand/logo-${logo.assetId}.svg`);
    expect(svg!.contentType).toBe('image/svg+xml');
    const text = new TextDecoder().decode(svg!.body);
    expect(text).toMatch(/^<svg/);
    expect(text).toContain('fill="#e4572e"');
    expect(text).not.toMatch(/script|onload|onmouseover|javascript:|foreignObject|iframe|evil\.example/i);
  });

  test('a logo by asset id: an image of the workspace', async () => {
    const item = await library.store({
      orgId: ws.orgId,
      caller: callerOf(ws),
      source: 'upload',
      bytes: pngOf(640, 320),
      contentType: 'image/png',
    });
    const update = await patched(ws, { logo: { assetId: item.id.toUpperCase() } });
    expect(update.changed).toEqual(['logo']);
    expect(update.kit.logo).toEqual({
      assetId: item.id,
      url: (item.asset as { url: string }).url,
      sourceUrl: null,
      width: 640,
      height: 320,
      contentType: 'image/png',
    });
  });

  test('the reader gives the renderer the kit with its logo as PNG', async () => {
    await patched(ws, {
      colors: { primary: 'navy' },
      headingFont: 'lato',
      logo: { url: `${site.origin}/logo.svg` },
    });
    const reader = createBrandKitReader({
      commands: service.runtime.commands,
      media: () => library,
      logos: inThreadLogoReader,
    });
    const brand = await reader.renderBrand(ws.orgId);
    expect(brand.colors.primary).toBe('#000080');
    expect(brand.headingFont).toBe('Lato');
    expect(brand.bodyFont).toBeNull();
    expect(brand.logo).toMatchObject({ contentType: 'image/png', width: 1024, height: 341 });
    expect(Array.from(brand.logo!.data.subarray(1, 4))).toEqual([0x50, 0x4e, 0x47]);
    expect((await reader.get(ws.orgId)).colors.primary).toBe('#000080');
    const empty = await createTestWorkspace(service, 'Empty');
    expect(await reader.renderBrand(empty.orgId)).toEqual({
      colors: { primary: null, secondary: null, accent: null, background: null },
      headingFont: null,
      bodyFont: null,
      logo: null,
    });
  });
});

describe('SSRF battery on the logo download: what the link says by itself, or its server, a clear 400; nothing stored', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createTestWorkspace(service);
  });

  test.each([
    ['loopback', 'http://127.0.0.1/logo.png', /private address/],
    ['loopback by name', 'http://localhost/logo.png', /private address/],
    ['a private range (10/8)', 'http://10.0.0.7/logo.png', /private address/],
    ['a private range (192.168/16)', 'http://192.168.1.1/logo.png', /private address/],
    ['a private range (172.16/12)', 'http://172.16.5.4/logo.png', /private address/],
    ['link-local cloud metadata', 'http://169.254.169.254/latest/meta-data/', /private address/],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/logo.png', /private address/],
    ['IPv4-mapped IPv6 metadata', 'http://[::ffff:a9fe:a9fe]/logo.png', /private address/],
    ['IPv6 loopback', 'http://[::1]/logo.png', /private address/],
    ['another port', 'http://example.com:8080/logo.png', /ports 80 and 443/],
    ['an oversized body', '/huge.png', /larger than 5242880 bytes/],
  ])('%s', async (_, url, message) => {
    const before = await eventCount(service);
    const res = await patch(ws, { logo: { url: url.startsWith('/') ? `${site.origin}${url}` : url } });
    const body = (await res.json()) as ErrorBody;
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.error).toMatch(/^The logo link cannot be fetched: /);
    expect(body.error).toMatch(message);
    expect(body.details).toEqual([{ path: 'body.logo.url', message: expect.stringMatching(message) }]);
    expect(await eventCount(service)).toBe(before);
  });

  test('a body slower than the deadline', async () => {
    // A second instance on the same database and keys whose downloads have a short deadline (the service's is
    // logoFetchTimeoutMs, 10 s): the same refusal without waiting the production limit.
    const quick = await startAnotherInstance(service, {
      outbound: { allowPrivate: [site.origin], resolve },
      fetchTimeoutMs: 800,
    });
    try {
      const before = await eventCount(service);
      const started = Date.now();
      const res = await quick.request('PATCH', kitPath(ws), {
        token: ws.tokens.editor,
        body: { logo: { url: `${site.origin}/slow.png` } },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).error).toMatch(/did not answer in full within 0.8 s/);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await eventCount(service)).toBe(before);
      expect((await getKit(ws)).logo).toBeNull();
    } finally {
      await quick.stop();
    }
    expect(logoFetchTimeoutMs).toBe(10_000);
  });
});
