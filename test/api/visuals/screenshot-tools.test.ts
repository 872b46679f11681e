// POST ORG/marketing/visuals/screenshot with an uploaded PNG (each layout once), GET visuals/options without an
// image-generation provider, and the four assistant tools through the tool server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkPostContent } from '../../../domain/post-groups/content-rules.js';
import type { MediaAsset } from '../../../domain/shared/media-asset.js';
import { visualFormats } from '../../../infra/visuals/contract.js';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { dataOf, download, errorOf, mediaList, pngOf, pngSize, uploadPng } from './support.js';

interface ImageItem {
  assetId: string;
  url: string;
  width: number;
  height: number;
  format: string;
}
interface ScreenshotResult {
  images: ImageItem[];
  postMedia: MediaAsset | null;
  renderMs: number;
}
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
let ws: TestWorkspace;
let screenshotId: string;
/** A "public" site served from loopback, which the service may fetch (RuntimeOptions.outbound). */
let site: http.Server;
let siteOrigin: string;

beforeAll(async () => {
  const shot = pngOf(1280, 800);
  site = http.createServer((req, res) => {
    if (req.url === '/shot.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(shot);
    } else if (req.url === '/page.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>not an image</body></html>');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  service = await startTestService({ outbound: { allowPrivate: [siteOrigin] } });
  ws = await createTestWorkspace(service, 'Visuals screenshot');
  screenshotId = await uploadPng(service, ws, pngOf(1280, 800));
}, 120_000);
afterAll(async () => {
  await service?.stop();
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
});

const shoot = (body: unknown, token = ws.tokens.editor) =>
  service.request('POST', `${ws.base}/visuals/screenshot`, { token, body });

describe('screenshot', () => {
  test('each layout frames the uploaded screenshot and stores it (source screenshot)', async () => {
    const layouts = [
      {
        layout: 'centered',
        content: { eyebrow: 'New', title: 'The review queue', body: 'Approve in one click.' },
      },
      { layout: 'tilted', format: 'square', addressBar: 'app.acme.com/review', windowTheme: 'dark' },
      { layout: 'closeup', format: 'portrait', crop: { zoom: 2, focusX: 0.25, focusY: 0.3 } },
    ];
    const expected: Record<string, [number, number]> = {
      centered: [1600, 900],
      tilted: [1080, 1080],
      closeup: [1080, 1350],
    };
    for (const body of layouts) {
      const out = await dataOf<ScreenshotResult>(
        await shoot({ screenshot: { assetId: screenshotId }, ...body }),
      );
      const [width, height] = expected[body.layout]!;
      expect(out.images, body.layout).toHaveLength(1);
      expect(out.images[0]).toMatchObject({ width, height });
      expect(pngSize(await download(service, out.images[0]!.url))).toEqual({ width, height });
      expect(out.postMedia).toMatchObject({ kind: 'image', assetId: out.images[0]!.assetId });
      expect(
        checkPostContent({
          platform: 'linkedin',
          contentText: 'New',
          media: out.postMedia,
          platformPayload: null,
        }),
      ).toEqual([]);
    }
    const stored = (await mediaList(service, ws, 'collection=on_brand')).items.filter(
      (i) => i.source === 'screenshot',
    );
    expect(stored.map((i) => i.format).sort()).toEqual(['landscape', 'portrait', 'square']);
  });

  test('a screenshot from a link is fetched and framed; a link to a page or a missing file is refused', async () => {
    const out = await dataOf<ScreenshotResult>(
      await shoot({ screenshot: { url: `${siteOrigin}/shot.png` }, format: 'link', layout: 'centered' }),
    );
    expect(out.images[0]).toMatchObject({ width: 1200, height: 630, format: 'link' });
    const before = await eventCount(service);
    const page = await errorOf(await shoot({ screenshot: { url: `${siteOrigin}/page.html` } }), 422);
    expect(page.details?.[0]).toMatchObject({
      path: 'body.screenshot.url',
      message: 'must be a PNG or JPEG image',
    });
    const missing = await errorOf(await shoot({ screenshot: { url: `${siteOrigin}/gone.png` } }), 422);
    // An error status is answered like any failed fetch, without what the server said (audit finding 13).
    expect(missing).toMatchObject({ code: 'url_not_fetched', error: 'screenshot.url could not be fetched' });
    expect(await eventCount(service)).toBe(before);
  });

  test('bad input is a 400 naming the field; a missing asset a 404; a video asset or non-image is refused', async () => {
    const before = await eventCount(service);
    const cases: Array<[unknown, string]> = [
      [{}, 'body.screenshot'],
      [{ screenshot: {} }, 'body.screenshot'],
      [{ screenshot: { assetId: screenshotId }, layout: 'floating' }, 'body.layout'],
      [{ screenshot: { assetId: screenshotId }, format: 'pin' }, 'body.format'],
      [
        { screenshot: { assetId: screenshotId }, crop: { zoom: 0.5, focusX: 0, focusY: 0 } },
        'body.crop.zoom',
      ],
      [
        { screenshot: { assetId: screenshotId }, crop: { zoom: 2, focusX: 1.5, focusY: 0 } },
        'body.crop.focusX',
      ],
      [{ screenshot: { url: 'ftp://example.org/a.png' } }, 'body.screenshot.url'],
    ];
    for (const [body, path] of cases) {
      const error = await errorOf(await shoot(body), 400);
      expect(
        error.details?.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    await errorOf(await shoot({ screenshot: { assetId: crypto.randomUUID() } }), 404);
    // A link to a private address is refused by the SSRF-safe fetcher, before anything is fetched.
    const ssrf = await errorOf(await shoot({ screenshot: { url: 'http://127.0.0.1/admin.png' } }), 400);
    expect(ssrf.details?.[0]?.path).toBe('body.screenshot.url');
    expect(await eventCount(service)).toBe(before);
  });
});

describe('options', () => {
  test('formats, templates, themes, layouts, no AI provider, and the brand as renders use it', async () => {
    interface Named {
      id: string;
      fields?: string[];
    }
    const ids = (list: Named[]) => list.map((t) => t.id);
    const out = await dataOf<{
      formats: unknown[];
      templates: Named[];
      themes: Named[];
      carousel: { layouts: Named[] };
      screenshot: { layouts: Named[] };
      aiBackground: unknown;
      brand: { headingFont: unknown };
    }>(
      await service.request('GET', `${ws.base}/visuals/options?includeAllModels=true`, {
        token: ws.tokens.viewer,
      }),
    );
    expect(out.formats).toEqual(visualFormats.map((f) => ({ ...f, useFor: [...f.useFor] })));
    expect(ids(out.templates)).toEqual(['headline', 'quote', 'stat', 'list', 'photo']);
    expect(out.templates.find((t) => t.id === 'stat')?.fields).toContain('stat');
    expect(ids(out.themes)).toEqual(['brand', 'light', 'dark']);
    expect(out.carousel).toMatchObject({ formats: ['portrait', 'square'], minSlides: 2, maxSlides: 15 });
    expect(ids(out.carousel.layouts)).toEqual(['cover', 'point', 'stat', 'quote', 'list', 'cta']);
    expect(ids(out.screenshot.layouts)).toEqual(['centered', 'tilted', 'closeup']);
    expect(out.aiBackground).toEqual({
      available: false,
      defaultModel: null,
      recommendedModels: [],
      totalModels: 0,
      models: [],
    });
    expect(out.brand).toMatchObject({ hasLogo: false, logo: null, colors: [] });
    expect(typeof out.brand.headingFont).toBe('string');

    const without = await dataOf<Loose>(
      await service.request('GET', `${ws.base}/visuals/options?includeAllModels=false`, {
        token: ws.tokens.viewer,
      }),
    );
    expect(without.aiBackground.models).toBeUndefined();
    const missing = await errorOf(
      await service.request('GET', `${ws.base}/visuals/options`, { token: ws.tokens.viewer }),
      400,
    );
    expect(missing.details?.[0]?.path).toBe('query.includeAllModels');
  });
});

describe('assistant tools', () => {
  test('with posts:write an assistant renders an image, a carousel and a screenshot; options need only mcp:read', async () => {
    const reader = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: [],
    });
    const readerTools = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(readerTools).toContain('list_visual_options');
    for (const name of ['create_branded_image', 'create_carousel', 'create_app_screenshot'])
      expect(readerTools).not.toContain(name);
    const options = (await reader.client.callTool({
      name: 'list_visual_options',
      arguments: {},
    })) as CallToolResult;
    expect(options.isError).toBeFalsy();
    expect((options.structuredContent as Loose).aiBackground.available).toBe(false);

    const writer = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const image = (await writer.client.callTool({
      name: 'create_branded_image',
      arguments: { content: { title: 'Made by an assistant' }, format: 'link' },
    })) as CallToolResult;
    expect(image.isError, JSON.stringify(image.content)).toBeFalsy();
    expect((image.structuredContent as Loose).images[0]).toMatchObject({
      format: 'link',
      width: 1200,
      height: 630,
    });

    const carousel = (await writer.client.callTool({
      name: 'create_carousel',
      arguments: { slides: [{ title: 'One' }, { title: 'Two', cta: 'Follow us' }], format: 'square' },
    })) as CallToolResult;
    expect(carousel.isError, JSON.stringify(carousel.content)).toBeFalsy();
    expect((carousel.structuredContent as Loose).document.pageCount).toBe(2);

    const shot = (await writer.client.callTool({
      name: 'create_app_screenshot',
      arguments: { screenshot: { assetId: screenshotId }, format: 'link' },
    })) as CallToolResult;
    expect(shot.isError, JSON.stringify(shot.content)).toBeFalsy();
    expect((shot.structuredContent as Loose).images[0]).toMatchObject({ width: 1200, height: 630 });

    const bad = (await writer.client.callTool({
      name: 'create_carousel',
      arguments: { slides: [{ title: 'Only one' }] },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/2 to 15 slides/);

    // A viewer's assistant, even granted posts:write, is refused by the role (403).
    const viewer = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const refused = (await viewer.client.callTool({
      name: 'create_branded_image',
      arguments: { content: { title: 'x' } },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ status: 403 });
  });
});
