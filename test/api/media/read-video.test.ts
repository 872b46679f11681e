// Reading MP4 and MOV files as they stream (commands/media/media-files.ts): the movie header is found after a
// large media-data box without that box being handed to the parser or held in memory, so a 500 MB upload is
// read in a few kilobytes. The large file is made in the test from the checked-in clip: its boxes, with the
// media data grown to 300 MiB of zeros streamed past (the header's sample offsets no longer point at samples,
// which the duration and frame size do not need).
import * as mp4box from 'mp4box';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { readVideo, readVideoBytes } from '../../../commands/media/media-files.js';
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
    const append = vi.spyOn(mp4box.ISOFile.prototype, 'appendBuffer');
    const info = await readVideo(withLargeMediaData(clip, 300 * MiB));
    expect(info).toEqual({
      sniffedType: 'video/mp4',
      movie: { durationSeconds: 2.5, width: 320, height: 240 },
    });
    const fed = append.mock.calls.reduce((sum, [buffer]) => sum + buffer.byteLength, 0);
    expect(fed).toBeLessThan(64 * 1024);
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
    const info = await readVideo(chunks());
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
