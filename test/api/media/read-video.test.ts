// Reading MP4 and MOV files as they stream (commands/media/media-files.ts): the movie header is found after a
// large media-data box without that box being handed to the parser or held in memory, so a 500 MB upload is
// read in a few kilobytes; the header is read in the probe thread, and sample tables that no file of this size
// can hold are refused without anything built per sample. The large file is made in the test from the checked-in clip: its boxes, with the
// media data grown to 300 MiB of zeros streamed past (the header's sample offsets no longer point at samples,
// which the duration and frame size do not need).
import { afterEach, describe, expect, test, vi } from 'vitest';
import { readVideo, readVideoBytes } from '../../../commands/media/media-files.js';
import * as probePool from '../../../infra/media-probe/pool.js';
import { readMovieHeader } from '../../../infra/media-probe/mp4-header.js';
import { mp4Of, sampleBombMp4 } from './mp4-bytes.js';
import { fixture, pngOf } from './support.js';

/** The top-level boxes of an ISO media file: type and bytes. */
function boxesOf(file: Uint8Array): Array<{ type: string; bytes: Uint8Array }> {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const boxes: Array<{ type: string; bytes: Uint8Array }> = [];
  for (let offset = 0; offset < file.byteLength;) {
    const size = view.getUint32(offset);
    const type = String.fromCharCode(...file.subarray(offset + 4, offset + 8));
    boxes.push({ type, bytes: file.subarray(offset, offset + size) });
    offset += size;
  }
  return boxes;
}

const MiB = 1024 * 1024;

/** ftyp, then an mdat of `mdatBytes` zeros (streamed in 1 MiB chunks), then the clip's moov. */
async function* withLargeMediaData(clip: Uint8Array, mdatBytes: number): AsyncGenerator<Uint8Array> {
  const boxes = boxesOf(clip);
  const ftyp = boxes.find((b) => b.type === 'ftyp')!.bytes;
  const moov = boxes.find((b) => b.type === 'moov')!.bytes;
  yield ftyp;
  const header = new Uint8Array(8);
  new DataView(header.buffer).setUint32(0, mdatBytes + 8);
  header.set([0x6d, 0x64, 0x61, 0x74], 4); // 'mdat'
  yield header;
  const zeros = new Uint8Array(MiB);
  for (let sent = 0; sent < mdatBytes; sent += MiB) yield zeros.subarray(0, Math.min(MiB, mdatBytes - sent));
  yield moov;
}

afterEach(() => vi.restoreAllMocks());

describe('readVideo', () => {
  test('finds the movie header after 300 MiB of media data, handing the parser only a few KiB', async () => {
    const clip = fixture('clip.mp4');
    expect(boxesOf(clip).map((b) => b.type)).toContain('moov');
    const probe = vi.spyOn(probePool, 'runProbe');
    const moovBytes = boxesOf(clip).find((b) => b.type === 'moov')!.bytes.byteLength;
    const size =
      clip.byteLength - boxesOf(clip).find((b) => b.type === 'mdat')!.bytes.byteLength + 300 * MiB + 8;
    const info = await readVideo(withLargeMediaData(clip, 300 * MiB), size);
    expect(info).toEqual({
      sniffedType: 'video/mp4',
      movie: { durationSeconds: 2.5, width: 320, height: 240 },
    });
    // Only the movie header went to the probe thread.
    expect(probe).toHaveBeenCalledTimes(1);
    const task = probe.mock.calls[0]![0];
    expect(task.kind === 'movie' && task.moov.byteLength).toBe(moovBytes);
  });

  test('stops reading once the header is parsed when it comes first', async () => {
    const clip = fixture('clip-faststart.mp4');
    let pulled = 0;
    async function* chunks() {
      for (let i = 0; i < clip.byteLength; i += 512) {
        pulled++;
        yield clip.subarray(i, i + 512);
      }
      // Never reached: a reader that waited for the end would hang here.
      for (;;) {
        pulled++;
        yield new Uint8Array(512);
      }
    }
    const info = await readVideo(chunks(), clip.byteLength);
    expect(info.movie).toEqual({ durationSeconds: 1.5, width: 200, height: 100 });
    expect(pulled).toBeLessThan(clip.byteLength / 512 + 2);
  });

  test('a MOV, and bytes that are no movie', async () => {
    expect((await readVideoBytes(fixture('clip.mov'))).movie).toEqual({
      durationSeconds: 3,
      width: 160,
      height: 120,
    });
    expect(await readVideoBytes(pngOf(10, 10))).toEqual({ sniffedType: 'image/png', movie: null });
    expect(await readVideoBytes(new TextEncoder().encode('not a movie'.repeat(500)))).toEqual({
      sniffedType: null,
      movie: null,
    });
  });
});

