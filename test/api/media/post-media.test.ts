// A post's media must be an asset of the workspace's media library: drafts, post groups and post edits naming
// any other asset id (unknown, or another workspace's) are refused with 422, one error per asset id, and
// nothing is recorded. Each file a post keeps carries the SHA-256 the library recorded of its bytes (finding 5).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import type { MediaAsset } from '../../../domain/shared/media-asset.js';
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
/** The uploaded bytes' hex SHA-256 by asset id. */
const hashes = new Map<string, string>();

const asImage = (asset: MediaAsset) => asset as Extract<MediaAsset, { kind: 'image' }>;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Acme');
  other = await createTestWorkspace(service, 'Other');
  const uploaded = async (bytes: Uint8Array, body: { kind: 'image' | 'video'; contentType: string }) => {
    const asset = await upload(service, ws, bytes, body);
    if (asset.kind === 'image' || asset.kind === 'video')
      hashes.set(asset.assetId, createHash('sha256').update(bytes).digest('hex'));
    return asset;
  };
  photo = asImage(await uploaded(pngOf(1200, 675), { kind: 'image', contentType: 'image/png' }));
  second = asImage(await uploaded(pngOf(800, 800), { kind: 'image', contentType: 'image/png' }));
  clip = await uploaded(fixture('clip.mp4'), { kind: 'video', contentType: 'video/mp4' });
  theirs = asImage(
    await upload(service, other, pngOf(600, 600), { kind: 'image', contentType: 'image/png' }),
  );
}, 60_000);
afterAll(async () => service?.stop());

/** The media as a post keeps it: each file with the library's SHA-256 of its bytes. */
function hashed(media: MediaAsset): MediaAsset {
  const sha256 = (assetId: string) => hashes.get(assetId) ?? expect.fail(`no bytes uploaded for ${assetId}`);
  if (media.kind === 'images')
    return { ...media, images: media.images.map((i) => ({ ...i, sha256: sha256(i.assetId) })) };
  return { ...media, sha256: sha256(media.assetId) };
}

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
      hashed(photo),
      hashed({ kind: 'images', images: [photo, second].map(({ kind: _kind, ...item }) => item) }),
      hashed(clip),
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
    expect(edited.media).toEqual(hashed(second));
  });
});

describe('finding 5: the approval covers the media’s bytes', () => {
  const forged = 'f'.repeat(64);

  test('a drafted post’s media carries the library’s sha256, never the one the caller sent; GET shows it', async () => {
    const { kind: _k, ...item } = photo;
    const { group, posts } = await dataOf<{
      group: { id: string };
      posts: Array<{ id: string; media: unknown }>;
    }>(
      await draft([
        { platform: 'linkedin', contentText: 'Hashed', media: { ...photo, sha256: forged } },
        {
          platform: 'x',
          contentText: 'Set',
          media: { kind: 'images', images: [{ ...item, sha256: forged }] },
        },
        { platform: 'youtube', contentText: 'Clip', media: clip, youtube: { title: 'Clip' } },
      ]),
    );
    expect(hashes.get(photo.assetId)).toMatch(/^[0-9a-f]{64}$/);
    const expected = [
      { ...photo, sha256: hashes.get(photo.assetId) },
      { kind: 'images', images: [{ ...item, sha256: hashes.get(photo.assetId) }] },
      hashed(clip),
    ];
    expect(posts.map((p) => p.media)).toEqual(expected);
    const read = await dataOf<{ posts: Array<{ id: string; media: unknown }> }>(
      await service.request('GET', `${ws.base}/post-groups/${group.id}`, { token: ws.tokens.viewer }),
    );
    expect(posts.map((p) => read.posts.find((r) => r.id === p.id)?.media)).toEqual(expected);
  });

  test('an edit giving a forged sha256 keeps the library’s; a malformed one is a 400', async () => {
    const { posts } = await dataOf<{ posts: Array<{ id: string }> }>(
      await draft([{ platform: 'linkedin', contentText: 'Edit me', media: second }]),
    );
    const patch = (media: unknown) =>
      service.request('PATCH', `${ws.base}/posts/${posts[0]!.id}`, {
        token: ws.tokens.editor,
        body: { media },
      });
    const edited = await dataOf<{ media: unknown }>(await patch({ ...photo, sha256: forged }));
    expect(edited.media).toEqual({ ...photo, sha256: hashes.get(photo.assetId) });
    const error = await errorOf(await patch({ ...photo, sha256: 'not-a-hash' }), 400);
    expect(error.details?.map((d) => d.path)).toEqual(['body.media.sha256']);
  });
});
