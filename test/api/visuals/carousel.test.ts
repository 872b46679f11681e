// POST ORG/marketing/visuals/carousel and POST ORG/marketing/visuals/preview through the whole service: three
// slides give three stored PNG slides and a PDF that opens with pdf-lib with three pages, postMedia each platform
// accepts; 1 and 16 slides are refused naming `slides`; a preview answers small PNG data URIs and stores nothing.
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkPostContent } from '../../../domain/post-groups/content-rules.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import type { MediaAsset } from '../../../domain/shared/media-asset.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { dataOf, download, errorOf, mediaList, pngSize } from './support.js';

interface SlideItem {
  assetId: string;
  url: string;
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
  format: string;
  page: number;
}
interface CarouselResult {
  document: {
    assetId: string;
    url: string;
    contentType: string;
    sizeBytes: number;
    pageCount: number;
  } | null;
  slides: SlideItem[];
  postMedia: Record<'linkedin' | 'x' | 'facebook' | 'instagram', MediaAsset | null>;
  aiBackground: unknown;
  renderMs: number;
}
interface PreviewResult {
  image: string;
  width: number;
  height: number;
  renderMs: number;
  slides?: string[];
}

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Visuals carousel');
}, 120_000);
afterAll(async () => service?.stop());

const slide = (n: number) => ({ title: `Point number ${n}`, body: 'One idea per slide, said plainly.' });

describe('carousel', () => {
  test('three slides: three stored PNGs and a three-page PDF, postMedia for each platform', async () => {
    const out = await dataOf<CarouselResult>(
      await service.request('POST', `${ws.base}/visuals/carousel`, {
        token: ws.tokens.editor,
        body: {
          slides: [
            { title: 'How we ship a launch', eyebrow: 'Playbook' },
            { title: '73% fewer rejected drafts', stat: '73%' },
            { title: 'Start today', cta: 'Try it free' },
          ],
          handle: '@acme',
        },
      }),
    );
    expect(out.slides.map((s) => [s.page, s.format, s.width, s.height])).toEqual([
      [1, 'portrait', 1080, 1350],
      [2, 'portrait', 1080, 1350],
      [3, 'portrait', 1080, 1350],
    ]);
    expect(pngSize(await download(service, out.slides[2]!.url))).toEqual({ width: 1080, height: 1350 });

    expect(out.document).toMatchObject({ contentType: 'application/pdf', pageCount: 3 });
    const pdfBytes = await download(service, out.document!.url);
    expect(pdfBytes.byteLength).toBe(out.document!.sizeBytes);
    const pdf = await PDFDocument.load(pdfBytes);
    expect(pdf.getPageCount()).toBe(3);

    expect(out.postMedia.linkedin).toMatchObject({
      kind: 'document',
      assetId: out.document!.assetId,
      pageCount: 3,
      previewImageUrls: out.slides.map((s) => s.url),
    });
    for (const platform of ['x', 'facebook', 'instagram'] as const)
      expect(out.postMedia[platform]).toMatchObject({ kind: 'images' });
    for (const [platform, media] of Object.entries(out.postMedia))
      expect(
        checkPostContent({
          platform: platform as Platform,
          contentText: 'Our playbook',
          media,
          platformPayload: null,
        }),
        platform,
      ).toEqual([]);

    const listed = await mediaList(service, ws, 'collection=on_brand&limit=100');
    const stored = listed.items.filter((i) => i.source === 'carousel');
    expect(stored).toHaveLength(4);
    expect(stored.find((i) => i.id === out.document!.assetId)?.asset).toMatchObject({
      kind: 'document',
      pageCount: 3,
    });
  });

  test('more slides than X or Instagram take: their postMedia keeps the first 4 and 10, each accepted', async () => {
    const slides = Array.from({ length: 11 }, (_, i) => slide(i + 1));
    const out = await dataOf<CarouselResult>(
      await service.request('POST', `${ws.base}/visuals/carousel`, {
        token: ws.tokens.editor,
        // Square, slides only: fewer pixels and no PDF keep the test quick; LinkedIn then gets the images.
        body: { slides, format: 'square', outputs: ['png'] },
      }),
    );
    expect(out.document).toBeNull();
    expect(out.slides).toHaveLength(11);
    const count = (media: MediaAsset | null) => (media?.kind === 'images' ? media.images.length : 0);
    expect(count(out.postMedia.x)).toBe(4);
    expect(count(out.postMedia.instagram)).toBe(10);
    expect(count(out.postMedia.facebook)).toBe(11);
    expect(count(out.postMedia.linkedin)).toBe(11);
    for (const [platform, media] of Object.entries(out.postMedia))
      expect(
        checkPostContent({
          platform: platform as Platform,
          contentText: 'Tips',
          media,
          platformPayload: null,
        }),
        platform,
      ).toEqual([]);
  });

  test('1 or 16 slides, a stat layout without a stat, a bad format: 400 naming the field, nothing stored', async () => {
    const before = await eventCount(service);
    const listed = (await mediaList(service, ws)).total;
    const cases: Array<[unknown, string, RegExp?]> = [
      [{ slides: [slide(1)] }, 'body.slides', /2 to 15 slides; got 1/],
      [{ slides: Array.from({ length: 16 }, (_, i) => slide(i)) }, 'body.slides', /got 16/],
      [{ slides: [slide(1), { title: 'x', layout: 'stat' }] }, 'body.slides.1.stat'],
      [{ slides: [slide(1), slide(2)], format: 'landscape' }, 'body.format'],
      [{ slides: [slide(1), { title: 'x', layout: 'poster' }] }, 'body.slides.1.layout'],
      [{ slides: [slide(1), slide(2)], outputs: ['gif'] }, 'body.outputs.0'],
      [{ slides: [slide(1), slide(2)], outputs: [] }, 'body.outputs'],
    ];
    for (const [body, path, message] of cases) {
      const error = await errorOf(
        await service.request('POST', `${ws.base}/visuals/carousel`, { token: ws.tokens.editor, body }),
        400,
      );
      const detail = error.details?.find((d) => d.path === path);
      expect(detail, `${path} in ${JSON.stringify(error)}`).toBeDefined();
      if (message) expect(detail!.message).toMatch(message);
    }
    expect(await eventCount(service)).toBe(before);
    expect((await mediaList(service, ws)).total).toBe(listed);
  });
});

