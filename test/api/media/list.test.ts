// GET ORG/marketing/media: newest first, collections (uploads = uploaded and imported; on_brand = rendered),
// kinds, counts and paging; only the workspace's own assets. And the library port other slices use
// (commands/media/library.ts): store (idempotent by seed), get and read, for the workspace only.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MediaItem, MediaLibrary } from '../../../commands/media/library.js';
import { createMediaLibrary } from '../../../commands/media/media-library.js';
import type { Caller } from '../../../domain/shared/caller.js';
import { rolePermissions } from '../../../domain/workspaces/roles.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { errorOf, fixture, listMedia, pngOf, upload } from './support.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let library: MediaLibrary;
const minimalPdf = new TextEncoder().encode(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

const callerOf = (w: TestWorkspace): Caller => ({
  kind: 'user',
  userId: w.userIds.editor,
  orgId: w.orgId,
  role: 'editor',
  permissions: rolePermissions.editor,
});

/** In the order stored (oldest first): upload image, upload video, import-like, branded, carousel pdf, screenshot. */
const stored: MediaItem[] = [];

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Acme');
  other = await createTestWorkspace(service, 'Other');
  library = createMediaLibrary({
    commands: service.runtime.commands,
    readModels: service.runtime.readModels,
    storage: service.runtime.storage,
    publicBaseUrl: 'http://localhost:3000',
    now: () => new Date(),
  });
  const image = await upload(service, ws, pngOf(12, 12), { kind: 'image', contentType: 'image/png' });
  const video = await upload(service, ws, fixture('clip.mov'), {
    kind: 'video',
    contentType: 'video/quicktime',
  });
  for (const asset of [image, video]) {
    const id = 'assetId' in asset ? asset.assetId : '';
    const item = await library.get(ws.orgId, id);
    stored.push(item!);
  }
  stored.push(
    await library.store({
      orgId: ws.orgId,
      caller: callerOf(ws),
      source: 'branded_image',
      bytes: pngOf(108, 108),
      contentType: 'image/png',
      title: 'Launch day',
      format: 'square',
      aiGenerated: true,
    }),
  );
  stored.push(
    await library.store({
      orgId: ws.orgId,
      caller: callerOf(ws),
      source: 'carousel',
      bytes: minimalPdf,
      contentType: 'application/pdf',
      title: 'Five lessons',
      format: 'portrait',
      pageCount: 5,
      previewImageUrls: ['http://localhost:3000/v1/assets/x.png'],
    }),
  );
  stored.push(
    await library.store({
      orgId: ws.orgId,
      caller: callerOf(ws),
      source: 'screenshot',
      bytes: pngOf(40, 30),
      contentType: 'image/png',
      width: 40,
      height: 30,
    }),
  );
  // Another workspace's asset, never listed here.
  await upload(service, other, pngOf(5, 5), { kind: 'image', contentType: 'image/png' });
}, 60_000);
afterAll(async () => service?.stop());

const ids = (items: MediaItem[]) => items.map((i) => i.id);
const newestFirst = () => ids([...stored].reverse());

