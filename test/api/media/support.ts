// Helpers of the media library API tests: JSON answers and errors, PNGs of a given size, the checked-in video
// fixtures, and the upload flow (upload-url, PUT to the signed URL as a browser would, complete).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import { expect } from 'vitest';
import type { MediaItem } from '../../../commands/media/library.js';
import type { MediaAsset } from '../../../domain/shared/media-asset.js';
import type { TestService } from '../../support/runtime.js';
import type { TestWorkspace } from '../../support/workspace.js';

export interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}

export interface Slot {
  assetId: string;
  uploadUrl: string;
  key: string;
  expiresInSeconds: number;
  method: 'PUT';
  requiredHeaders: Record<string, string>;
}

export interface MediaPage {
  items: MediaItem[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
  counts: { all: number; uploads: number; onBrand: number };
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

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/media');

/** ffmpeg testsrc clips: clip.mp4 2.5 s 320×240, clip.mov 3 s 160×120, clip-faststart.mp4 1.5 s 200×100. */
export function fixture(name: 'clip.mp4' | 'clip.mov' | 'clip-faststart.mp4'): Uint8Array {
  return new Uint8Array(readFileSync(path.join(fixtures, name)));
}

/** A real PNG of the size. */
export function pngOf(width: number, height: number): Uint8Array {
  const image = new PNG({ width, height });
  for (let i = 0; i < width * height * 4; i += 4) {
    image.data[i] = (i / 4) % 256;
    image.data[i + 1] = 90;
    image.data[i + 2] = 200;
    image.data[i + 3] = 255;
  }
  return new Uint8Array(PNG.sync.write(image));
}

/** A PNG whose header says `width` × `height`, with a few bytes of image data (never decoded here). */
export function pngHeaderOf(width: number, height: number): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const out = Buffer.alloc(12 + data.byteLength);
    out.writeUInt32BE(data.byteLength, 0);
    out.write(type, 4, 'latin1');
    out.set(data, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.byteLength)), 8 + data.byteLength);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(
    Buffer.concat([
      signature,
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.alloc(40_000))),
      chunk('IEND', new Uint8Array(0)),
    ]),
  );
}

/** A request to a URL of the service (signed storage URLs and asset URLs carry the public base URL). */
export function local(service: TestService, url: string, init?: RequestInit): Promise<Response> {
  const u = new URL(url);
  expect(u.origin).toBe('http://localhost:3000');
  return Promise.resolve(service.runtime.app.request(`${u.pathname}${u.search}`, init));
}

export async function uploadSlot(
  service: TestService,
  ws: TestWorkspace,
  body: { kind: 'image' | 'video'; contentType: string },
  token = ws.tokens.editor,
  headers: Record<string, string> = {},
): Promise<Slot> {
  return dataOf<Slot>(await service.request('POST', `${ws.base}/media/upload-url`, { token, body, headers }));
}

export async function put(service: TestService, slot: Slot, bytes: Uint8Array): Promise<void> {
  const res = await local(service, slot.uploadUrl, {
    method: 'PUT',
    headers: slot.requiredHeaders,
    body: bytes,
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

export function complete(
  service: TestService,
  ws: TestWorkspace,
  slot: Slot,
  body: { kind: 'image' | 'video'; contentType: string },
  token = ws.tokens.editor,
): Promise<Response> {
  return service.request('POST', `${ws.base}/media/${slot.assetId}/complete`, {
    token,
    body: { key: slot.key, ...body },
  });
}

/** Upload-url, PUT, complete: the recorded asset. */
export async function upload(
  service: TestService,
  ws: TestWorkspace,
  bytes: Uint8Array,
  body: { kind: 'image' | 'video'; contentType: string },
): Promise<MediaAsset> {
  const slot = await uploadSlot(service, ws, body);
  await put(service, slot, bytes);
  return (await dataOf<{ asset: MediaAsset }>(await complete(service, ws, slot, body))).asset;
}

export async function listMedia(
  service: TestService,
  ws: TestWorkspace,
  query = '',
  token = ws.tokens.viewer,
): Promise<MediaPage> {
  return dataOf<MediaPage>(await service.request('GET', `${ws.base}/media${query}`, { token }));
}
