// Profile images and workspace logo uploads through the whole service, with the embedded object store: the
// bytes are PUT to the signed URL the slot gives, as a browser would, and read back through the asset URL.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { maxImageBytes } from '../../commands/shared/image-uploads.js';
import type { ProfileImageUploadSlot as Slot } from '../../commands/users/profile-image-use-cases.js';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';
import { pngHeaderOf, pngOf } from './media/support.js';

let service: TestService;
let ws: TestWorkspace;
beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
});
afterAll(async () => service.stop());

const png = pngOf(12, 8);

async function json<T>(res: Response): Promise<T> {
  return ((await res.json()) as { data: T }).data;
}

/** A request to a URL of the service (signed storage URLs carry the public base URL). */
function local(url: string, init?: RequestInit): Promise<Response> {
  const u = new URL(url);
  expect(u.origin).toBe('http://localhost:3000');
  return Promise.resolve(service.runtime.app.request(`${u.pathname}${u.search}`, init));
}

async function uploadSlot(token: string, contentType = 'image/png'): Promise<Slot> {
  const res = await service.request('POST', '/v1/users/me/profile-image/upload-url', {
    token,
    body: { contentType },
  });
  expect(res.status).toBe(200);
  return json<Slot>(res);
}

async function put(slot: { uploadUrl: string; requiredHeaders: Record<string, string> }, body: Uint8Array) {
  return local(slot.uploadUrl, { method: 'PUT', headers: slot.requiredHeaders, body });
}

