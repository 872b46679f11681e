// An image's pixel size read from its header only (never decoded), checked against the pixel cap before anything
// decodes it: a 48 KB PNG may declare 20000×20000 and take gigabytes to decode. Shared by visuals, brand and media.
import { imageSize } from 'image-size';

/**
 * The most pixels an image handed to a decoder may have: 50 megapixels (a 48 MP phone photo fits; 200 MB as RGBA).
 * One cap for every way an image enters (media library, visuals, brand), so what the library keeps can be drawn.
 */
export const maxImagePixels = 50_000_000;
/** The longest side an image handed to a decoder may have, in pixels. */
export const maxImageSide = 16_384;

export interface ImageDimensionLimits {
  maxPixels: number;
  maxSide: number;
}
export const imageDimensionLimits: ImageDimensionLimits = {
  maxPixels: maxImagePixels,
  maxSide: maxImageSide,
};

export type RasterFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface ImageDimensions {
  width: number;
  height: number;
  format: RasterFormat;
}

/**
 * Why an image is refused before decoding: not one of the raster formats (`unsupported`), a header that gives
 * no size (`unreadable`), or more pixels or a longer side than the cap (`too_large`, with the declared size).
 */
export class ImageDimensionsError extends Error {
  constructor(
    readonly reason: 'unsupported' | 'unreadable' | 'too_large',
    message: string,
    readonly declared?: { width: number; height: number },
  ) {
    super(message);
    this.name = 'ImageDimensionsError';
  }
}

/** The format by signature (the header readers are only ever given the format they read). */
function formatOf(bytes: Uint8Array): RasterFormat | null {
  const at = (i: number) => bytes[i];
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return 'png';
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'jpeg';
  if (at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x38) return 'gif';
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 16 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return null;
}

/**
 * Width, height and format of a PNG, JPEG, GIF or WebP from its header (a linear scan at most: JPEG's segment
 * markers), or ImageDimensionsError: other formats, an unreadable header, or a size past `limits` (by default
 * maxImagePixels and maxImageSide).
 */
export function checkImageDimensions(
  bytes: Uint8Array,
  limits: ImageDimensionLimits = imageDimensionLimits,
): ImageDimensions {
  const format = formatOf(bytes);
  if (!format) throw new ImageDimensionsError('unsupported', 'not a PNG, JPEG, GIF or WebP image');
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    throw new ImageDimensionsError('unreadable', `the ${format.toUpperCase()} header cannot be read`);
  }
  const width = size.width ?? 0;
  const height = size.height ?? 0;
  if (!Number.isSafeInteger(width) || !Number.isSafeInteger(height) || width < 1 || height < 1)
    throw new ImageDimensionsError('unreadable', `the ${format.toUpperCase()} header gives no size`);
  if (width > limits.maxSide || height > limits.maxSide || width * height > limits.maxPixels)
    throw new ImageDimensionsError(
      'too_large',
      `the image is ${width}×${height} pixels; at most ${limits.maxSide} pixels a side and ` +
        `${Math.round(limits.maxPixels / 1_000_000)} megapixels are accepted`,
      { width, height },
    );
  return { width, height, format };
}
