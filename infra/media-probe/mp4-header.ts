// Reads an MP4/MOV movie header (`moov`) without a general parser: the duration, the first video track's frame
// size, and a plausibility check of every sample table against the file's size. Nothing per sample is built
// (a table is only counted and summed), so a hostile header declaring billions of samples costs what its bytes
// cost to walk, and a long legitimate video stays cheap.

/** The movie header read, or why it is refused. */
export type MovieHeader =
  | { ok: true; movie: { durationSeconds: number; width: number; height: number } | null }
  | { ok: false; code: 'implausible_sample_table' | 'malformed_movie_header'; message: string };

interface Box {
  type: string;
  /** Offset of the payload (after the header) and its end, within the buffer. */
  start: number;
  end: number;
}

class Refused extends Error {
  constructor(
    readonly code: 'implausible_sample_table' | 'malformed_movie_header',
    message: string,
  ) {
    super(message);
  }
}

const malformed = (what: string) =>
  new Refused('malformed_movie_header', `The movie header is malformed: ${what}`);

/** The boxes directly inside [start, end). */
function childBoxes(view: DataView, start: number, end: number): Box[] {
  const boxes: Box[] = [];
  let offset = start;
  while (offset + 8 <= end) {
    let size = view.getUint32(offset);
    const type = fourCc(view, offset + 4);
    let header = 8;
    if (size === 1) {
      if (offset + 16 > end) throw malformed(`${type} is cut short`);
      const large = view.getBigUint64(offset + 8);
      if (large > BigInt(end - offset)) throw malformed(`${type} is larger than its container`);
      size = Number(large);
      header = 16;
    } else if (size === 0) {
      size = end - offset;
    }
    if (size < header || offset + size > end) throw malformed(`${type} does not fit its container`);
    boxes.push({ type, start: offset + header, end: offset + size });
    offset += size;
  }
  return boxes;
}

function fourCc(view: DataView, offset: number): string {
  return String.fromCharCode(
    view.getUint8(offset),
    view.getUint8(offset + 1),
    view.getUint8(offset + 2),
    view.getUint8(offset + 3),
  );
}

const child = (view: DataView, box: Box | undefined, type: string) =>
  box ? childBoxes(view, box.start, box.end).find((b) => b.type === type) : undefined;

function need(box: Box, bytes: number): void {
  if (box.end - box.start < bytes) throw malformed(`${box.type} is cut short`);
}

/**
 * Refuses a sample table that cannot describe a file of `fileSize` bytes: a table whose entries do not fit its
 * box, more samples (or chunks) than the file has bytes, or constant-size samples adding up to more than the file.
 */
function checkSampleTables(view: DataView, stbl: Box, fileSize: number): void {
  const implausible = (what: string) =>
    new Refused(
      'implausible_sample_table',
      `The movie header declares ${what}, more than a file of ${fileSize} bytes can hold`,
    );
  const table = (box: Box, headerBytes: number, count: number, entryBytes: number) => {
    if (count * entryBytes > box.end - box.start - headerBytes)
      throw malformed(`${box.type} declares ${count} entries its box does not hold`);
  };
  for (const box of childBoxes(view, stbl.start, stbl.end)) {
    switch (box.type) {
      case 'stsz': {
        need(box, 12);
        const sampleSize = view.getUint32(box.start + 4);
        const count = view.getUint32(box.start + 8);
        if (count > fileSize) throw implausible(`${count} samples`);
        if (sampleSize > 0) {
          if (sampleSize * count > fileSize) throw implausible(`${count} samples of ${sampleSize} bytes`);
        } else {
          table(box, 12, count, 4);
          let total = 0;
          for (let i = 0; i < count; i++) total += view.getUint32(box.start + 12 + i * 4);
          if (total > fileSize) throw implausible(`${total} bytes of samples`);
        }
        break;
      }
      case 'stz2': {
        need(box, 12);
        const fieldBits = view.getUint8(box.start + 7);
        const count = view.getUint32(box.start + 8);
        if (fieldBits !== 4 && fieldBits !== 8 && fieldBits !== 16)
          throw malformed(`stz2 field size ${fieldBits}`);
        if (count > fileSize) throw implausible(`${count} samples`);
        table(box, 12, Math.ceil((count * fieldBits) / 8), 1);
        break;
      }
      case 'stts':
      case 'ctts': {
        need(box, 8);
        const entries = view.getUint32(box.start + 4);
        table(box, 8, entries, 8);
        let samples = 0;
        for (let i = 0; i < entries; i++) samples += view.getUint32(box.start + 8 + i * 8);
        if (samples > fileSize) throw implausible(`${samples} samples in ${box.type}`);
        break;
      }
      case 'stsc': {
        need(box, 8);
        const entries = view.getUint32(box.start + 4);
        table(box, 8, entries, 12);
        for (let i = 0; i < entries; i++) {
          const perChunk = view.getUint32(box.start + 8 + i * 12 + 4);
          if (perChunk > fileSize) throw implausible(`${perChunk} samples per chunk`);
        }
        break;
      }
      case 'stco':
      case 'co64':
      case 'stss': {
        need(box, 8);
        const entries = view.getUint32(box.start + 4);
        if (entries > fileSize) throw implausible(`${entries} entries in ${box.type}`);
        table(box, 8, entries, box.type === 'co64' ? 8 : 4);
        break;
      }
      default:
        break;
    }
  }
}

