// What the media library accepts and how it reads a file: the content types per kind with their extensions,
// the size limits (those the publisher applies, DEFAULT_MEDIA_LIMITS), the type read from the bytes (file-type,
// never the declared type alone), image width and height (image-size) and the duration and frame size of MP4 and
// MOV video (mp4box, fed as the file streams past so a large video is never held in memory).
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { createFile, MP4BoxBuffer, type Movie } from 'mp4box';
import { DEFAULT_MEDIA_LIMITS, formatBytes } from '../../infra/connectors/media-file.js';

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

/** An image's pixel size read from its bytes, or null when they are not a readable image. */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | null {
  try {
    const size = imageSize(bytes);
    if (!size.width || !size.height) return null;
    // JPEG orientations 5–8 are stored rotated: shown, width and height swap.
    const rotated = size.orientation !== undefined && size.orientation >= 5;
    return rotated ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
  } catch {
    return null;
  }
}

export interface VideoInfo {
  /** What the bytes are (file-type), or null when unrecognised. */
  sniffedType: string | null;
  /** Null when the file has no readable movie header or no video track. */
  movie: { durationSeconds: number; width: number; height: number } | null;
}

/**
 * Reads an MP4 or MOV as it streams: the type from its first bytes, the duration and frame size from its movie
 * header (`moov`, at the start or after the media data). Only what mp4box asks for is handed to it (it answers
 * with the next position it needs), so the media data streams past without being kept, and reading stops once
 * the header is parsed.
 */
export async function readVideo(source: AsyncIterable<Uint8Array> | Readable): Promise<VideoInfo> {
  const file = createFile();
  let movie: Movie | undefined;
  let failed = false;
  file.onReady = (info) => {
    movie = info;
  };
  file.onError = () => {
    failed = true;
  };
  let head = new Uint8Array(0);
  let position = 0;
  let wanted = 0;
  const iterator = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      const chunk = next.value;
      if (head.byteLength < sniffLength) {
        const grown = new Uint8Array(Math.min(sniffLength, head.byteLength + chunk.byteLength));
        grown.set(head);
        grown.set(chunk.subarray(0, grown.byteLength - head.byteLength), head.byteLength);
        head = grown;
      }
      const start = position;
      position += chunk.byteLength;
      if (!movie && !failed && position > wanted) {
        const from = Math.max(0, wanted - start);
        // A copy: mp4box keeps the ArrayBuffer, and a chunk is often a view into a larger shared one.
        const buffer = MP4BoxBuffer.fromArrayBuffer(
          new Uint8Array(chunk.subarray(from)).buffer,
          start + from,
        );
        wanted = file.appendBuffer(buffer);
      }
      if ((movie || failed) && head.byteLength >= sniffLength) break;
    }
    if (!movie && !failed) file.flush();
  } finally {
    await iterator.return?.();
    if (source instanceof Readable) source.destroy();
  }
  const sniffedType = await sniffContentType(head);
  const track = movie?.videoTracks[0];
  const width = track ? (track.video?.width ?? track.track_width) : 0;
  const height = track ? (track.video?.height ?? track.track_height) : 0;
  const durationSeconds =
    movie && movie.timescale > 0
      ? movie.duration / movie.timescale
      : track && track.timescale > 0
        ? track.duration / track.timescale
        : 0;
  return {
    sniffedType,
    movie:
      track && width > 0 && height > 0 && durationSeconds > 0
        ? { durationSeconds: Math.round(durationSeconds * 1000) / 1000, width, height }
        : null,
  };
}

/** `readVideo` over bytes already in memory (an imported or rendered file). */
export function readVideoBytes(bytes: Uint8Array): Promise<VideoInfo> {
  const chunkSize = 1024 * 1024;
  async function* chunks() {
    for (let i = 0; i < bytes.byteLength; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
  }
  return readVideo(chunks());
}
