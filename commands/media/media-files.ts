// What the media library accepts and how it reads a file: the content types per kind with their extensions,
// the size limits (those the publisher applies, DEFAULT_MEDIA_LIMITS), the type read from the bytes (file-type,
// never the declared type alone), image width and height (from its header) and the duration and frame size of MP4
// and MOV video (their movie header, found as the file streams past so a large video is never held in memory).
// Headers are read in the probe thread (infra/media-probe) with memory and time limits, never on the request's.
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { ServiceUnavailable } from '../../domain/shared/errors.js';
import { ProbeFailed, runProbe } from '../../infra/media-probe/pool.js';
import { DEFAULT_MEDIA_LIMITS, formatBytes } from '../../infra/connectors/media-file.js';
import { maxImagePixels, maxImageSide } from '../../infra/images/dimensions.js';

export const uploadKinds = ['image', 'video'] as const;
export type UploadKind = (typeof uploadKinds)[number];

/** The types people may upload or import, with the extension their objects are stored under. */
export const mediaContentTypes = {
  image: { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' },
  video: { 'video/mp4': 'mp4', 'video/quicktime': 'mov' },
} as const satisfies Record<UploadKind, Record<string, string>>;

/** What the service itself may store besides (a carousel's PDF). */
export const documentContentTypes = { 'application/pdf': 'pdf' } as const;

export type MediaFileKind = UploadKind | 'document';

/** Largest file per kind: what the publisher accepts (infra/connectors/media-file.ts). */
export const mediaSizeLimits: Readonly<Record<MediaFileKind, number>> = DEFAULT_MEDIA_LIMITS;

/** How long an upload slot may be used. */
export const mediaUploadExpirySeconds = 60 * 60;

/** The kind and extension of a content type the library stores, or null. */
export function mediaTypeOf(contentType: string): { kind: MediaFileKind; extension: string } | null {
  const type = contentType.trim().toLowerCase();
  for (const kind of uploadKinds) {
    const extension = (mediaContentTypes[kind] as Record<string, string>)[type];
    if (extension) return { kind, extension };
  }
  if (type in documentContentTypes) return { kind: 'document', extension: 'pdf' };
  return null;
}

export function typeListOf(kind: UploadKind): string {
  return Object.keys(mediaContentTypes[kind]).join(', ');
}

export function limitText(kind: MediaFileKind): string {
  return formatBytes(mediaSizeLimits[kind]);
}

/** Enough of a file's start for file-type to recognise every type above. */
export const sniffLength = 4100;

/** The content type the bytes are, or null when file-type does not recognise them. */
export async function sniffContentType(bytes: Uint8Array): Promise<string | null> {
  const found = await fileTypeFromBuffer(bytes.subarray(0, sniffLength));
  return found?.mime ?? null;
}

/**
 * Why an image of this size is refused (the shared caps of infra/images/dimensions.ts, read from its header:
 * a decoder holds width × height × 4 bytes), or null when it is within them.
 */
export function imageSizeProblem(size: { width: number; height: number }): string | null {
  if (size.width > maxImageSide || size.height > maxImageSide)
    return `The image is ${size.width} × ${size.height} pixels; at most ${maxImageSide} pixels a side are allowed`;
  if (size.width * size.height > maxImagePixels)
    return `The image is ${size.width} × ${size.height} pixels; at most ${maxImagePixels / 1_000_000} megapixels are allowed`;
  return null;
}

/** A probe that gave no answer, as the refusal of the file (503 only when the probe thread is busy). */
export function probeRefusal(error: unknown): { code: string; message: string } {
  if (error instanceof ProbeFailed) {
    if (error.reason === 'busy')
      throw new ServiceUnavailable(
        'Too many files are being read just now; try again shortly',
        'media_probe_busy',
      );
    return {
      code: 'media_too_complex',
      message: `The file cannot be read within the limits: ${error.message}`,
    };
  }
  throw error;
}

/**
 * An image's pixel size read from its header in the probe thread (never decoded), or null when the bytes are
 * not a readable image; `refused` when the probe ran out of time or memory.
 */
export async function imageDimensions(
  bytes: Uint8Array,
): Promise<{ width: number; height: number } | null | { refused: { code: string; message: string } }> {
  try {
    const result = await runProbe({ kind: 'image', bytes });
    return result.kind === 'image' ? result.size : null;
  } catch (error) {
    return { refused: probeRefusal(error) };
  }
}

export interface VideoInfo {
  /** What the bytes are (file-type), or null when unrecognised. */
  sniffedType: string | null;
  /** Null when the file has no readable movie header with a video track. */
  movie: { durationSeconds: number; width: number; height: number } | null;
  /** Set when the movie header is refused: too large, its sample tables implausible, or too costly to read. */
  refused?: { code: string; message: string };
}

/**
 * Largest movie header (`moov`) read: a two-hour video's tables take a few MB; a larger one is refused rather
 * than held.
 */
export const MAX_MOVIE_HEADER_BYTES = 32 * 1024 * 1024;

/**
 * Reads an MP4 or MOV of `sizeBytes` bytes as it streams: the type from its first bytes; the top-level boxes are
 * walked by their headers, every box but the movie header (`moov`, at the start or after the media data) streams
 * past without being kept, and reading stops once the header is in. The header is read in the probe thread
 * (infra/media-probe), which checks its sample tables against `sizeBytes` and builds nothing per sample.
 */
export async function readVideo(
  source: AsyncIterable<Uint8Array> | Readable,
  sizeBytes: number,
): Promise<VideoInfo> {
  let head = new Uint8Array(0);
  let offset = 0;
  let header = new Uint8Array(0);
  let headerWanted = 8;
  let boxStart = 0;
  let skip = 0;
  let moov: Uint8Array | undefined;
  let moovFilled = 0;
  let done = false;
  let refused: VideoInfo['refused'];
  const iterator = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  try {
    while (!(done && head.byteLength >= sniffLength)) {
      const next = await iterator.next();
      if (next.done) break;
      let data = next.value;
      if (head.byteLength < sniffLength) {
        const grown = new Uint8Array(Math.min(sniffLength, head.byteLength + data.byteLength));
        grown.set(head);
        grown.set(data.subarray(0, grown.byteLength - head.byteLength), head.byteLength);
        head = grown;
      }
      while (!done && data.byteLength > 0) {
        if (skip > 0) {
          const n = Math.min(skip, data.byteLength);
          skip -= n;
          offset += n;
          data = data.subarray(n);
        } else if (moov) {
          const n = Math.min(moov.byteLength - moovFilled, data.byteLength);
          moov.set(data.subarray(0, n), moovFilled);
          moovFilled += n;
          offset += n;
          data = data.subarray(n);
          if (moovFilled === moov.byteLength) done = true;
        } else {
          if (header.byteLength === 0) boxStart = offset;
          const n = Math.min(headerWanted - header.byteLength, data.byteLength);
          const grown = new Uint8Array(header.byteLength + n);
          grown.set(header);
          grown.set(data.subarray(0, n), header.byteLength);
          header = grown;
          offset += n;
          data = data.subarray(n);
          if (header.byteLength < headerWanted) continue;
          const view = new DataView(header.buffer);
          let size = view.getUint32(0);
          if (size === 1 && headerWanted === 8) {
            headerWanted = 16;
            continue;
          }
          if (size === 1) size = Number(view.getBigUint64(8));
          else if (size === 0) size = sizeBytes - boxStart;
          const type = String.fromCharCode(...header.subarray(4, 8));
          if (size < header.byteLength || boxStart + size > sizeBytes) {
            // Not a box structure (or cut short): there is no movie header to read.
            done = true;
          } else if (type === 'moov') {
            if (size > MAX_MOVIE_HEADER_BYTES) {
              refused = {
                code: 'movie_header_too_large',
                message: `The movie header is ${size} bytes; at most ${MAX_MOVIE_HEADER_BYTES} are read`,
              };
              done = true;
            } else {
              moov = new Uint8Array(size);
              moov.set(header);
              moovFilled = header.byteLength;
              if (moovFilled === size) done = true;
            }
          } else {
            skip = size - header.byteLength;
          }
          header = new Uint8Array(0);
          headerWanted = 8;
        }
      }
    }
  } finally {
    await iterator.return?.();
    if (source instanceof Readable) source.destroy();
  }
  const sniffedType = await sniffContentType(head);
  if (refused) return { sniffedType, movie: null, refused };
  if (!moov || moovFilled < moov.byteLength) return { sniffedType, movie: null };
  let result;
  try {
    result = await runProbe({ kind: 'movie', moov, fileSize: sizeBytes });
  } catch (error) {
    return { sniffedType, movie: null, refused: probeRefusal(error) };
  }
  if (result.kind !== 'movie') return { sniffedType, movie: null };
  const read = result.header;
  return read.ok
    ? { sniffedType, movie: read.movie }
    : { sniffedType, movie: null, refused: { code: read.code, message: read.message } };
}

/** `readVideo` over bytes already in memory (an imported or rendered file). */
export function readVideoBytes(bytes: Uint8Array): Promise<VideoInfo> {
  const chunkSize = 1024 * 1024;
  async function* chunks() {
    for (let i = 0; i < bytes.byteLength; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
  }
  return readVideo(chunks(), bytes.byteLength);
}