describe('GET media', () => {
  test('newest first, with every field, counts of each collection; another workspace not listed', async () => {
    const page = await listMedia(service, ws);
    expect(ids(page.items)).toEqual(newestFirst());
    expect(page).toMatchObject({ page: 1, limit: 25, total: 5, hasMore: false });
    expect(page.counts).toEqual({ all: 5, uploads: 2, onBrand: 3 });
    const branded = page.items.find((i) => i.source === 'branded_image')!;
    expect(branded).toEqual({
      id: branded.id,
      source: 'branded_image',
      asset: {
        kind: 'image',
        assetId: branded.id,
        url: `http://localhost:3000/v1/assets/orgs/${ws.orgId}/media/${branded.id}.png`,
        contentType: 'image/png',
        sizeBytes: expect.any(Number),
        width: 108,
        height: 108,
      },
      previewUrl: `http://localhost:3000/v1/assets/orgs/${ws.orgId}/media/${branded.id}.png`,
      title: 'Launch day',
      format: 'square',
      aiGenerated: true,
      sizeBytes: branded.asset.kind === 'image' ? branded.asset.sizeBytes : -1,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const pdf = page.items.find((i) => i.source === 'carousel')!;
    expect(pdf.asset).toMatchObject({
      kind: 'document',
      contentType: 'application/pdf',
      title: 'Five lessons',
      pageCount: 5,
      previewImageUrls: ['http://localhost:3000/v1/assets/x.png'],
    });
    expect(pdf.previewUrl).toBe('http://localhost:3000/v1/assets/x.png');
    const otherPage = await listMedia(service, other, '', other.tokens.viewer);
    expect(otherPage.counts.all).toBe(1);
    expect(ids(otherPage.items).some((id) => ids(page.items).includes(id))).toBe(false);
  });

  test('collections and kinds', async () => {
    const [image, video, branded, carousel, screenshot] = stored.map((s) => s.id);
    expect(ids((await listMedia(service, ws, '?collection=uploads')).items)).toEqual([video, image]);
    expect(ids((await listMedia(service, ws, '?collection=on_brand')).items)).toEqual([
      screenshot,
      carousel,
      branded,
    ]);
    expect(ids((await listMedia(service, ws, '?kind=video')).items)).toEqual([video]);
    expect(ids((await listMedia(service, ws, '?kind=carousel')).items)).toEqual([carousel]);
    const images = await listMedia(service, ws, '?kind=image');
    expect(ids(images.items)).toEqual([screenshot, branded, image]);
    // Counts are of the kind asked, per collection.
    expect(images.counts).toEqual({ all: 3, uploads: 1, onBrand: 2 });
    const brandedImages = await listMedia(service, ws, '?collection=on_brand&kind=image');
    expect(ids(brandedImages.items)).toEqual([screenshot, branded]);
    expect(brandedImages.total).toBe(2);
  });

  test('paging', async () => {
    const first = await listMedia(service, ws, '?limit=2');
    const second = await listMedia(service, ws, '?limit=2&page=2');
    const third = await listMedia(service, ws, '?limit=2&page=3');
    expect(first).toMatchObject({ page: 1, limit: 2, total: 5, hasMore: true });
    expect(third).toMatchObject({ page: 3, limit: 2, total: 5, hasMore: false });
    expect([...ids(first.items), ...ids(second.items), ...ids(third.items)]).toEqual(newestFirst());
    expect((await listMedia(service, ws, '?page=9')).items).toEqual([]);
  });

  test('bad queries are 400s naming the parameter', async () => {
    for (const [query, path] of [
      ['?collection=favourites', 'query.collection'],
      ['?kind=document', 'query.kind'],
      ['?limit=101', 'query.limit'],
      ['?page=0', 'query.page'],
      ['?sort=new', 'query.sort'],
    ] as const) {
      const error = await errorOf(
        await service.request('GET', `${ws.base}/media${query}`, { token: ws.tokens.viewer }),
        400,
      );
      expect(error.details?.map((d) => d.path)).toContain(path);
    }
  });

  test('every role may list; a token of another workspace may not', async () => {
    for (const token of Object.values(ws.tokens))
      expect((await service.request('GET', `${ws.base}/media`, { token })).status).toBe(200);
    expect((await service.request('GET', `${ws.base}/media`, { token: other.tokens.owner })).status).toBe(
      403,
    );
    expect((await service.request('GET', `${ws.base}/media`)).status).toBe(401);
  });
});

describe('the library port', () => {
  test('store with a seed stores once; get and read answer for the workspace only', async () => {
    const seed = `render-${randomUUID()}`;
    const input = {
      orgId: ws.orgId,
      caller: callerOf(ws),
      source: 'branded_image' as const,
      bytes: pngOf(20, 10),
      contentType: 'image/png',
      idSeed: seed,
    };
    const first = await library.store(input);
    const before = await eventCount(service);
    const again = await library.store(input);
    expect(again).toEqual(first);
    expect(await eventCount(service)).toBe(before);
    expect(first.asset).toMatchObject({ kind: 'image', width: 20, height: 10 });

    expect(await library.get(ws.orgId, first.id)).toEqual(first);
    expect(await library.get(other.orgId, first.id)).toBeNull();
    expect(await library.get(ws.orgId, 'not-a-uuid')).toBeNull();
    const read = await library.read(ws.orgId, first.id);
    expect(read?.contentType).toBe('image/png');
    expect(read?.bytes).toEqual(input.bytes);
    expect(read?.item).toEqual(first);
    expect(await library.read(other.orgId, first.id)).toBeNull();
    // The same seed in another workspace is another asset.
    const theirs = await library.store({ ...input, orgId: other.orgId, caller: callerOf(other) });
    expect(theirs.id).not.toBe(first.id);
  });

  test('store refuses bytes that are not the declared type, a type it does not keep, and another workspace', async () => {
    const before = await eventCount(service);
    await expect(
      library.store({
        orgId: ws.orgId,
        caller: callerOf(ws),
        source: 'screenshot',
        bytes: pngOf(4, 4),
        contentType: 'image/jpeg',
      }),
    ).rejects.toMatchObject({ status: 422, code: 'content_type_mismatch' });
    await expect(
      library.store({
        orgId: ws.orgId,
        caller: callerOf(ws),
        source: 'screenshot',
        bytes: new Uint8Array([60, 115, 118, 103]),
        contentType: 'image/svg+xml',
      }),
    ).rejects.toMatchObject({ status: 422, code: 'unsupported_content_type' });
    await expect(
      library.store({
        orgId: other.orgId,
        caller: callerOf(ws),
        source: 'screenshot',
        bytes: pngOf(4, 4),
        contentType: 'image/png',
      }),
    ).rejects.toMatchObject({ status: 403 });
    expect(await eventCount(service)).toBe(before);
  });
});
