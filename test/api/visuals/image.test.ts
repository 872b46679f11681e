// POST ORG/marketing/visuals/image through the whole service: the default render, each template, alsoFormats at
// their real pixel sizes, the stored assets in the media library (on_brand, source and format), postMedia each
// platform accepts, a photo behind the text from an uploaded asset, the bad-input battery (nothing stored, no
// event), roles, and an Idempotency-Key retry that stores once.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkPostContent } from '../../../domain/post-groups/content-rules.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import type { MediaAsset } from '../../../domain/shared/media-asset.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { dataOf, download, errorOf, mediaList, pngOf, pngSize, uploadPng } from './support.js';

interface ImageItem {
  assetId: string;
  url: string;
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
  format: string;
}
interface ImageResult {
  images: ImageItem[];
  postMedia: MediaAsset | null;
  aiBackground: unknown;
  renderMs: number;
}

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Visuals image');
}, 120_000);
afterAll(async () => service?.stop());

const render = (body: unknown, token = ws.tokens.editor, headers: Record<string, string> = {}) =>
  service.request('POST', `${ws.base}/visuals/image`, { token, body, headers });

function expectPostable(media: MediaAsset | null, platforms: Platform[]) {
  expect(media).not.toBeNull();
  for (const platform of platforms)
    expect(
      checkPostContent({ platform, contentText: 'Launch day', media, platformPayload: null }),
      platform,
    ).toEqual([]);
}

describe('rendering', () => {
  test('the default: a square headline PNG stored on brand, answered with postMedia', async () => {
    const out = await dataOf<ImageResult>(
      await render({ content: { title: 'Ship posts your team agrees on' } }),
    );
    expect(out.images).toHaveLength(1);
    const [image] = out.images;
    expect(image).toMatchObject({ contentType: 'image/png', width: 1080, height: 1080, format: 'square' });
    expect(out.aiBackground).toBeNull();
    expect(Number.isInteger(out.renderMs)).toBe(true);
    const bytes = await download(service, image!.url);
    expect(bytes.byteLength).toBe(image!.sizeBytes);
    expect(pngSize(bytes)).toEqual({ width: 1080, height: 1080 });
    expect(out.postMedia).toMatchObject({
      kind: 'image',
      assetId: image!.assetId,
      width: 1080,
      height: 1080,
    });
    expectPostable(out.postMedia, ['x', 'linkedin', 'facebook', 'instagram', 'threads', 'bluesky']);

    const onBrand = await mediaList(service, ws, 'collection=on_brand');
    const stored = onBrand.items.find((i) => i.id === image!.assetId);
    expect(stored).toMatchObject({
      source: 'branded_image',
      format: 'square',
      aiGenerated: false,
      title: 'Ship posts your team agrees on',
    });
  });

  test('each template renders, with the fields it shows', async () => {
    const cases = [
      {
        template: 'quote',
        content: { title: 'The best launch we have had', attribution: 'Dana, Head of Growth' },
      },
      { template: 'stat', content: { title: 'fewer rejected drafts', stat: '73%' } },
      { template: 'list', content: { title: 'Three rules', bullets: ['Draft', 'Review', 'Ship'] } },
    ];
    for (const body of cases) {
      const out = await dataOf<ImageResult>(await render({ ...body, format: 'link' }));
      expect(out.images[0], body.template).toMatchObject({ width: 1200, height: 630, format: 'link' });
    }
  });

  test('alsoFormats renders the same content at each format’s real size (repeats dropped), postMedia is the first', async () => {
    const out = await dataOf<ImageResult>(
      await render({
        content: { title: 'Three sizes', eyebrow: 'New' },
        format: 'portrait',
        alsoFormats: ['story', 'portrait', 'x_header', 'story'],
      }),
    );
    expect(out.images.map((i) => [i.format, i.width, i.height])).toEqual([
      ['portrait', 1080, 1350],
      ['story', 1080, 1920],
      ['x_header', 1500, 500],
    ]);
    for (const image of out.images)
      expect(pngSize(await download(service, image.url))).toEqual({
        width: image.width,
        height: image.height,
      });
    expect(out.postMedia).toMatchObject({ kind: 'image', assetId: out.images[0]!.assetId });
    const all = await mediaList(service, ws, 'collection=on_brand');
    for (const image of out.images)
      expect(all.items.find((i) => i.id === image.assetId)?.format).toBe(image.format);
  });

  test('the photo template takes an uploaded image of the workspace as its background', async () => {
    const assetId = await uploadPng(service, ws, pngOf(640, 480));
    const out = await dataOf<ImageResult>(
      await render({
        content: { title: 'Made by the sea' },
        template: 'photo',
        format: 'landscape',
        backgroundImage: { assetId },
      }),
    );
    expect(out.images[0]).toMatchObject({ width: 1600, height: 900, format: 'landscape' });
    expectPostable(out.postMedia, ['x', 'linkedin']);
  });
});