describe('preview', () => {
  function decode(uri: string): Buffer {
    expect(uri.startsWith('data:image/png;base64,')).toBe(true);
    return Buffer.from(uri.slice('data:image/png;base64,'.length), 'base64');
  }

  test('an image preview is a small PNG data URI of the answered size; nothing is stored', async () => {
    const before = await eventCount(service);
    const listed = (await mediaList(service, ws)).total;
    const out = await dataOf<PreviewResult>(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'image', content: { content: { title: 'Preview me' }, format: 'landscape' } },
      }),
    );
    expect(out.width).toBeLessThanOrEqual(400);
    expect(out.width / out.height).toBeCloseTo(1600 / 900, 1);
    expect(pngSize(decode(out.image))).toEqual({ width: out.width, height: out.height });
    expect(out.slides).toBeUndefined();

    const carousel = await dataOf<PreviewResult>(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'carousel', content: { slides: [slide(1), slide(2)], format: 'square' } },
      }),
    );
    expect(carousel.slides).toHaveLength(2);
    expect(carousel.image).toBe(carousel.slides![0]);
    for (const uri of carousel.slides!)
      expect(pngSize(decode(uri))).toEqual({ width: carousel.width, height: carousel.height });
    expect(carousel.width).toBeLessThanOrEqual(400);

    expect(await eventCount(service)).toBe(before);
    expect((await mediaList(service, ws)).total).toBe(listed);
  });

  test('an image preview takes the image endpoint’s content in place: {kind: image, content: {title}}', async () => {
    const short = await dataOf<PreviewResult>(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'image', content: { title: 'Preview me' } },
      }),
    );
    const long = await dataOf<PreviewResult>(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'image', content: { content: { title: 'Preview me' } } },
      }),
    );
    // The same render: the default square format, the same pixels.
    expect(short.width).toBe(short.height);
    expect(short.image).toBe(long.image);
    // Render options sit beside the text.
    const landscape = await dataOf<PreviewResult>(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: {
          kind: 'image',
          content: { title: 'Preview me', eyebrow: 'New', format: 'landscape', theme: 'dark' },
        },
      }),
    );
    expect(landscape.width / landscape.height).toBeCloseTo(1600 / 900, 1);

    const both = await errorOf(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'image', content: { content: { title: 'a' }, title: 'b' } },
      }),
      400,
    );
    expect(both.details?.map((d) => d.path)).toEqual(['body.content.title']);
    const none = await errorOf(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'image', content: { theme: 'dark' } },
      }),
      400,
    );
    expect(none.details?.map((d) => d.path)).toEqual(['body.content.title']);
    const unknown = await errorOf(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'image', content: { title: 'a', colour: 'red' } },
      }),
      400,
    );
    expect(JSON.stringify(unknown.details)).toContain('colour');
  });

  test('a preview’s bad input is a 400 naming the field under content; viewers are refused', async () => {
    const bad = await errorOf(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'carousel', content: { slides: [slide(1)] } },
      }),
      400,
    );
    expect(bad.details?.map((d) => d.path)).toContain('body.content.slides');
    const kind = await errorOf(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'video', content: {} },
      }),
      400,
    );
    expect(kind.details?.[0]?.path).toMatch(/^body\.kind/);
    await errorOf(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.viewer,
        body: { kind: 'image', content: { content: { title: 'x' } } },
      }),
      403,
    );
  });
});
