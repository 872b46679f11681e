// Finding 5: the approval covers the media's bytes. A post's media carries the SHA-256 the library recorded; the
// publisher reads the files before any platform call, and bytes swapped in storage after the approval fail the
// post for good ("changed since approval") with nothing published. The connector uploads the files that were
// checked, not a second read.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mediaKeyOf } from '../../../commands/media/media-commands.js';
import type { MediaAsset } from '../../../domain/shared/media-asset.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import type { MediaFetcher, MediaFile } from '../../../infra/connectors/port.js';
import { ConnectorError } from '../../../infra/connectors/port.js';
import { sandboxPublicationsOf } from '../../../infra/connectors/sandbox/index.js';
import { approvedMediaFetcher } from '../../../processes/publishing/media-fetcher.js';
import { pngOf, upload as uploadAny } from '../../api/media/support.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

const upload = async (...args: Parameters<typeof uploadAny>) =>
  (await uploadAny(...args)) as Extract<MediaAsset, { kind: 'image' }>;
const hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('publishing media swapped in storage after approval', () => {
  let service: TestService;
  let ws: TestWorkspace;
  let accountId: string;

  beforeAll(async () => {
    service = await startTestService({
      env: { PUBLISH_SWEEP_INTERVAL_MS: '50', PUBLISH_RETRY_BASE_MS: '100', POST_NOW_WAIT_MS: '5000' },
    });
    ws = await createTestWorkspace(service);
    const account = await connectSandboxAccount(
      service,
      { orgId: ws.orgId, userId: ws.userIds.owner },
      'linkedin',
    );
    accountId = account.id;
  }, 60_000);
  afterAll(async () => service?.stop());

  /** A post with the media, approved without a time, then published now: the answer once it has an outcome. */
  async function approveAndPublish(media: MediaAsset, swap?: () => Promise<void>): Promise<PostView> {
    const created = await service.request('POST', `${ws.base}/post-groups`, {
      token: ws.tokens.owner,
      body: {
        title: 'Launch',
        posts: [
          { platform: 'linkedin', contentText: 'Our launch picture', socialAccountId: accountId, media },
        ],
      },
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const { group, posts } = (
      (await created.json()) as { data: { group: { id: string }; posts: PostView[] } }
    ).data;
    const approved = await service.request('POST', `${ws.base}/post-groups/${group.id}/approve`, {
      token: ws.tokens.owner,
      body: { autoSchedule: false },
    });
    expect(approved.status, await approved.clone().text()).toBe(200);
    await swap?.();
    const res = await service.request('POST', `${ws.base}/posts/${posts[0]!.id}/post-now`, {
      token: ws.tokens.owner,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { data: PostView }).data;
  }

  test('the approved bytes are published', async () => {
    const bytes = pngOf(1200, 675);
    const photo = await upload(service, ws, bytes, { kind: 'image', contentType: 'image/png' });
    const post = await approveAndPublish(photo);
    expect(post.media).toEqual({ ...photo, sha256: hex(bytes) });
    expect(post.status).toBe('published');
    expect(await sandboxPublicationsOf(service.runtime.readModels, post.id)).toHaveLength(1);
  });

  test('bytes written under the asset’s key after approval: the post fails for good, nothing is published', async () => {
    const bytes = pngOf(1000, 1000);
    const photo = await upload(service, ws, bytes, { kind: 'image', contentType: 'image/png' });
    const key = mediaKeyOf(ws.orgId, photo.assetId, 'png');
    expect(await service.runtime.storage.head(key)).not.toBeNull();
    const post = await approveAndPublish(photo, async () => {
      // A storage-level swap: no signed URL reaches this key, so the test writes the object store directly.
      const other = pngOf(1000, 999);
      expect(hex(other)).not.toBe(hex(bytes));
      await service.runtime.storage.put(key, other, 'image/png');
    });
    expect(post.status).toBe('failed');
    expect(post.lastError).toMatch(new RegExp(`^Media ${photo.assetId} changed since approval`));
    expect(post.nextRetryAt).toBeNull();
    expect(post.attemptCount).toBe(1);
    expect(await sandboxPublicationsOf(service.runtime.readModels, post.id)).toHaveLength(0);
  });
});

describe('approvedMediaFetcher', () => {
  /** A fetcher over fixed bytes by asset id, counting its reads. */
  function fakeFetcher(files: Record<string, Uint8Array>) {
    const reads: string[] = [];
    const fetchMedia: MediaFetcher = async (item) => {
      reads.push(item.assetId);
      const bytes = files[item.assetId]!;
      const file: MediaFile = {
        assetId: item.assetId,
        contentType: item.contentType,
        size: bytes.byteLength,
        bytes: async () => bytes,
        read: async (offset, length) => bytes.slice(offset, offset + length),
        blob: async () => new Blob([bytes]),
        stream: () =>
          (async function* () {
            yield Buffer.from(bytes);
          })() as never,
        dispose: async () => undefined,
      };
      return file;
    };
    return { fetchMedia, reads };
  }
  const item = (assetId: string, sha256?: string) => ({
    assetId,
    url: `https://cdn.example.com/${assetId}.png`,
    contentType: 'image/png',
    sizeBytes: 3,
    ...(sha256 !== undefined ? { sha256 } : {}),
  });
  const bytes = new Uint8Array([1, 2, 3]);

  test('checks each hashed file once and hands the connector that same file', async () => {
    const { fetchMedia, reads } = fakeFetcher({ a: bytes, b: bytes, legacy: bytes });
    const media: MediaAsset = {
      kind: 'images',
      images: [item('a', hex(bytes)), item('b', hex(bytes)), item('legacy')],
    };
    const fetcher = await approvedMediaFetcher(fetchMedia, media, 'org');
    expect(reads).toEqual(['a', 'b']);
    const [a] = await Promise.all([fetcher({ ...item('a'), orgId: 'org' })]);
    expect(await a.bytes()).toEqual(bytes);
    await fetcher({ ...item('legacy') });
    // `a` came from the check; only the file without a hash was read again, by the connector.
    expect(reads).toEqual(['a', 'b', 'legacy']);
  });

  test('a file whose bytes no longer hash to the approved sha256 is a permanent failure before any call', async () => {
    const { fetchMedia } = fakeFetcher({ a: new Uint8Array([9, 9, 9]) });
    const refused = approvedMediaFetcher(fetchMedia, { kind: 'image', ...item('a', hex(bytes)) }, 'org');
    await expect(refused).rejects.toBeInstanceOf(ConnectorError);
    await expect(refused).rejects.toMatchObject({
      kind: 'permanent',
      message: expect.stringMatching(/^Media a changed since approval/),
    });
  });
});