describe('profile image', () => {
  test('upload, set, read back through GET /v1/users/me and the asset URL, then remove', async () => {
    const ada = await service.userToken();
    const slot = await uploadSlot(ada.token);
    expect(slot).toEqual({
      uploadUrl: expect.stringContaining('/v1/storage/objects/'),
      key: expect.stringMatching(new RegExp(`^users/${ada.userId}/profile-image/[0-9a-f]{32}\\.png$`)),
      url: `http://localhost:3000/v1/assets/${slot.key}`,
      expiresInSeconds: 900,
      method: 'PUT',
      requiredHeaders: { 'Content-Type': 'image/png' },
    });
    expect((await put(slot, png)).status).toBe(200);

    const set = await service.request('POST', '/v1/users/me/profile-image', {
      token: ada.token,
      body: { key: slot.key },
    });
    expect(set.status).toBe(200);
    expect(await json(set)).toEqual({ avatarUrl: slot.url, key: slot.key });

    const me = await json<{ avatarUrl: string }>(
      await service.request('GET', '/v1/users/me', { token: ada.token }),
    );
    expect(me.avatarUrl).toBe(slot.url);

    // The stable URL needs no token and redirects to a signed download of the bytes.
    const asset = await local(me.avatarUrl);
    expect(asset.status).toBe(302);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=300');
    const image = await local(asset.headers.get('location')!);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(png);

    const got = await service.request('GET', '/v1/users/me/profile-image', { token: ada.token });
    expect(got.status).toBe(200);
    const download = await json<{ key: string; url: string; expiresInSeconds: number }>(got);
    expect(download).toMatchObject({ key: slot.key, expiresInSeconds: 3600 });
    expect(new Uint8Array(await (await local(download.url)).arrayBuffer())).toEqual(png);

    const removed = await service.request('DELETE', '/v1/users/me/profile-image', { token: ada.token });
    expect(removed.status).toBe(200);
    expect(await removed.text()).toBe('');
    const after = await json<{ avatarUrl: string | null }>(
      await service.request('GET', '/v1/users/me', { token: ada.token }),
    );
    expect(after.avatarUrl).toBeNull();
    expect((await service.request('GET', '/v1/users/me/profile-image', { token: ada.token })).status).toBe(
      404,
    );
    // The object is gone, so the stable URL no longer serves it.
    expect((await local(slot.url)).status).toBe(404);
    // Removing again is not an error and appends nothing.
    const before = await eventCount(service);
    expect((await service.request('DELETE', '/v1/users/me/profile-image', { token: ada.token })).status).toBe(
      200,
    );
    expect(await eventCount(service)).toBe(before);
  });

  test('a new image replaces the old one (deleted); an avatarUrl set by PATCH replaces the image', async () => {
    const bob = await service.userToken();
    const first = await uploadSlot(bob.token);
    await put(first, png);
    await service.request('POST', '/v1/users/me/profile-image', {
      token: bob.token,
      body: { key: first.key },
    });
    // A PNG's bytes: the type stored must be the bytes' own (a PNG under a .webp key is refused).
    const second = await uploadSlot(bob.token);
    expect(second.key).not.toBe(first.key);
    expect((await put(second, png)).status).toBe(200);
    const set = await service.request('POST', '/v1/users/me/profile-image', {
      token: bob.token,
      body: { key: second.key },
    });
    expect(await json(set)).toEqual({ avatarUrl: second.url, key: second.key });
    expect(await service.runtime.storage.head(first.key)).toBeNull();

    const patched = await service.request('PATCH', '/v1/users/me', {
      token: bob.token,
      body: { avatarUrl: 'https://cdn.example.org/bob.png' },
    });
    expect(patched.status).toBe(200);
    expect((await service.request('GET', '/v1/users/me/profile-image', { token: bob.token })).status).toBe(
      404,
    );
    expect(await service.runtime.storage.head(second.key)).toBeNull();
  });

  test('an Idempotency-Key gives the same slot again', async () => {
    const cat = await service.userToken();
    const send = () =>
      service.request('POST', '/v1/users/me/profile-image/upload-url', {
        token: cat.token,
        body: { contentType: 'image/jpeg' },
        headers: { 'idempotency-key': 'slot-1' },
      });
    const a = await json<Slot>(await send());
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json<Slot>(again)).toEqual(a);
    expect(a.key).toMatch(/\.jpg$/);
  });

  test.each(['image/svg+xml', 'text/html', 'application/pdf'])(
    'refuses a slot for %s with 400 naming body.contentType',
    async (contentType) => {
      const dee = await service.userToken();
      const res = await service.request('POST', '/v1/users/me/profile-image/upload-url', {
        token: dee.token,
        body: { contentType },
      });
      expect(res.status).toBe(400);
      const error = (await res.json()) as { code: string; details: Array<{ path: string }> };
      expect(error.code).toBe('unsupported_content_type');
      expect(error.details.map((d) => d.path)).toEqual(['body.contentType']);
    },
  );

  // The app-wide JSON body limit (1 MiB) does not apply to the local store's PUT route, which caps uploads itself.
  test('the local store takes an image between 1 MiB and the limit', async () => {
    const slot = await uploadSlot((await service.userToken()).token);
    expect((await put(slot, new Uint8Array(2 * 1024 * 1024))).status).toBe(200);
  });

  test('the local store refuses an upload over the limit, or of another type than signed', async () => {
    const eve = await service.userToken();
    const slot = await uploadSlot(eve.token);
    const tooLarge = await put(slot, new Uint8Array(maxImageBytes + 1));
    // The store's own cap (object_too_large), not the app-wide body limit.
    expect(tooLarge.status).toBe(400);
    const wrongType = await local(slot.uploadUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'text/html' },
      body: '<script>alert(1)</script>',
    });
    expect(wrongType.status).toBe(400);
    expect(await service.runtime.storage.head(slot.key)).toBeNull();
  });

  describe('setting a key that is not an acceptable upload is refused and changes nothing', () => {
    async function refused(token: string, key: string, status: number, code: string): Promise<void> {
      const before = await eventCount(service);
      const res = await service.request('POST', '/v1/users/me/profile-image', { token, body: { key } });
      expect(res.status).toBe(status);
      expect(((await res.json()) as { code: string }).code).toBe(code);
      expect(await eventCount(service)).toBe(before);
      const me = await json<{ avatarUrl: string | null }>(
        await service.request('GET', '/v1/users/me', { token }),
      );
      expect(me.avatarUrl).toBeNull();
    }

    test("another user's upload: 400", async () => {
      const owner = await service.userToken();
      const other = await service.userToken();
      const slot = await uploadSlot(owner.token);
      await put(slot, png);
      await refused(other.token, slot.key, 400, 'invalid_image_key');
      // Nor any other key of the store.
      await refused(other.token, `orgs/${ws.orgId}/media/a.png`, 400, 'invalid_image_key');
      await refused(other.token, '../../etc/passwd', 400, 'invalid_image_key');
    });

    test('nothing uploaded under the key: 404', async () => {
      const fay = await service.userToken();
      const slot = await uploadSlot(fay.token);
      await refused(fay.token, slot.key, 404, 'object_not_found');
    });

    test('an object over the limit (as S3 would let through): 422, and the object is deleted', async () => {
      const gus = await service.userToken();
      const slot = await uploadSlot(gus.token);
      // Written past the signed URL, as a presigned S3 PUT cannot cap its size.
      await service.runtime.storage.put(slot.key, new Uint8Array(maxImageBytes + 1), 'image/png');
      await refused(gus.token, slot.key, 422, 'image_too_large');
      expect(await service.runtime.storage.head(slot.key)).toBeNull();
      // And the stable URL never served it.
      expect((await local(slot.url)).status).toBe(404);
    });

    test('an object of another type than its key says: 422', async () => {
      const hal = await service.userToken();
      const slot = await uploadSlot(hal.token);
      await service.runtime.storage.put(slot.key, png, 'text/html');
      await refused(hal.token, slot.key, 422, 'unsupported_content_type');
    });

    test('a pixel bomb (20000 × 20000 in a few hundred bytes): 422 from its header, and the object is deleted', async () => {
      const jo = await service.userToken();
      const slot = await uploadSlot(jo.token);
      await put(slot, pngHeaderOf(20_000, 20_000));
      await refused(jo.token, slot.key, 422, 'image_dimensions_too_large');
      expect(await service.runtime.storage.head(slot.key)).toBeNull();
    });

    test('bytes that are not the image type stored: 422', async () => {
      const kim = await service.userToken();
      const slot = await uploadSlot(kim.token);
      await put(slot, new TextEncoder().encode('twenty bytes of text'));
      await refused(kim.token, slot.key, 422, 'content_type_mismatch');
    });

    test('an empty body: 400', async () => {
      const ivy = await service.userToken();
      const res = await service.request('POST', '/v1/users/me/profile-image', { token: ivy.token, body: {} });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { details: Array<{ path: string }> }).details[0]!.path).toBe('body.key');
    });
  });

  test('without a token: 401', async () => {
    expect((await service.request('GET', '/v1/users/me/profile-image')).status).toBe(401);
    expect((await service.request('DELETE', '/v1/users/me/profile-image')).status).toBe(401);
    expect(
      (
        await service.request('POST', '/v1/users/me/profile-image/upload-url', {
          body: { contentType: 'image/png' },
        })
      ).status,
    ).toBe(401);
  });

  test('the asset route serves only image keys: another object of the store is a 404', async () => {
    await service.runtime.storage.put(`users/${ws.userIds.owner}/secret.png`, png, 'image/png');
    expect((await local(`http://localhost:3000/v1/assets/users/${ws.userIds.owner}/secret.png`)).status).toBe(
      404,
    );
    expect(
      (await local(`http://localhost:3000/v1/assets/users/${ws.userIds.owner}/profile-image/x.png`)).status,
    ).toBe(404);
  });
});