describe('refused requests store nothing', () => {
  test('bad input is a 400 naming the field; a missing or foreign asset is a 404', async () => {
    const before = await eventCount(service);
    const listed = (await mediaList(service, ws)).total;
    const cases: Array<[unknown, string]> = [
      [{ content: { title: 'x' }, template: 'poster' }, 'body.template'],
      [{ content: { title: 'x' }, format: 'banner' }, 'body.format'],
      [{ content: { title: 'x' }, alsoFormats: ['square', 'tiny'] }, 'body.alsoFormats.1'],
      [{ content: { title: 'x' }, template: 'photo' }, 'body.backgroundImage'],
      [{ content: { title: '' } }, 'body.content.title'],
      [{ content: {} }, 'body.content.title'],
      [{ content: { title: 'x' }, template: 'stat' }, 'body.content.stat'],
      [{ content: { title: 'x' }, template: 'list', content2: 1 }, 'body.content2'],
      [{ content: { title: 'x' }, outputs: ['pdf'] }, 'body.outputs.0'],
      [{ content: { title: 'x' }, backgroundImage: {} }, 'body.backgroundImage'],
      [
        {
          content: { title: 'x' },
          backgroundImage: { assetId: crypto.randomUUID(), url: 'https://example.org/a.png' },
        },
        'body.backgroundImage',
      ],
    ];
    for (const [body, path] of cases) {
      const error = await errorOf(await render(body), 400);
      expect(
        error.details?.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    const missing = await errorOf(
      await render({
        content: { title: 'x' },
        template: 'photo',
        backgroundImage: { assetId: crypto.randomUUID() },
      }),
      404,
    );
    expect(missing.details?.[0]?.path).toBe('body.backgroundImage.assetId');
    expect(await eventCount(service)).toBe(before);
    expect((await mediaList(service, ws)).total).toBe(listed);

    // Another workspace's image is not this workspace's: 404 as if it did not exist.
    const other = await createTestWorkspace(service, 'Other');
    const foreign = await uploadPng(service, other, pngOf(8, 8));
    const afterOther = await eventCount(service);
    await errorOf(
      await render({ content: { title: 'x' }, template: 'photo', backgroundImage: { assetId: foreign } }),
      404,
    );
    expect(await eventCount(service)).toBe(afterOther);
    expect((await mediaList(service, ws)).total).toBe(listed);
  });

  test('an aiBackground without a configured provider is a clear 400', async () => {
    const before = await eventCount(service);
    const error = await errorOf(
      await render({ content: { title: 'x' }, template: 'photo', aiBackground: { prompt: 'a calm sea' } }),
      400,
    );
    expect(error.code).toBe('ai_background_unavailable');
    expect(error.error).toMatch(/not available/);
    expect(await eventCount(service)).toBe(before);
  });

  test('roles without posts:draft are refused (403) before anything renders', async () => {
    const before = await eventCount(service);
    for (const role of ['viewer', 'reviewer'] as const)
      await errorOf(await render({ content: { title: 'x' } }, ws.tokens[role]), 403);
    expect(await eventCount(service)).toBe(before);
  });
});

test('a retry with the same Idempotency-Key answers the first render and stores nothing more', async () => {
  const body = { content: { title: 'Once only' }, format: 'pin' };
  const headers = { 'Idempotency-Key': `visual-${crypto.randomUUID()}` };
  const first = await render(body, ws.tokens.editor, headers);
  const out = await dataOf<ImageResult>(first);
  const listed = (await mediaList(service, ws)).total;
  const events = await eventCount(service);
  const again = await render(body, ws.tokens.editor, headers);
  expect(again.headers.get('Idempotent-Replayed')).toBe('true');
  expect(await dataOf<ImageResult>(again)).toEqual(out);
  expect((await mediaList(service, ws)).total).toBe(listed);
  expect(await eventCount(service)).toBe(events);
  const reused = await errorOf(await render({ ...body, format: 'square' }, ws.tokens.editor, headers), 422);
  expect(reused.code).toBe('idempotency_key_reused');
});
