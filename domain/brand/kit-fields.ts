// Checking an edit of the brand kit field by field, before anything is saved: every bad field gives one problem
// (all of them are collected), the good ones come out in their stored form. The logo is checked by the use case
// (it is fetched or looked up); this file reads only the shape of its reference.
import { formatHex, parse, wcagContrast } from 'culori';
import type { ErrorDetail } from '../shared/errors.js';
import {
  defaultBodyFont,
  defaultHeadingFont,
  fontFamilyNames,
  installedFontFamily,
  type FontFamily,
} from './fonts.js';
import {
  brandColorKeys,
  maxTaglineLength,
  type BrandColors,
  type BrandKitChanges,
  type BrandKitFields,
} from './brand-kit.js';

/** An edit as a caller sends it (spec: `PATCH ORG/brand/kit`); omitted fields stay, null clears. */
export interface BrandKitEdit {
  colors?: Partial<Record<keyof BrandColors, string | null>>;
  headingFont?: string | null;
  bodyFont?: string | null;
  logo?: LogoReference | null;
  tagline?: string | null;
  website?: string | null;
}

/** Where a new logo comes from: a link to download, or an image already in the workspace's media library. */
export type LogoReference = { url: string } | { assetId: string };

/** A CSS colour as `#rrggbb` (lower-case), or a reason it cannot be one. */
export function normalizeColor(input: string): { hex: string } | { problem: string } {
  const text = input.trim();
  const parsed = text === '' ? undefined : parse(text);
  if (!parsed)
    return {
      problem: `"${input}" is not a colour; use a CSS colour such as #1a73e8, #fff, rgb(26 115 232), hsl(217 82% 51%) or a name like navy`,
    };
  if (parsed.alpha !== undefined && parsed.alpha < 1)
    return { problem: `"${input}" is (partly) transparent; brand colours must be opaque` };
  return { hex: formatHex(parsed).toLowerCase() };
}

/** An installed font family (stored as it is named here), or the problem with a few names to choose from. */
export function normalizeFont(input: string): { family: FontFamily } | { problem: string } {
  const family = installedFontFamily(input);
  if (family) return { family };
  const some = fontFamilyNames.slice(0, 6).join(', ');
  return {
    problem: `"${input}" is not an installed font; choose one of the ${fontFamilyNames.length} installed families, e.g. ${some} (all are listed by list_visual_options)`,
  };
}