describe('hostile movie headers', () => {
  test('5.6 KB declaring four billion samples is refused before anything per sample is built', async () => {
    const bomb = sampleBombMp4();
    expect(bomb.byteLength).toBeLessThan(6_000);
    expect(await readVideoBytes(bomb)).toEqual({
      sniffedType: 'video/mp4',
      movie: null,
      refused: { code: 'implausible_sample_table', message: expect.stringContaining('4000000000 samples') },
    });
    // Three million samples in the same 5.6 KB (12 s and 1 GB in mp4box) are refused alike.
    expect((await readVideoBytes(sampleBombMp4(3_000_000))).refused?.code).toBe('implausible_sample_table');
    // The check itself, without the thread: the constant-size table cannot fit the file.
    expect(readMovieHeader(bomb.subarray(32, bomb.byteLength - 5_008), bomb.byteLength)).toMatchObject({
      ok: false,
      code: 'implausible_sample_table',
    });
  });

  test('a table of sizes longer than its box, or adding up to more than the file, is refused', async () => {
    const tooMuch = mp4Of({ sampleSize: 0, sampleCount: 1000, eachSampleBytes: 100, mediaDataBytes: 1000 });
    expect((await readVideoBytes(tooMuch)).refused?.code).toBe('implausible_sample_table');
    const cut = mp4Of({ sampleSize: 0, sampleCount: 10, eachSampleBytes: 1, mediaDataBytes: 100 });
    // The stsz count raised past the entries its box holds.
    const at = indexOf(cut, 'stsz') + 16;
    new DataView(cut.buffer).setUint32(at, 50);
    expect((await readVideoBytes(cut)).refused?.code).toBe('malformed_movie_header');
  });

  test('a long legitimate video: 400 000 samples with a real size table consistent with the file, read cheaply', async () => {
    const samples = 400_000;
    const file = mp4Of({
      sampleSize: 0,
      sampleCount: samples,
      eachSampleBytes: 50,
      mediaDataBytes: samples * 50,
      timescale: 30,
      duration: samples,
    });
    const probe = vi.spyOn(probePool, 'runProbe');
    expect(await readVideoBytes(file)).toEqual({
      sniffedType: 'video/mp4',
      movie: { durationSeconds: 13_333.333, width: 640, height: 360 },
    });
    expect(probe).toHaveBeenCalledTimes(1);
  });

  test('a probe that runs out of time or memory refuses the file; a busy probe thread is a 503', async () => {
    const clip = fixture('clip.mp4');
    const spy = vi.spyOn(probePool, 'runProbe');
    spy.mockRejectedValueOnce(new probePool.ProbeFailed('timeout', 'Reading the file took longer than 10 s'));
    expect((await readVideoBytes(clip)).refused).toEqual({
      code: 'media_too_complex',
      message: expect.stringContaining('took longer'),
    });
    spy.mockRejectedValueOnce(new probePool.ProbeFailed('out_of_memory', 'more memory'));
    expect((await readVideoBytes(clip)).refused?.code).toBe('media_too_complex');
    spy.mockRejectedValueOnce(new probePool.ProbeFailed('busy', 'busy'));
    await expect(readVideoBytes(clip)).rejects.toMatchObject({ status: 503, code: 'media_probe_busy' });
    expect((await readVideoBytes(clip)).movie).toEqual({ durationSeconds: 2.5, width: 320, height: 240 });
  });
});

function indexOf(bytes: Uint8Array, type: string): number {
  const wanted = new TextEncoder().encode(type);
  for (let i = 0; i + 4 <= bytes.byteLength; i++)
    if (wanted.every((b, j) => bytes[i + j] === b)) return i - 4;
  throw new Error(`no ${type}`);
}
