// The upload flow end to end with real files: upload-url, PUT to the signed URL (the embedded object store
// serves it), complete. MP4 and MOV length and frame size and PNG size are read from the files; a file whose
// bytes are not what was declared is refused (422), deleted, and nothing is recorded.
import { createHash, randomUUID } from 'node:crypto';
import { loadMediaAsset } from '../../../commands/media/media-commands.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  complete,
  dataOf,
  errorOf,
  fixture,
  listMedia,
  local,
  pngOf,
  put,
  upload,
  uploadSlot,
} from './support.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Acme');
  other = await createTestWorkspace(service, 'Other');
}, 60_000);
afterAll(async () => service?.stop());

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('upload-url', () => {
  test('answers a signed PUT for the kind and type, under the pending uploads prefix', async () => {
    const slot = await uploadSlot(service, ws, { kind: 'video', contentType: 'video/mp4' });
    expect(slot.assetId).toMatch(uuid);
    expect(slot).toEqual({
      assetId: slot.assetId,
      uploadUrl: expect.stringContaining('/v1/storage/objects/'),
      key: `uploads/media/${ws.orgId}/${slot.assetId}.mp4`,
      expiresInSeconds: 3600,
      method: 'PUT',
      requiredHeaders: { 'Content-Type': 'video/mp4' },
    });
    const mov = await uploadSlot(service, ws, { kind: 'video', contentType: 'Video/QuickTime' });
    expect(mov.key).toMatch(/\.mov$/);
    expect(mov.requiredHeaders).toEqual({ 'Content-Type': 'video/quicktime' });
  });

  test('a type not accepted for the kind, or an unknown kind, is a 400 naming the field; nothing recorded', async () => {
    const before = await eventCount(service);
    for (const body of [
      { kind: 'image', contentType: 'video/mp4' },
      { kind: 'video', contentType: 'image/png' },
      { kind: 'image', contentType: 'image/svg+xml' },
      { kind: 'video', contentType: 'video/webm' },
    ]) {
      const error = await errorOf(
        await service.request('POST', `${ws.base}/media/upload-url`, { token: ws.tokens.editor, body }),
        400,
      );
      expect(error.details).toEqual([
        { path: 'body.contentType', message: expect.stringMatching(/must be one of/) },
      ]);
    }
    const kind = await errorOf(
      await service.request('POST', `${ws.base}/media/upload-url`, {
        token: ws.tokens.editor,
        body: { kind: 'document', contentType: 'application/pdf' },
      }),
      400,
    );
    expect(kind.details?.map((d) => d.path)).toEqual(['body.kind']);
    expect(await eventCount(service)).toBe(before);
  });

  test('the size limit is enforced on the upload: more than 20 MiB of image is refused by the store', async () => {
    const slot = await uploadSlot(service, ws, { kind: 'image', contentType: 'image/png' });
    const res = await local(service, slot.uploadUrl, {
      method: 'PUT',
      headers: slot.requiredHeaders,
      body: new Uint8Array(20 * 1024 * 1024 + 1),
    });
    const error = await errorOf(res, 400);
    expect(error.code).toBe('object_too_large');
    expect(await service.runtime.storage.head(slot.key)).toBeNull();
  });

  test('the same Idempotency-Key answers the same slot; another key a new one', async () => {
    const headers = { 'idempotency-key': `slot-${Date.now()}` };
    const body = { kind: 'image' as const, contentType: 'image/png' };
    const first = await uploadSlot(service, ws, body, ws.tokens.editor, headers);
    const again = await service.request('POST', `${ws.base}/media/upload-url`, {
      token: ws.tokens.editor,
      body,
      headers,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const second = await dataOf<{ assetId: string; key: string }>(again);
    expect(second.assetId).toBe(first.assetId);
    expect(second.key).toBe(first.key);
    const fresh = await uploadSlot(service, ws, body, ws.tokens.editor, {
      'idempotency-key': `other-${Date.now()}`,
    });
    expect(fresh.assetId).not.toBe(first.assetId);
  });
});

describe('the stable asset URL', () => {
  test('serves a media key only for an object of the type its extension names; nothing else under media/', async () => {
    const assetId = randomUUID();
    const key = `orgs/${ws.orgId}/media/${assetId}.mp4`;
    await service.runtime.storage.put(key, pngOf(4, 4), 'image/png');
    expect((await local(service, `http://localhost:3000/v1/assets/${key}`)).status).toBe(404);
    await service.runtime.storage.put(key, fixture('clip.mp4'), 'video/mp4');
    expect((await local(service, `http://localhost:3000/v1/assets/${key}`)).status).toBe(302);
    for (const other of [
      `orgs/${ws.orgId}/media/${assetId}.exe`,
      `orgs/${ws.orgId}/media/not-a-uuid.mp4`,
      `orgs/${ws.orgId}/brand/logo.png`,
    ]) {
      await service.runtime.storage.put(other, pngOf(4, 4), 'image/png');
      expect((await local(service, `http://localhost:3000/v1/assets/${other}`)).status).toBe(404);
    }
  });
});

describe('complete', () => {
  test('a real MP4: duration and frame size read from the file, served at its stable URL', async () => {
    const bytes = fixture('clip.mp4');
    const before = await eventCount(service);
    const asset = await upload(service, ws, bytes, { kind: 'video', contentType: 'video/mp4' });
    expect(asset).toEqual({
      kind: 'video',
      assetId: expect.stringMatching(uuid),
      url: expect.stringMatching(
        new RegExp(`^http://localhost:3000/v1/assets/orgs/${ws.orgId}/media/.+\\.mp4$`),
      ),
      contentType: 'video/mp4',
      sizeBytes: bytes.byteLength,
      durationSeconds: 2.5,
      width: 320,
      height: 240,
    });
    expect(await eventCount(service)).toBe(before + 1);
    // The stable URL needs no token and redirects to a signed download of the bytes.
    const redirect = await local(service, asset.kind === 'video' ? asset.url : '');
    expect(redirect.status).toBe(302);
    const file = await local(service, redirect.headers.get('location')!);
    expect(file.headers.get('content-type')).toBe('video/mp4');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
  });

  test('a real MOV and an MP4 with its movie header first are read alike', async () => {
    const mov = await upload(service, ws, fixture('clip.mov'), {
      kind: 'video',
      contentType: 'video/quicktime',
    });
    expect(mov).toMatchObject({
      kind: 'video',
      contentType: 'video/quicktime',
      durationSeconds: 3,
      width: 160,
      height: 120,
    });
    const faststart = await upload(service, ws, fixture('clip-faststart.mp4'), {
      kind: 'video',
      contentType: 'video/mp4',
    });
    expect(faststart).toMatchObject({ durationSeconds: 1.5, width: 200, height: 100 });
  });

  test('a real PNG with its width and height; what the client says of them is not taken', async () => {
    const bytes = pngOf(64, 48);
    const slot = await uploadSlot(service, ws, { kind: 'image', contentType: 'image/png' });
    await put(service, slot, bytes);
    const res = await service.request('POST', `${ws.base}/media/${slot.assetId}/complete`, {
      token: ws.tokens.editor,
      body: { key: slot.key, kind: 'image', contentType: 'image/png', width: 9999, height: 1 },
    });
    const { asset } = await dataOf<{ asset: unknown }>(res);
    expect(asset).toEqual({
      kind: 'image',
      assetId: slot.assetId,
      url: `http://localhost:3000/v1/assets/orgs/${ws.orgId}/media/${slot.assetId}.png`,
      contentType: 'image/png',
      sizeBytes: bytes.byteLength,
      width: 64,
      height: 48,
    });
  });

  test('completing again answers the same asset and records nothing', async () => {
    const slot = await uploadSlot(service, ws, { kind: 'image', contentType: 'image/png' });
    await put(service, slot, pngOf(10, 10));
    const body = { kind: 'image' as const, contentType: 'image/png' };
    const first = await dataOf<{ asset: unknown }>(await complete(service, ws, slot, body));
    const before = await eventCount(service);
    const again = await dataOf<{ asset: unknown }>(await complete(service, ws, slot, body));
    expect(again).toEqual(first);
    // With an Idempotency-Key: the same answer, and a retry of it is marked as a replay.
    const keyed = {
      token: ws.tokens.editor,
      body: { key: slot.key, ...body },
      headers: { 'idempotency-key': `complete-${slot.assetId}` },
    };
    const path = `${ws.base}/media/${slot.assetId}/complete`;
    expect(await dataOf(await service.request('POST', path, keyed))).toEqual(first);
    const replay = await service.request('POST', path, keyed);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await dataOf(replay)).toEqual(first);
    expect(await eventCount(service)).toBe(before);
  });

  test.each([
    ['a PNG declared as video/mp4', { kind: 'video', contentType: 'video/mp4' }, () => pngOf(8, 8)],
    [
      'text declared as image/png',
      { kind: 'image', contentType: 'image/png' },
      () => new TextEncoder().encode('hello, not an image\n'.repeat(300)),
    ],
    [
      'an MP4 declared as video/quicktime',
      { kind: 'video', contentType: 'video/quicktime' },
      () => fixture('clip.mp4'),
    ],
    ['a MOV declared as image/gif', { kind: 'image', contentType: 'image/gif' }, () => fixture('clip.mov')],
  ] as const)('%s is refused (422), deleted, nothing recorded', async (_name, body, bytes) => {
    const slot = await uploadSlot(service, ws, body);
    await put(service, slot, bytes());
    const before = await eventCount(service);
    const listed = (await listMedia(service, ws)).counts.all;
    const error = await errorOf(await complete(service, ws, slot, body), 422);
    expect(error.code).toBe('content_type_mismatch');
    expect(error.error).toMatch(new RegExp(`not ${body.contentType.replace('/', '\\/')}`));
    expect(error.details?.[0]?.path).toBe('body.key');
    expect(await service.runtime.storage.head(slot.key)).toBeNull();
    expect(await eventCount(service)).toBe(before);
    expect((await listMedia(service, ws)).counts.all).toBe(listed);
  });

  test('an object stored under another type than declared is refused and deleted', async () => {
    const slot = await uploadSlot(service, ws, { kind: 'image', contentType: 'image/png' });
    // Stored directly, as a client ignoring the required header could with S3.
    await service.runtime.storage.put(slot.key, pngOf(4, 4), 'application/octet-stream');
    const error = await errorOf(
      await complete(service, ws, slot, { kind: 'image', contentType: 'image/png' }),
      422,
    );
    expect(error.code).toBe('content_type_mismatch');
    expect(await service.runtime.storage.head(slot.key)).toBeNull();
  });

  test('nothing uploaded: 404 object_not_found; a key that is not this asset’s: 400; nothing recorded', async () => {
    const before = await eventCount(service);
    const slot = await uploadSlot(service, ws, { kind: 'image', contentType: 'image/png' });
    const missing = await errorOf(
      await complete(service, ws, slot, { kind: 'image', contentType: 'image/png' }),
      404,
    );
    expect(missing.code).toBe('object_not_found');

    const other = await uploadSlot(service, ws, { kind: 'image', contentType: 'image/png' });
    await put(service, other, pngOf(4, 4));
    for (const key of [other.key, 'anything/else.png', slot.key.replace('.png', '.jpg')]) {
      const error = await errorOf(
        await service.request('POST', `${ws.base}/media/${slot.assetId}/complete`, {
          token: ws.tokens.editor,
          body: { key, kind: 'image', contentType: 'image/png' },
        }),
        400,
      );
      expect(error.details?.[0]?.path).toBe('body.key');
    }
    // The type must match the key's too (a PNG slot completed as a JPEG).
    const typed = await errorOf(
      await service.request('POST', `${ws.base}/media/${other.assetId}/complete`, {
        token: ws.tokens.editor,
        body: { key: other.key, kind: 'image', contentType: 'image/jpeg' },
      }),
      400,
    );
    expect(typed.details?.[0]?.path).toBe('body.key');
    expect(await eventCount(service)).toBe(before);
  });

  test("another workspace's asset or upload is not found from here", async () => {
    const theirs = await uploadSlot(service, other, { kind: 'image', contentType: 'image/png' });
    await put(service, theirs, pngOf(6, 6));
    const body = { kind: 'image' as const, contentType: 'image/png' };
    // Their upload, not yet completed, named under our workspace.
    expect((await complete(service, ws, theirs, body)).status).toBe(404);
    await dataOf(await complete(service, other, theirs, body, other.tokens.editor));
    const before = await eventCount(service);
    // Their completed asset, named with our workspace's key for that id.
    const res = await service.request('POST', `${ws.base}/media/${theirs.assetId}/complete`, {
      token: ws.tokens.editor,
      body: { key: `uploads/media/${ws.orgId}/${theirs.assetId}.png`, ...body },
    });
    await errorOf(res, 404);
    expect((await complete(service, ws, theirs, body)).status).toBe(404);
    expect(await eventCount(service)).toBe(before);
    expect((await listMedia(service, ws)).items.map((i) => i.id)).not.toContain(theirs.assetId);
  });

  test('viewers and reviewers may not upload (403); a token of another workspace neither', async () => {
    for (const token of [ws.tokens.viewer, ws.tokens.reviewer, other.tokens.owner]) {
      expect(
        (
          await service.request('POST', `${ws.base}/media/upload-url`, {
            token,
            body: { kind: 'image', contentType: 'image/png' },
          })
        ).status,
      ).toBe(403);
    }
    const slot = await uploadSlot(service, ws, { kind: 'image', contentType: 'image/png' });
    await put(service, slot, pngOf(4, 4));
    const before = await eventCount(service);
    expect(
      (await complete(service, ws, slot, { kind: 'image', contentType: 'image/png' }, ws.tokens.viewer))
        .status,
    ).toBe(403);
    expect(await eventCount(service)).toBe(before);
  });
});

describe('a completed upload cannot be replaced', () => {
  test('the slot URL is spent after complete (409), the asset key takes no PUT, and the bytes stay as recorded', async () => {
    const bytes = pngOf(16, 16);
    const body = { kind: 'image', contentType: 'image/png' } as const;
    const slot = await uploadSlot(service, ws, body);
    await put(service, slot, bytes);
    const { asset } = await dataOf<{ asset: { url: string; assetId: string } }>(
      await complete(service, ws, slot, body),
    );
    // Nothing is left under the slot's key: the bytes moved to the asset's own key.
    expect(await service.runtime.storage.head(slot.key)).toBeNull();
    const again = await local(service, slot.uploadUrl, {
      method: 'PUT',
      headers: slot.requiredHeaders,
      body: new TextEncoder().encode('twenty bytes of text'),
    });
    expect(await errorOf(again, 409)).toMatchObject({ code: 'upload_completed' });
    expect(await service.runtime.storage.head(slot.key)).toBeNull();
    // A URL signed for the asset's own key (as a slot signed before this change named it) is refused too.
    const assetKey = `orgs/${ws.orgId}/media/${slot.assetId}.png`;
    const direct = await service.runtime.storage.createUploadUrl(assetKey, {
      contentType: 'image/png',
      expiresInSeconds: 600,
    });
    const overwrite = await local(service, direct.uploadUrl, {
      method: 'PUT',
      headers: direct.requiredHeaders,
      body: pngOf(2, 2),
    });
    expect(await errorOf(overwrite, 409)).toMatchObject({ code: 'object_immutable' });
    const redirect = await local(service, asset.url);
    const served = new Uint8Array(
      await (await local(service, redirect.headers.get('location')!)).arrayBuffer(),
    );
    expect(served).toEqual(bytes);
    // The bytes' SHA-256 is recorded with the asset.
    const recorded = await loadMediaAsset(service.runtime.commands, ws.orgId, slot.assetId);
    expect(recorded?.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  test('an upload never completed is not served, not even with a signed download URL', async () => {
    const body = { kind: 'image', contentType: 'image/png' } as const;
    const slot = await uploadSlot(service, ws, body);
    await put(service, slot, pngOf(5, 5));
    const url = await service.runtime.storage.createDownloadUrl(slot.key, { expiresInSeconds: 600 });
    expect((await local(service, url)).status).toBe(404);
    expect((await local(service, `http://localhost:3000/v1/assets/${slot.key}`)).status).toBe(404);
  });
});
