// Helpers of the branded-visuals API tests: JSON answers, an uploaded PNG asset (the media library's own
// upload flow), reading a stored asset's bytes back, and the media list.
import { PNG } from 'pngjs';
import { expect } from 'vitest';
import type { TestService } from '../../support/runtime.js';
import type { TestWorkspace } from '../../support/workspace.js';

export interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}

export async function dataOf<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (JSON.parse(text) as { data: T }).data;
}

export async function errorOf(res: Response, status: number): Promise<ErrorBody> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as ErrorBody;
}

/** A PNG of the size, a diagonal gradient (so a crop or a scale shows). */
export function pngOf(width: number, height: number): Buffer {
  const image = new PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      image.data[i] = Math.round((255 * x) / width);
      image.data[i + 1] = Math.round((255 * y) / height);
      image.data[i + 2] = 180;
      image.data[i + 3] = 255;
    }
  return PNG.sync.write(image);
}

export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const png = PNG.sync.read(Buffer.from(bytes));
  return { width: png.width, height: png.height };
}

/** The bytes behind an asset URL the service answered (served by the app, through its redirect to storage). */
export async function download(service: TestService, url: string): Promise<Uint8Array> {
  let res = await service.runtime.app.request(url);
  for (let hops = 0; hops < 3 && res.status >= 300 && res.status < 400; hops++)
    res = await service.runtime.app.request(new URL(res.headers.get('location')!, url).toString());
  expect(res.status, url).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** A PNG uploaded through upload-url, PUT and complete; answers its asset id. */
export async function uploadPng(
  service: TestService,
  ws: TestWorkspace,
  bytes: Uint8Array,
  token = ws.tokens.editor,
): Promise<string> {
  const slot = await dataOf<{
    assetId: string;
    uploadUrl: string;
    key: string;
    requiredHeaders: Record<string, string>;
  }>(
    await service.request('POST', `${ws.base}/media/upload-url`, {
      token,
      body: { kind: 'image', contentType: 'image/png' },
    }),
  );
  const put = await service.runtime.app.request(slot.uploadUrl, {
    method: 'PUT',
    headers: slot.requiredHeaders,
    body: bytes,
  });
  expect(put.status, await put.clone().text()).toBeLessThan(300);
  await dataOf(
    await service.request('POST', `${ws.base}/media/${slot.assetId}/complete`, {
      token,
      body: { key: slot.key, kind: 'image', contentType: 'image/png' },
    }),
  );
  return slot.assetId;
}

export interface MediaListItem {
  id: string;
  source: string;
  format: string | null;
  aiGenerated: boolean;
  title: string | null;
  asset: { kind: string; pageCount?: number; previewImageUrls?: string[] };
}

export async function mediaList(
  service: TestService,
  ws: TestWorkspace,
  query = 'collection=all&limit=100',
): Promise<{ items: MediaListItem[]; total: number }> {
  return dataOf(await service.request('GET', `${ws.base}/media?${query}`, { token: ws.tokens.viewer }));
}
