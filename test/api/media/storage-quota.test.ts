// A workspace's storage quota (WORKSPACE_STORAGE_QUOTA_BYTES, here a few kilobytes): a file that would take the
// workspace past it is refused with 413 storage_quota_exceeded and not kept; once the quota is used up no new
// upload slot is given; another workspace is not affected.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { complete, errorOf, pngOf, put, upload, uploadSlot } from './support.js';

let service: TestService;
let ws: TestWorkspace;
let other: TestWorkspace;
const image = { kind: 'image', contentType: 'image/png' } as const;
const png = pngOf(40, 40);

beforeAll(async () => {
  service = await startTestService({ env: { WORKSPACE_STORAGE_QUOTA_BYTES: String(png.byteLength * 2) } });
  ws = await createTestWorkspace(service, 'Acme');
  other = await createTestWorkspace(service, 'Other');
}, 60_000);
afterAll(async () => service?.stop());

test('past the quota: 413 storage_quota_exceeded, the file not kept, then no new slot; others unaffected', async () => {
  await upload(service, ws, png, image);
  const slot = await uploadSlot(service, ws, image);
  await put(service, slot, pngOf(41, 41));
  const before = await eventCount(service);
  const refused = await errorOf(await complete(service, ws, slot, image), 413);
  expect(refused).toEqual({
    error: expect.stringContaining('of its'),
    code: 'storage_quota_exceeded',
    details: [{ path: 'body.key', message: expect.any(String) }],
  });
  expect(await eventCount(service)).toBe(before);
  expect(await service.runtime.storage.head(`orgs/${ws.orgId}/media/${slot.assetId}.png`)).toBeNull();
  // Exactly at the quota is allowed.
  await upload(service, ws, png, image);
  const full = await errorOf(
    await service.request('POST', `${ws.base}/media/upload-url`, { token: ws.tokens.editor, body: image }),
    413,
  );
  expect(full.code).toBe('storage_quota_exceeded');
  await upload(service, other, png, image);
});
