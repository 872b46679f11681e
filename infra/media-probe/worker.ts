// The media probe's worker thread (piscina): reads an untrusted image's header or a movie header off the request
// thread, under the pool's memory and time limits (infra/media-probe/pool.ts).
import { imageSize } from 'image-size';
import { readMovieHeader, type MovieHeader } from './mp4-header.js';

export type ProbeTask =
  { kind: 'image'; bytes: Uint8Array } | { kind: 'movie'; moov: Uint8Array; fileSize: number };

export type ProbeResult =
  { kind: 'image'; size: { width: number; height: number } | null } | { kind: 'movie'; header: MovieHeader };

/** An image's displayed pixel size from its header (image-size decodes nothing), or null when unreadable. */
export function imageHeaderSize(bytes: Uint8Array): { width: number; height: number } | null {
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

export default function probe(task: ProbeTask): ProbeResult {
  switch (task.kind) {
    case 'image':
      return { kind: 'image', size: imageHeaderSize(task.bytes) };
    case 'movie':
      return { kind: 'movie', header: readMovieHeader(task.moov, task.fileSize) };
  }
}
