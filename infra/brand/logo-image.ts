// What a logo file is, judged by its bytes (never by a declared type or a file name): a raster image the
// renderer can use, or an SVG, sanitised. Sizes are read from the file.
import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { rasterToPng, rasterizeSvg, sanitizeSvg, svgSize, svgText } from './svg.js';

export const logoRasterTypes = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type LogoRasterType = (typeof logoRasterTypes)[number];

export type LogoFile =
  | { kind: 'raster'; contentType: LogoRasterType; bytes: Uint8Array; width: number; height: number }
  /** `svg` is the sanitised document; `png` its rasterisation (what the media library and the renderer get). */
  | {
      kind: 'svg';
      contentType: 'image/svg+xml';
      svg: string;
      width: number | null;
      height: number | null;
      png: { bytes: Uint8Array; width: number; height: number };
    };

/** Why the bytes are not a usable logo (the message of the 422 on the field). */
export class NotALogo extends Error {}

/**
 * Reads a logo file: PNG, JPEG, WebP or GIF by their signature (with width and height from the header), or an
 * SVG by parsing it (sanitised, and rasterised to check it draws). Throws NotALogo otherwise.
 */
export async function readLogoFile(bytes: Uint8Array): Promise<LogoFile> {
  if (bytes.byteLength === 0) throw new NotALogo('the file is empty');
  const type = await fileTypeFromBuffer(bytes);
  // file-type names any document with an XML declaration `application/xml`: an SVG is told by parsing it.
  if (type && !['application/xml', 'text/xml', 'image/svg+xml'].includes(type.mime)) {
    if (!(logoRasterTypes as readonly string[]).includes(type.mime))
      throw new NotALogo(`the file is ${type.mime}, not a PNG, JPEG, WebP, GIF or SVG image`);
    let size: { width?: number; height?: number };
    try {
      size = imageSize(bytes);
    } catch {
      throw new NotALogo(`the ${type.ext.toUpperCase()} image cannot be read`);
    }
    if (!size.width || !size.height) throw new NotALogo('the image has no size');
    return {
      kind: 'raster',
      contentType: type.mime as LogoRasterType,
      bytes,
      width: size.width,
      height: size.height,
    };
  }
  const text = svgText(bytes);
  if (text === null) throw new NotALogo('the file is not an image (PNG, JPEG, WebP, GIF or SVG)');
  const svg = sanitizeSvg(text);
  if (svg === null) throw new NotALogo('the SVG has nothing left to draw once scripts and links are removed');
  let png: { png: Uint8Array; width: number; height: number };
  try {
    png = rasterizeSvg(svg);
  } catch {
    throw new NotALogo('the SVG cannot be drawn');
  }
  const size = svgSize(svg);
  return {
    kind: 'svg',
    contentType: 'image/svg+xml',
    svg,
    width: size?.width ?? null,
    height: size?.height ?? null,
    png: { bytes: png.png, width: png.width, height: png.height },
  };
}

/**
 * The bytes the renderer takes (PNG or JPEG): PNG and JPEG as they are, WebP and GIF redrawn as PNG, an SVG
 * sanitised again and rasterised.
 */
export async function renderableLogo(
  bytes: Uint8Array,
): Promise<{ data: Uint8Array; contentType: 'image/png' | 'image/jpeg'; width: number; height: number }> {
  const file = await readLogoFile(bytes);
  if (file.kind === 'svg')
    return { data: file.png.bytes, contentType: 'image/png', width: file.png.width, height: file.png.height };
  if (file.contentType === 'image/png' || file.contentType === 'image/jpeg')
    return { data: file.bytes, contentType: file.contentType, width: file.width, height: file.height };
  return {
    data: rasterToPng(file.bytes, file.contentType, file.width, file.height),
    contentType: 'image/png',
    width: file.width,
    height: file.height,
  };
}
