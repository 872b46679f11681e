// Hostile image files built in the tests (never checked in as blobs): headers that declare huge sizes over a few
// bytes of data (a decoder allocates for the declared size before it finds the data missing), and SVG logos that
// cost minutes to draw.
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A well-formed PNG whose IHDR declares width×height (8-bit grey) with a tiny IDAT: ~60 bytes. */
export function pngDeclaring(width: number, height: number): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.alloc(64))),
      chunk('IEND', new Uint8Array()),
    ]),
  );
}

/** A 29-byte GIF declaring a width×height screen and one frame of that size. */
export function gifDeclaring(width: number, height: number): Uint8Array {
  const le = (n: number) => [n & 0xff, n >> 8];
  return new Uint8Array([
    ...Buffer.from('GIF89a', 'ascii'),
    ...le(width),
    ...le(height),
    0x00, // no global colour table
    0x00,
    0x00,
    0x2c, // image descriptor
    ...le(0),
    ...le(0),
    ...le(width),
    ...le(height),
    0x00,
    0x02, // LZW minimum code size
    0x02, // one sub-block of two bytes
    0x4c,
    0x01,
    0x00, // block terminator
    0x3b, // trailer
  ]);
}

/** An SVG logo of `blurs` stacked blurs over a filter region `regionFactor` times its element (~300 bytes). */
export function stackedBlurSvg(blurs: number, regionFactor = 20): string {
  const offset = -(regionFactor - 1) / 2;
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">' +
    `<filter id="f" x="${offset}" y="${offset}" width="${regionFactor}" height="${regionFactor}">` +
    '<feGaussianBlur stdDeviation="50"/>'.repeat(blurs) +
    '</filter><rect width="100" height="100" fill="#e4572e" filter="url(#f)"/></svg>'
  );
}

/** An SVG filling its drawing with a pattern whose tile is 100000 units a side (a 4 TB pixmap to resvg). */
export const hugePatternSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">' +
  '<pattern id="p" patternUnits="userSpaceOnUse" width="100000" height="100000">' +
  '<rect width="100000" height="100000" fill="#e4572e"/></pattern>' +
  '<rect width="100" height="100" fill="url(#p)"/><circle cx="50" cy="50" r="20" fill="#00ff00"/></svg>';
