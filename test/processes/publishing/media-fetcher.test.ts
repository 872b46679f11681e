// Media in our own storage is read only for the workspace that owns it, through a signed URL that verifies;
// anything else on our own origin is refused and fetched neither from storage nor over HTTP.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test, vi, type MockInstance } from 'vitest';
import { createMediaFetcher } from '../../../processes/publishing/media-fetcher.js';
import { Publisher } from '../../../processes/publishing/publisher.js';
import { LocalObjectStorage } from '../../../infra/object-storage/local-object-storage.js';
import { workspaceObjectPrefix } from '../../../infra/object-storage/port.js';
import {
  ConnectorError,
  type MediaFetcher,
  type MediaFile,
  type PlatformConnector,
  type PublishRequest,
} from '../../../infra/connectors/port.js';
import { createLogger } from '../../../infra/logging/logger.js';
import type { PostView } from '../../../domain/post-groups/views.js';
import { recordMediaFixtures } from '../../support/media.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';

const orgA = randomUUID();
const orgB = randomUUID();
const png = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);

async function refusal(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectorError);
    return error as ConnectorError;
  }
  throw new Error('expected a refusal');
}

describe('createMediaFetcher, own storage', () => {
  let server: Server;
  let httpRequests: string[];
  let dir: string;
  let baseUrl: string;
  let storage: LocalObjectStorage;
  let clock = Date.now();
  let fetchMedia: MediaFetcher;
  let getSpy: MockInstance<LocalObjectStorage['getStream']>;
  const keyA = `${workspaceObjectPrefix(orgA)}media/a.png`;
  const keyB = `${workspaceObjectPrefix(orgB)}media/b.png`;

  beforeAll(async () => {
    httpRequests = [];
    // Our own origin: a request reaching it means the fetcher went over HTTP to ourselves.
    server = createServer((req, res) => {
      httpRequests.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from(png));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = await mkdtemp(path.join(os.tmpdir(), 'sp-media-'));
    storage = new LocalObjectStorage({
      rootDir: dir,
      publicBaseUrl: baseUrl,
      signingSecret: 'x'.repeat(32),
      now: () => clock,
    });
    await storage.put(keyA, png, 'image/png');
    await storage.put(keyB, png, 'image/png');
    // Private addresses allowed, so only the own-origin rule can keep the fetcher off our server.
    fetchMedia = createMediaFetcher({ storage, publicBaseUrl: baseUrl, allowPrivate: true });
    getSpy = vi.spyOn(storage, 'getStream');
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  const item = (url: string, orgId?: string) => ({
    url,
    contentType: 'image/png',
    assetId: 'asset-1',
    ...(orgId ? { orgId } : {}),
  });

  test("a post in workspace A referencing workspace B's file is refused and reads nothing", async () => {
    const urlB = await storage.createDownloadUrl(keyB, { expiresInSeconds: 3600 });
    getSpy.mockClear();
    const error = await refusal(fetchMedia(item(urlB, orgA)));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/does not belong to the post's workspace/);
    expect(getSpy).not.toHaveBeenCalled();
    expect(httpRequests).toEqual([]);
  });

  test("the workspace's own signed URL is read from storage", async () => {
    const urlA = await storage.createDownloadUrl(keyA, { expiresInSeconds: 3600 });
    const media = await fetchMedia(item(urlA, orgA));
    try {
      expect(Array.from(await media.bytes())).toEqual(Array.from(png));
      expect(media.contentType).toBe('image/png');
    } finally {
      await media.dispose();
    }
    expect(httpRequests).toEqual([]);
  });

  test('an expired but genuine URL still reads (a post scheduled after its URL lapsed)', async () => {
    const urlA = await storage.createDownloadUrl(keyA, { expiresInSeconds: 60 });
    clock += 3_600_000;
    try {
      const media = await fetchMedia(item(urlA, orgA));
      expect(media.size).toBe(png.byteLength);
      await media.dispose();
    } finally {
      clock -= 3_600_000;
    }
  });

  test('an unsigned, re-signed or tampered URL is refused', async () => {
    const urlA = await storage.createDownloadUrl(keyA, { expiresInSeconds: 3600 });
    getSpy.mockClear();
    const unsigned = `${baseUrl}/v1/storage/objects/${keyA}`;
    const tampered = urlA.replace(/signature=[^&]+/, `signature=${'A'.repeat(43)}`);
    // A signature for one key does not carry over to another key of the same workspace.
    const otherKey = urlA.replace('media/a.png', 'media/other.png');
    for (const url of [unsigned, tampered, otherKey]) {
      const error = await refusal(fetchMedia(item(url, orgA)));
      expect(error.message).toMatch(/signed URL does not verify/);
    }
    expect(getSpy).not.toHaveBeenCalled();
    expect(httpRequests).toEqual([]);
  });

  test("a media library asset URL (/v1/assets/<key>) is read from storage for the post's workspace only", async () => {
    const assetKeyA = `${workspaceObjectPrefix(orgA)}media/${randomUUID()}.png`;
    const assetKeyB = `${workspaceObjectPrefix(orgB)}media/${randomUUID()}.png`;
    await storage.put(assetKeyA, png, 'image/png');
    await storage.put(assetKeyB, png, 'image/png');
    getSpy.mockClear();
    const media = await fetchMedia(item(`${baseUrl}/v1/assets/${assetKeyA}`, orgA));
    try {
      expect(Array.from(await media.bytes())).toEqual(Array.from(png));
    } finally {
      await media.dispose();
    }
    expect(getSpy).toHaveBeenCalledTimes(1);

    getSpy.mockClear();
    const other = await refusal(fetchMedia(item(`${baseUrl}/v1/assets/${assetKeyB}`, orgA)));
    expect(other.message).toMatch(/does not belong to the post's workspace/);
    // A key the asset route would not serve (not a media asset's), a missing asset, no workspace.
    const notMedia = await refusal(fetchMedia(item(`${baseUrl}/v1/assets/${keyA}`, orgA)));
    expect(notMedia.message).toMatch(/does not name a media asset/);
    const gone = `${workspaceObjectPrefix(orgA)}media/${randomUUID()}.png`;
    expect((await refusal(fetchMedia(item(`${baseUrl}/v1/assets/${gone}`, orgA)))).message).toMatch(
      /no longer in storage/,
    );
    expect((await refusal(fetchMedia(item(`${baseUrl}/v1/assets/${assetKeyA}`)))).message).toMatch(
      /workspace is not known/,
    );
    expect(getSpy).not.toHaveBeenCalled();
    expect(httpRequests).toEqual([]);
  });

  test('no workspace, no file of our storage', async () => {
    const urlA = await storage.createDownloadUrl(keyA, { expiresInSeconds: 3600 });
    const error = await refusal(fetchMedia(item(urlA)));
    expect(error.message).toMatch(/workspace is not known/);
  });

  test('other paths on our own origin are refused, not fetched over HTTP', async () => {
    for (const url of [
      `${baseUrl}/v1/orgs/${orgA}/marketing/posts`,
      `${baseUrl}/readyz`,
      `${baseUrl}/v1/storage/objects/%ZZ`,
      `${baseUrl}/v1/storage/objects/../../readyz`,
    ]) {
      const error = await refusal(fetchMedia(item(url, orgA)));
      expect(error.kind).toBe('permanent');
    }
    expect(httpRequests).toEqual([]);
  });
});

describe('the publisher reads media for the post’s workspace', () => {
  let service: TestService;
  let wsA: TestWorkspace;
  let wsB: TestWorkspace;
  let accountId: string;
  const seen: Array<{ bytes: number } | { error: string }> = [];

  beforeAll(async () => {
    service = await startTestService({
      publishing: { sweep: false, work: false },
      env: { POST_NOW_WAIT_MS: '0' },
    });
    wsA = await createTestWorkspace(service, 'A');
    wsB = await createTestWorkspace(service, 'B');
    accountId = (await connectSandboxAccount(service, { orgId: wsA.orgId, userId: wsA.userIds.owner }, 'x'))
      .id;
  }, 60_000);
  afterAll(async () => service?.stop());

  /**
   * A publisher whose connector uploads its media, as the live X connector does; `upload` runs with the file
   * (and may fail the call), `tmpDir` is where the fetcher spools.
   */
  function publisher(
    options: { tmpDir?: string; upload?: (file: MediaFile) => Promise<void> } = {},
  ): Publisher {
    const connector = {
      platform: 'x',
      async publish(context, request: PublishRequest) {
        const media = request.media;
        if (media?.kind !== 'image') throw new Error('test posts carry one image');
        let file: MediaFile;
        try {
          file = await context.fetchMedia(media);
          seen.push({ bytes: file.size });
        } catch (error) {
          seen.push({ error: (error as Error).message });
          throw error;
        }
        await options.upload?.(file);
        return { kind: 'published', externalId: randomUUID(), url: 'https://x.example/p' };
      },
    } as Pick<PlatformConnector, 'platform' | 'publish'> as PlatformConnector;
    return new Publisher({
      commands: service.runtime.commands,
      connectors: { get: () => connector },
      accounts: service.runtime.accounts,
      fetchMedia: createMediaFetcher({
        storage: service.runtime.storage,
        publicBaseUrl: service.runtime.env.PUBLIC_BASE_URL!,
        ...(options.tmpDir ? { tmpDir: options.tmpDir } : {}),
      }),
      settings: {
        maxAttempts: 3,
        retryBaseMs: 1000,
        retryMaxMs: 1000,
        callTimeoutMs: 10_000,
        staleAttemptMs: 60_000,
        pollIntervalMs: 1000,
        pendingTimeoutMs: 60_000,
      },
      logger: createLogger({ level: 'silent' }),
    });
  }

  async function postNowWithImage(url: string) {
    // The post's media names an asset of the workspace's library; its URL is what the test is about.
    const media = {
      kind: 'image' as const,
      assetId: randomUUID(),
      url,
      contentType: 'image/png',
      sizeBytes: 7,
    };
    await recordMediaFixtures(service, wsA.orgId, media);
    const created = await service.request('POST', `${wsA.base}/post-groups`, {
      token: wsA.tokens.owner,
      body: {
        title: 'Media',
        posts: [
          {
            platform: 'x',
            contentText: `With an image ${randomUUID()}`,
            socialAccountId: accountId,
            media,
          },
        ],
      },
    });
    expect(created.status).toBe(200);
    const data = ((await created.json()) as { data: { group: { id: string }; posts: PostView[] } }).data;
    const postId = data.posts[0]!.id;
    expect(
      (
        await service.request('POST', `${wsA.base}/post-groups/${data.group.id}/approve`, {
          token: wsA.tokens.owner,
          body: { autoSchedule: false },
        })
      ).status,
    ).toBe(200);
    expect(
      (await service.request('POST', `${wsA.base}/posts/${postId}/post-now`, { token: wsA.tokens.owner }))
        .status,
    ).toBe(200);
    return { orgId: wsA.orgId, groupId: data.group.id, postId };
  }

  async function lastError(postId: string): Promise<string | null> {
    const res = await service.request('GET', `${wsA.base}/posts?limit=100`, { token: wsA.tokens.owner });
    const posts = ((await res.json()) as { data: { items: PostView[] } }).data.items;
    return posts.find((p) => p.id === postId)!.lastError;
  }

  test("a post in workspace A with workspace B's storage URL fails with a clear error, reading nothing", async () => {
    const storage = service.runtime.storage;
    const keyB = `${workspaceObjectPrefix(wsB.orgId)}media/secret.png`;
    await storage.put(keyB, png, 'image/png');
    const urlB = await storage.createDownloadUrl(keyB, { expiresInSeconds: 3600 });
    const getSpy = vi.spyOn(storage, 'getStream');
    const job = await postNowWithImage(urlB);
    seen.length = 0;
    expect(await publisher().run(job)).toBe('failed');
    expect(getSpy).not.toHaveBeenCalled();
    expect(seen).toEqual([{ error: expect.stringMatching(/does not belong to the post's workspace/) }]);
    expect(await waitUntil(() => lastError(job.postId))).toMatch(/does not belong to the post's workspace/);
    getSpy.mockRestore();
  });

  test("workspace A's own file is published", async () => {
    const storage = service.runtime.storage;
    const keyA = `${workspaceObjectPrefix(wsA.orgId)}media/mine.png`;
    await storage.put(keyA, png, 'image/png');
    const job = await postNowWithImage(await storage.createDownloadUrl(keyA, { expiresInSeconds: 3600 }));
    seen.length = 0;
    expect(await publisher().run(job)).toBe('published');
    expect(seen).toEqual([{ bytes: png.byteLength }]);
  });

  test('the spool file is on disk during the platform call and gone after it, published or failed', async () => {
    const storage = service.runtime.storage;
    const keyA = `${workspaceObjectPrefix(wsA.orgId)}media/spooled.png`;
    await storage.put(keyA, png, 'image/png');
    const url = await storage.createDownloadUrl(keyA, { expiresInSeconds: 3600 });
    const tmpDir = await mkdtemp(path.join(os.tmpdir(), 'sp-publisher-spool-'));
    const filesDuringCall: string[][] = [];
    const spoolFiles = async () =>
      (await readdir(tmpDir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => path.join(entry.parentPath, entry.name));
    try {
      const published = await postNowWithImage(url);
      const ok = publisher({
        tmpDir,
        upload: async (file) => {
          filesDuringCall.push(await spoolFiles());
          expect(Array.from(await file.bytes())).toEqual(Array.from(png));
        },
      });
      expect(await ok.run(published)).toBe('published');

      const failing = await postNowWithImage(url);
      const refused = publisher({
        tmpDir,
        upload: async () => {
          filesDuringCall.push(await spoolFiles());
          throw new ConnectorError('permanent', 'x: the image was refused');
        },
      });
      expect(await refused.run(failing)).toBe('failed');
      expect(await waitUntil(() => lastError(failing.postId))).toMatch(/the image was refused/);

      // One spooled file during each call, none left after either.
      expect(filesDuringCall.map((files) => files.length)).toEqual([1, 1]);
      expect(await spoolFiles()).toEqual([]);
      expect(await readdir(tmpDir)).toEqual([]);
    } finally {
      await rm(tmpDir, { recursive: true, force: true });
    }
  });
});
