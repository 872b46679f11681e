// What a logo file is, judged by its bytes (never by a declared type or a file name): a raster image the
// renderer can use, or an SVG, sanitised. Sizes are read from the file. Everything here decodes or draws
// untrusted bytes: it runs in the render pool's worker threads (infra/visuals/worker.ts), under its deadline.
import { fileTypeFromBuffer } from 'file-type';
import { checkImageDimensions, ImageDimensionsError } from '../images/dimensions.js';
import { NotALogo } from './not-a-logo.js';
import { rasterToPng, rasterizeSvg, sanitizeSvg, SvgTooComplex, svgSize, svgText } from './svg.js';

/** The longest side of the logo the renderer gets (it places logos at a few hundred pixels at most). */
export const renderableLogoLongSide = 1024;

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

export { NotALogo } from './not-a-logo.js';

/**
 * Reads logo files off the request thread: the runtime's is the render pool (api/visuals/renderer-of.ts);
 * `inThreadLogoReader` is for tests that have no pool.
 */
export interface LogoReader {
  /** `readLogoFile`: NotALogo when the bytes are none (or too costly to read). */
  read(bytes: Uint8Array): Promise<LogoFile>;
  /** `renderableLogo`: NotALogo likewise. */
  renderable(bytes: Uint8Array): Promise<RenderableLogo>;
}

export type RenderableLogo = {
  data: Uint8Array;
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
};

export const inThreadLogoReader: LogoReader = {
  read: (bytes) => readLogoFile(bytes),
  renderable: (bytes) => renderableLogo(bytes),
};

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
    // The size from the header, checked against the pixel cap before anything decodes the image.
    let size: { width: number; height: number };
    try {
      size = checkImageDimensions(bytes);
    } catch (error) {
      if (!(error instanceof ImageDimensionsError)) throw error;
      throw new NotALogo(
        error.reason === 'too_large' ? error.message : `the ${type.ext.toUpperCase()} image cannot be read`,
      );
    }
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
  let svg: string | null;
  try {
    svg = sanitizeSvg(text);
  } catch (error) {
    if (error instanceof SvgTooComplex) throw new NotALogo(error.message);
    throw error;
  }
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
 * The bytes the renderer takes (PNG or JPEG): PNG and JPEG as they are when at most renderableLogoLongSide
 * pixels long, otherwise (and WebP and GIF always) redrawn as PNG at that size; an SVG sanitised again and
 * rasterised.
 */
export async function renderableLogo(bytes: Uint8Array): Promise<RenderableLogo> {
  const file = await readLogoFile(bytes);
  if (file.kind === 'svg')
    return { data: file.png.bytes, contentType: 'image/png', width: file.png.width, height: file.png.height };
  const fits = Math.max(file.width, file.height) <= renderableLogoLongSide;
  if (fits && (file.contentType === 'image/png' || file.contentType === 'image/jpeg'))
    return { data: file.bytes, contentType: file.contentType, width: file.width, height: file.height };
  const scale = fits ? 1 : renderableLogoLongSide / Math.max(file.width, file.height);
  const width = Math.max(1, Math.round(file.width * scale));
  const height = Math.max(1, Math.round(file.height * scale));
  return {
    data: rasterToPng(file.bytes, file.contentType, width, height),
    contentType: 'image/png',
    width,
    height,
  };
}
