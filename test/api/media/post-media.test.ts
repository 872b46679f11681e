// A post's media must be an asset of the workspace's media library: drafts, post groups and post edits naming
// any other asset id (unknown, or another workspace's) are refused with 422, one error per asset id, and
// nothing is recorded.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { MediaAsset } from '../../../domain/post-groups/post-content.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { dataOf, errorOf, fixture, pngOf, upload } from './support.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
let photo: Extract<MediaAsset, { kind: 'image' }>;
let second: Extract<MediaAsset, { kind: 'image' }>;
let clip: MediaAsset;
let theirs: Extract<MediaAsset, { kind: 'image' }>;

const asImage = (asset: MediaAsset) => asset as Extract<MediaAsset, { kind: 'image' }>;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Acme');
  other = await createTestWorkspace(service, 'Other');
  photo = asImage(await upload(service, ws, pngOf(1200, 675), { kind: 'image', contentType: 'image/png' }));
  second = asImage(await upload(service, ws, pngOf(800, 800), { kind: 'image', contentType: 'image/png' }));
  clip = await upload(service, ws, fixture('clip.mp4'), { kind: 'video', contentType: 'video/mp4' });
  theirs = asImage(
    await upload(service, other, pngOf(600, 600), { kind: 'image', contentType: 'image/png' }),
  );
}, 60_000);
afterAll(async () => service?.stop());

const draft = (posts: unknown[]) =>
  service.request('POST', `${ws.base}/drafts`, { token: ws.tokens.editor, body: { title: 'Launch', posts } });

describe('post media must be assets of the workspace', () => {
  test('a draft with the workspace’s own image, image set and video is created', async () => {
    const res = await draft([
      { platform: 'linkedin', contentText: 'Launch day', media: photo },
      {
        platform: 'x',
        contentText: 'Two pictures',
        media: { kind: 'images', images: [photo, second].map(({ kind: _kind, ...item }) => item) },
      },
      { platform: 'youtube', contentText: 'The walkthrough', media: clip, youtube: { title: 'Walkthrough' } },
    ]);
    const { posts } = await dataOf<{ posts: Array<{ media: unknown }> }>(res);
    expect(posts.map((p) => p.media)).toEqual([
      photo,
      { kind: 'images', images: [photo, second].map(({ kind: _kind, ...item }) => item) },
      clip,
    ]);
  });

  test('unknown and foreign asset ids: 422 naming each field, nothing recorded', async () => {
    const before = await eventCount(service);
    const unknown = { ...photo, assetId: randomUUID() };
    const { kind: _kind, ...theirItem } = theirs;
    const { kind: _k, ...ownItem } = photo;
    const error = await errorOf(
      await draft([
        { platform: 'linkedin', contentText: 'Unknown', media: unknown },
        { platform: 'x', contentText: 'Set', media: { kind: 'images', images: [ownItem, theirItem] } },
        { platform: 'facebook', contentText: 'Theirs', media: theirs },
      ]),
      422,
    );
    expect(error.code).toBe('unknown_media_asset');
    expect(error.details?.map((d) => d.path)).toEqual([
      'body.posts.0.media.assetId',
      'body.posts.1.media.images.1.assetId',
      'body.posts.2.media.assetId',
    ]);
    expect(await eventCount(service)).toBe(before);
    // The same through the post-group endpoint.
    const group = await service.request('POST', `${ws.base}/post-groups`, {
      token: ws.tokens.editor,
      body: { title: 'G', posts: [{ platform: 'linkedin', contentText: 'x', media: unknown }] },
    });
    expect((await errorOf(group, 422)).details?.map((d) => d.path)).toEqual(['body.posts.0.media.assetId']);
    expect(await eventCount(service)).toBe(before);
  });

  test('editing a post’s media: the workspace’s asset is taken, any other is a 422', async () => {
    const { posts } = await dataOf<{ posts: Array<{ id: string }> }>(
      await draft([{ platform: 'linkedin', contentText: 'Edit me' }]),
    );
    const postId = posts[0]!.id;
    const patch = (media: unknown) =>
      service.request('PATCH', `${ws.base}/posts/${postId}`, { token: ws.tokens.editor, body: { media } });
    const before = await eventCount(service);
    for (const media of [theirs, { ...photo, assetId: randomUUID() }]) {
      const error = await errorOf(await patch(media), 422);
      expect(error.details).toEqual([
        { path: 'body.media.assetId', message: expect.stringMatching(/media library/) },
      ]);
    }
    expect(await eventCount(service)).toBe(before);
    const edited = await dataOf<{ media: unknown }>(await patch(second));
    expect(edited.media).toEqual(second);
  });
});
