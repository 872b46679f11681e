// MP4 files built box by box in the tests: a one-track movie whose sample tables say what the test needs, e.g.
// a 5.6 KB file declaring four billion constant-size samples (the audit's process-killer), or a long video whose
// tables are as large as its media data makes plausible.

function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const size = 8 + parts.reduce((sum, part) => sum + part.byteLength, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, size);
  out.set(new TextEncoder().encode(type), 4);
  let offset = 8;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** Big-endian 32-bit words. */
function u32(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  values.forEach((value, i) => view.setUint32(i * 4, value));
  return out;
}

const bytes = (length: number) => new Uint8Array(length);

export interface Mp4Options {
  /** stsz: a constant size for every sample, or 0 with `sampleSizes` listed. */
  sampleSize: number;
  sampleCount: number;
  /** With sampleSize 0: every sample's size (one value repeated for all samples). */
  eachSampleBytes?: number;
  /** Bytes of media data after the movie header (zeros). */
  mediaDataBytes: number;
  width?: number;
  height?: number;
  /** Timescale ticks per second and duration in ticks (mvhd and mdhd). */
  timescale?: number;
  duration?: number;
}

/** ftyp, moov (faststart), then an mdat of zeros: one video track with the sample tables asked for. */
export function mp4Of(options: Mp4Options): Uint8Array {
  const width = options.width ?? 640;
  const height = options.height ?? 360;
  const timescale = options.timescale ?? 1000;
  const duration = options.duration ?? 10_000;
  const ftyp = box(
    'ftyp',
    new TextEncoder().encode('isom'),
    u32(512),
    new TextEncoder().encode('isomiso2avc1mp41'),
  );
  const matrix = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);
  const mvhd = box(
    'mvhd',
    u32(0, 0, 0, timescale, duration, 0x10000),
    new Uint8Array([1, 0]),
    bytes(10),
    matrix,
    bytes(24),
    u32(2),
  );
  const tkhd = box(
    'tkhd',
    u32(3, 0, 0, 1, 0, duration),
    bytes(8),
    bytes(8),
    matrix,
    u32(width << 16, height << 16),
  );
  const mdhd = box('mdhd', u32(0, 0, 0, timescale, duration), bytes(4));
  const hdlr = box(
    'hdlr',
    u32(0, 0),
    new TextEncoder().encode('vide'),
    bytes(12),
    new TextEncoder().encode('video\0'),
  );
  const visual = new Uint8Array(78);
  const visualView = new DataView(visual.buffer);
  visualView.setUint16(6, 1); // data reference index
  visualView.setUint16(24, width);
  visualView.setUint16(26, height);
  visualView.setUint32(28, 0x480000);
  visualView.setUint32(32, 0x480000);
  visualView.setUint16(40, 1); // frame count
  visualView.setUint16(74, 0x18); // depth
  visualView.setInt16(76, -1);
  const stsd = box('stsd', u32(0, 1), box('avc1', visual));
  const stts = box('stts', u32(0, 1, options.sampleCount, 1));
  const stsc = box('stsc', u32(0, 1, 1, Math.max(1, options.sampleCount), 1));
  const table =
    options.sampleSize === 0
      ? (() => {
          const sizes = new Uint8Array(options.sampleCount * 4);
          const view = new DataView(sizes.buffer);
          for (let i = 0; i < options.sampleCount; i++) view.setUint32(i * 4, options.eachSampleBytes ?? 1);
          return sizes;
        })()
      : bytes(0);
  const stsz = box('stsz', u32(0, options.sampleSize, options.sampleCount), table);
  const stco = box('stco', u32(0, 1, 0));
  const stbl = box('stbl', stsd, stts, stsc, stsz, stco);
  const vmhd = box('vmhd', u32(1), bytes(8));
  const dinf = box('dinf', box('dref', u32(0, 1), box('url ', u32(1))));
  const moov = box('moov', mvhd, box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', vmhd, dinf, stbl))));
  const mdat = box('mdat', bytes(options.mediaDataBytes));
  const file = new Uint8Array(ftyp.byteLength + moov.byteLength + mdat.byteLength);
  file.set(ftyp, 0);
  file.set(moov, ftyp.byteLength);
  file.set(mdat, ftyp.byteLength + moov.byteLength);
  // The only chunk starts right after the mdat header.
  new DataView(file.buffer).setUint32(
    ftyp.byteLength + moov.byteLength - 4,
    ftyp.byteLength + moov.byteLength + 8,
  );
  return file;
}

/** The audit's file: 5.6 KB declaring four billion samples of 1 byte (mp4box built one object per sample). */
export function sampleBombMp4(sampleCount = 4_000_000_000): Uint8Array {
  return mp4Of({ sampleSize: 1, sampleCount, mediaDataBytes: 5_000 });
}
