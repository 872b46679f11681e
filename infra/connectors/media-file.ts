// Media files handed to connectors: spooled to a private file on disk while they arrive, capped per kind, and
// read from there in the pieces an upload needs. Nothing holds a whole video in memory (security finding 6c).
import { createReadStream, openAsBlob } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ConnectorError, type MediaFetcher, type MediaFile } from './port.js';

const MiB = 1024 * 1024;

export type MediaKind = 'image' | 'document' | 'video';

/**
 * The most a media file of each kind may be. Above every platform's own image limit (X 5 MB, Reddit 20 MB,
 * Bluesky 1 MB), LinkedIn's 100 MB documents, and the 512 MiB our storage takes in one upload (X's video limit).
 */
export const DEFAULT_MEDIA_LIMITS: Readonly<Record<MediaKind, number>> = {
  image: 20 * MiB,
  document: 100 * MiB,
  video: 512 * MiB,
};

/** `bytes()` reads a file whole into memory only up to this size; larger files are read in pieces. */
export const IN_MEMORY_LIMIT = 20 * MiB;

/** The kind a content type names; anything that is neither an image nor a PDF is capped as a video. */
export function mediaKindOf(contentType: string): MediaKind {
  const type = contentType.toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('application/pdf')) return 'document';
  return 'video';
}

export function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** The permanent failure of media above its cap: nothing of it is uploaded anywhere. */
export function mediaTooLarge(assetId: string, kind: MediaKind, maxBytes: number): ConnectorError {
  return new ConnectorError(
    'permanent',
    `Media ${assetId} is larger than ${formatBytes(maxBytes)}, the most ${kind === 'image' ? 'an' : 'a'} ${kind} may be here; nothing was uploaded`,
    { platformCode: 'media_too_large' },
  );
}

function checkRange(file: { assetId: string; size: number }, offset: number, length: number): void {
  if (
    !Number.isSafeInteger(offset) ||
    !Number.isSafeInteger(length) ||
    offset < 0 ||
    length < 0 ||
    offset + length > file.size
  )
    throw new RangeError(
      `Media ${file.assetId}: bytes ${offset}+${length} lie outside its ${file.size} bytes`,
    );
}

function checkInMemory(file: { assetId: string; size: number }): void {
  if (file.size > IN_MEMORY_LIMIT)
    throw new ConnectorError(
      'permanent',
      `Media ${file.assetId} is ${formatBytes(file.size)}; only files up to ${formatBytes(IN_MEMORY_LIMIT)} are read whole, larger ones are uploaded in pieces`,
      { platformCode: 'media_too_large' },
    );
}

/** A media file held in memory, for small content and tests; the same interface as a spooled one. */
export function bytesMediaFile(data: Uint8Array, contentType: string, assetId = 'media'): MediaFile {
  const file = {
    assetId,
    contentType,
    size: data.byteLength,
    async bytes() {
      checkInMemory(file);
      return data;
    },
    async read(offset: number, length: number) {
      checkRange(file, offset, length);
      return data.subarray(offset, offset + length);
    },
    async blob() {
      return new Blob([data], { type: contentType });
    },
    stream() {
      return Readable.from([data]);
    },
    async dispose() {},
  };
  return file;
}

export interface SpoolOptions {
  assetId: string;
  contentType: string;
  /** The stream fails with a permanent `mediaTooLarge` error past this many bytes. */
  maxBytes: number;
  kind: MediaKind;
  /** The folder the private spool folder is made in (default the OS's temporary folder). */
  tmpDir?: string;
}

const LOCAL_TROUBLE = new Set(['ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE']);

/**
 * Writes `source` to a new file in a private folder (0700, the file 0600), stopping with a permanent error
 * past `maxBytes`; at most a few chunks are in memory at a time. The folder is removed on any failure, and by
 * the returned file's `dispose`.
 */
export async function spoolMedia(
  source: AsyncIterable<Uint8Array>,
  options: SpoolOptions,
): Promise<MediaFile> {
  let dir: string | undefined;
  let size = 0;
  try {
    dir = await mkdtemp(path.join(options.tmpDir ?? os.tmpdir(), 'sp-media-'));
    const handle = await open(path.join(dir, 'media'), 'wx', 0o600);
    await pipeline(
      source,
      new Transform({
        transform(chunk: Uint8Array, _encoding, callback) {
          size += chunk.byteLength;
          if (size > options.maxBytes)
            callback(mediaTooLarge(options.assetId, options.kind, options.maxBytes));
          else callback(null, chunk);
        },
      }),
      handle.createWriteStream(),
    );
  } catch (error) {
    if (dir) await rm(dir, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    // A full disk or too many open files is ours and passes: the attempt is tried again, not failed for good.
    if (code && LOCAL_TROUBLE.has(code))
      throw new ConnectorError(
        'retryable',
        `Media ${options.assetId} could not be spooled to disk (${code}); it is tried again later`,
      );
    throw error;
  }
  return spooledFile(dir, path.join(dir, 'media'), {
    assetId: options.assetId,
    contentType: options.contentType,
    size,
  });
}

function spooledFile(
  dir: string,
  filePath: string,
  meta: { assetId: string; contentType: string; size: number },
): MediaFile {
  let disposed: Promise<void> | undefined;
  const file: MediaFile = {
    ...meta,
    async bytes() {
      checkInMemory(file);
      return file.read(0, file.size);
    },
    async read(offset, length) {
      checkRange(file, offset, length);
      const handle = await open(filePath, 'r');
      try {
        const out = new Uint8Array(length);
        for (let done = 0; done < length;) {
          const { bytesRead } = await handle.read(out, done, length - done, offset + done);
          if (bytesRead === 0) throw new Error(`Media ${meta.assetId}: the spool file ended early`);
          done += bytesRead;
        }
        return out;
      } finally {
        await handle.close();
      }
    },
    // Backed by the file: fetch sends it with its length, streaming it from disk.
    blob: () => openAsBlob(filePath, { type: meta.contentType }),
    stream: () => createReadStream(filePath),
    dispose() {
      disposed ??= rm(dir, { recursive: true, force: true });
      return disposed;
    },
  };
  return file;
}

/**
 * A fetcher whose files are disposed together, for one platform call: the caller runs the call with
 * `fetchMedia` and then `dispose()` in a finally. Disposing never throws.
 */
export function mediaScope(fetchMedia: MediaFetcher): { fetchMedia: MediaFetcher; dispose(): Promise<void> } {
  const opened: MediaFile[] = [];
  return {
    fetchMedia: async (item) => {
      const file = await fetchMedia(item);
      opened.push(file);
      return file;
    },
    async dispose() {
      const files = opened.splice(0);
      await Promise.all(files.map((file) => file.dispose().catch(() => undefined)));
    },
  };
}