describe('workspace logo upload-url', () => {
  test('owners and admins get a slot under the workspace, whose assetUrl serves the upload', async () => {
    for (const role of ['owner', 'admin'] as const) {
      const res = await service.request('POST', `/v1/orgs/${ws.orgId}/logo/upload-url`, {
        token: ws.tokens[role],
        body: { contentType: 'image/png' },
      });
      expect(res.status).toBe(200);
      const slot = await json<Slot & { assetUrl: string }>(res);
      expect(slot).toEqual({
        uploadUrl: expect.any(String),
        key: expect.stringMatching(new RegExp(`^orgs/${ws.orgId}/logo/[0-9a-f]{32}\\.png$`)),
        assetUrl: `http://localhost:3000/v1/assets/${slot.key}`,
        expiresInSeconds: 900,
        method: 'PUT',
        requiredHeaders: { 'Content-Type': 'image/png' },
      });
      expect((await put(slot, png)).status).toBe(200);
      const asset = await local(slot.assetUrl);
      expect(asset.status).toBe(302);
      expect(new Uint8Array(await (await local(asset.headers.get('location')!)).arrayBuffer())).toEqual(png);
    }
  });

  test("the uploaded logo's assetUrl becomes the workspace's avatar; another workspace's logo or a missing upload does not", async () => {
    const logoSlot = async (orgId: string, token: string) =>
      json<Slot & { assetUrl: string }>(
        await service.request('POST', `/v1/orgs/${orgId}/logo/upload-url`, {
          token,
          body: { contentType: 'image/png' },
        }),
      );
    const patch = (avatarUrl: string) =>
      service.request('PATCH', `/v1/orgs/${ws.orgId}`, { token: ws.tokens.admin, body: { avatarUrl } });
    const other = await createTestWorkspace(service, 'Other logo');
    const theirs = await logoSlot(other.orgId, other.tokens.owner);
    expect((await put(theirs, png)).status).toBe(200);
    const slot = await logoSlot(ws.orgId, ws.tokens.owner);
    const before = await eventCount(service);
    const missing = await patch(slot.assetUrl);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('object_not_found');
    expect((await put(slot, png)).status).toBe(200);
    const refused = await patch(theirs.assetUrl);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { code: string }).code).toBe('invalid_image_key');
    const plainHttp = await patch('http://cdn.example.org/logo.png');
    expect(plainHttp.status).toBe(400);
    expect(await eventCount(service)).toBe(before);
    const set = await patch(slot.assetUrl);
    expect(set.status).toBe(200);
    expect((await json<{ avatarUrl: string }>(set)).avatarUrl).toBe(slot.assetUrl);
    const read = await json<{ avatarUrl: string }>(
      await service.request('GET', `/v1/orgs/${ws.orgId}`, { token: ws.tokens.viewer }),
    );
    expect(read.avatarUrl).toBe(slot.assetUrl);
  });

  test.each(['reviewer', 'editor', 'viewer'] as const)('a %s gets 403', async (role) => {
    const res = await service.request('POST', `/v1/orgs/${ws.orgId}/logo/upload-url`, {
      token: ws.tokens[role],
      body: { contentType: 'image/png' },
    });
    expect(res.status).toBe(403);
  });

  test('an unsupported type is a 400; another workspace is a 403', async () => {
    const bad = await service.request('POST', `/v1/orgs/${ws.orgId}/logo/upload-url`, {
      token: ws.tokens.owner,
      body: { contentType: 'image/svg+xml' },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('unsupported_content_type');
    const other = await createTestWorkspace(service, 'Other');
    const res = await service.request('POST', `/v1/orgs/${other.orgId}/logo/upload-url`, {
      token: ws.tokens.owner,
      body: { contentType: 'image/png' },
    });
    expect(res.status).toBe(403);
  });
});