/** An absolute http(s) URL, normalised (`https://example.com/`), or the problem (`what` names it). */
export function normalizeHttpUrl(input: string, what: string): { url: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { problem: `"${input}" is not a URL; give the full address, e.g. https://example.com` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { problem: `${what} must be an http or https address (got ${url.protocol})` };
  if (url.username || url.password)
    return { problem: `${what} address must not carry a user name or password` };
  return { url: url.toString() };
}

/** The website as stored: an http(s) URL of a named host (`https://example.com/`), or the problem. */
export function normalizeWebsite(input: string): { url: string } | { problem: string } {
  const result = normalizeHttpUrl(input, 'the website');
  if ('problem' in result) return result;
  const host = new URL(result.url).hostname;
  if (!host.includes('.') && !host.startsWith('['))
    return {
      problem: `"${host}" is not a public host name; give the site's full address, e.g. https://example.com`,
    };
  return result;
}

export interface CheckedEdit {
  /** The edit's fields in stored form, the logo excepted. */
  changes: Omit<BrandKitChanges, 'logo'>;
  /** The logo reference to check and store (absent: unchanged; null: clear). */
  logo?: LogoReference | null;
  /** One per bad field, named as in the edit (`colors.primary`, `headingFont`, `logo.url`). */
  problems: ErrorDetail[];
}

/** Checks every field of an edit except the logo's target (see the use case) and collects every problem. */
export function checkEdit(edit: BrandKitEdit): CheckedEdit {
  const problems: ErrorDetail[] = [];
  const changes: Omit<BrandKitChanges, 'logo'> = {};
  if (edit.colors !== undefined) {
    const colors: Partial<BrandColors> = {};
    for (const key of brandColorKeys) {
      const value = edit.colors[key];
      if (value === undefined) continue;
      if (value === null) {
        colors[key] = null;
        continue;
      }
      const result = normalizeColor(value);
      if ('hex' in result) colors[key] = result.hex;
      else problems.push({ path: `colors.${key}`, message: result.problem });
    }
    changes.colors = colors;
  }
  for (const key of ['headingFont', 'bodyFont'] as const) {
    const value = edit[key];
    if (value === undefined) continue;
    if (value === null || value.trim() === '') {
      changes[key] = null;
      continue;
    }
    const result = normalizeFont(value);
    if ('family' in result) changes[key] = result.family;
    else problems.push({ path: key, message: result.problem });
  }
  if (edit.tagline !== undefined) {
    const tagline = edit.tagline === null ? null : edit.tagline.trim();
    if (tagline !== null && tagline.length > maxTaglineLength)
      problems.push({
        path: 'tagline',
        message: `at most ${maxTaglineLength} characters (this one has ${tagline.length})`,
      });
    else changes.tagline = tagline === '' ? null : tagline;
  }
  if (edit.website !== undefined) {
    if (edit.website === null || edit.website.trim() === '') changes.website = null;
    else {
      const result = normalizeWebsite(edit.website);
      if ('url' in result) changes.website = result.url;
      else problems.push({ path: 'website', message: result.problem });
    }
  }
  const checked: CheckedEdit = { changes, problems };
  if (edit.logo !== undefined) {
    const logo = edit.logo;
    if (logo === null) checked.logo = null;
    else if ('url' in logo) {
      const result = normalizeHttpUrl(logo.url, 'the logo');
      if ('url' in result) checked.logo = { url: result.url };
      else problems.push({ path: 'logo.url', message: result.problem });
    } else checked.logo = { assetId: logo.assetId };
  }
  return checked;
}

export interface KitWarning {
  field: string;
  code: string;
  message: string;
}

/** Logos narrower or lower than this look blurred on a 1080-pixel visual. */
export const smallLogoPixels = 200;
/** WCAG AA for normal text. */
export const minimumContrast = 4.5;

/** What is allowed but will not look as meant: low contrast, a small logo. */
export function kitWarnings(kit: BrandKitFields): KitWarning[] {
  const warnings: KitWarning[] = [];
  const { primary, secondary, accent, background } = kit.colors;
  const contrast = (field: string, color: string | null, name: string) => {
    if (color === null || background === null) return;
    const ratio = wcagContrast(color, background);
    if (ratio < minimumContrast)
      warnings.push({
        field,
        code: 'low_contrast',
        message: `The ${name} colour ${color} on the background ${background} has a contrast of ${ratio.toFixed(2)}:1, below ${minimumContrast}:1 (WCAG AA); visuals use a darker or lighter shade for text on it`,
      });
  };
  contrast('colors.primary', primary, 'primary');
  contrast('colors.secondary', secondary, 'secondary');
  contrast('colors.accent', accent, 'accent');
  const logo = kit.logo;
  if (logo && logo.contentType !== 'image/svg+xml' && logo.width !== null && logo.height !== null) {
    if (Math.min(logo.width, logo.height) < smallLogoPixels)
      warnings.push({
        field: 'logo',
        code: 'small_logo',
        message: `The logo is ${logo.width}×${logo.height} pixels; below ${smallLogoPixels} pixels on its shorter side it may look blurred on visuals. An SVG or a larger PNG looks sharper`,
      });
  }
  if (kit.headingFont === null && kit.bodyFont !== null)
    warnings.push({
      field: 'headingFont',
      code: 'font_fallback',
      message: `No heading font is set: headings use ${defaultHeadingFont}, the default, next to ${kit.bodyFont} for body text`,
    });
  if (kit.bodyFont === null && kit.headingFont !== null)
    warnings.push({
      field: 'bodyFont',
      code: 'font_fallback',
      message: `No body font is set: body text uses ${defaultBodyFont}, the default, under ${kit.headingFont} headings`,
    });
  return warnings;
}