/** Version-dependent fields of a full box: the 32- or 64-bit value at the offsets given for each version. */
function uintAt(view: DataView, offset: number, wide: boolean): number {
  return wide ? Number(view.getBigUint64(offset)) : view.getUint32(offset);
}

/**
 * Reads a `moov` box (`moov`: its bytes, header included) of a file of `fileSize` bytes: the movie's duration
 * (mvhd, else the video track's mdhd) and the first video track's frame size (its sample entry, else tkhd).
 */
export function readMovieHeader(moov: Uint8Array, fileSize: number): MovieHeader {
  try {
    const view = new DataView(moov.buffer, moov.byteOffset, moov.byteLength);
    const top = childBoxes(view, 0, moov.byteLength);
    const movie = top.find((b) => b.type === 'moov');
    if (!movie) return { ok: true, movie: null };
    let durationSeconds = 0;
    const mvhd = child(view, movie, 'mvhd');
    if (mvhd) {
      need(mvhd, 4);
      const wide = view.getUint8(mvhd.start) === 1;
      need(mvhd, wide ? 32 : 20);
      const timescale = view.getUint32(mvhd.start + (wide ? 20 : 12));
      const duration = uintAt(view, mvhd.start + (wide ? 24 : 16), wide);
      if (timescale > 0) durationSeconds = duration / timescale;
    }
    let video: { width: number; height: number; durationSeconds: number } | undefined;
    for (const trak of childBoxes(view, movie.start, movie.end).filter((b) => b.type === 'trak')) {
      const mdia = child(view, trak, 'mdia');
      const stbl = child(view, child(view, mdia, 'minf'), 'stbl');
      // Every track's tables are checked, not only the video's: a parser later handed the file reads them all.
      if (stbl) checkSampleTables(view, stbl, fileSize);
      if (video) continue;
      const hdlr = child(view, mdia, 'hdlr');
      if (!hdlr || hdlr.end - hdlr.start < 12 || fourCc(view, hdlr.start + 8) !== 'vide') continue;
      let width = 0;
      let height = 0;
      const stsd = child(view, stbl, 'stsd');
      if (stsd && stsd.end - stsd.start >= 8 && view.getUint32(stsd.start + 4) > 0) {
        const entry = childBoxes(view, stsd.start + 8, stsd.end)[0];
        if (entry && entry.end - entry.start >= 28) {
          width = view.getUint16(entry.start + 24);
          height = view.getUint16(entry.start + 26);
        }
      }
      const tkhd = child(view, trak, 'tkhd');
      if ((width === 0 || height === 0) && tkhd) {
        const wide = view.getUint8(tkhd.start) === 1;
        const at = wide ? 88 : 76;
        need(tkhd, at + 8);
        width = view.getUint32(tkhd.start + at) / 65536;
        height = view.getUint32(tkhd.start + at + 4) / 65536;
      }
      let trackSeconds = 0;
      const mdhd = child(view, mdia, 'mdhd');
      if (mdhd) {
        const wide = view.getUint8(mdhd.start) === 1;
        need(mdhd, wide ? 32 : 20);
        const timescale = view.getUint32(mdhd.start + (wide ? 20 : 12));
        const duration = uintAt(view, mdhd.start + (wide ? 24 : 16), wide);
        if (timescale > 0) trackSeconds = duration / timescale;
      }
      video = { width: Math.floor(width), height: Math.floor(height), durationSeconds: trackSeconds };
    }
    const seconds = durationSeconds > 0 ? durationSeconds : (video?.durationSeconds ?? 0);
    return {
      ok: true,
      movie:
        video && video.width > 0 && video.height > 0 && seconds > 0
          ? { durationSeconds: Math.round(seconds * 1000) / 1000, width: video.width, height: video.height }
          : null,
    };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, code: error.code, message: error.message };
    if (error instanceof RangeError)
      return {
        ok: false,
        code: 'malformed_movie_header',
        message: 'The movie header is malformed: cut short',
      };
    throw error;
  }
}
