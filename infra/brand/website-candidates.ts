// What a website answer holds and its bounds (spec part 2, `GET ORG/brand/kit/website`), apart from the parser
// (website-parse.ts, which loads cheerio and postcss in the website worker thread) so that the request path and
// the OpenAPI schemas use them without loading the parser.

export const colorSources = ['theme-color', 'css-variable', 'stylesheet', 'inline'] as const;
export type ColorSource = (typeof colorSources)[number];
export const logoSources = ['structured-data', 'og:logo', 'img', 'apple-touch-icon', 'icon'] as const;
export type LogoSource = (typeof logoSources)[number];
export const imageSources = ['og:image', 'twitter:image'] as const;
export type ImageSource = (typeof imageSources)[number];
export const fontSources = ['google-fonts', 'css'] as const;
export type FontSource = (typeof fontSources)[number];

export interface ColorCandidate {
  hex: string;
  source: ColorSource;
  /** The custom property's name for `css-variable` (`--brand-blue`), else null. */
  detail: string | null;
  uses: number;
  /** Near white, black or grey (low chroma): a background or text colour rather than a brand colour. */
  neutral: boolean;
}

export interface WebsiteSuggestion {
  website: string;
  colors?: { primary?: string; secondary?: string; accent?: string; background?: string };
  headingFont?: string;
  bodyFont?: string;
  logo?: { url: string };
}

export interface WebsiteCandidates {
  websiteUrl: string;
  reachable: boolean;
  siteName: string | null;
  tagline: string | null;
  colors: ColorCandidate[];
  logos: { url: string; source: LogoSource }[];
  images: { url: string; source: ImageSource }[];
  fonts: { family: string; source: FontSource }[];
  suggestion: WebsiteSuggestion;
}

// What an answer may hold: a few KB whatever the page (worst case well under 16 KiB, see maxAnswerBytes).
/** Colour candidates answered, most used first. */
export const maxColors = 16;
/** Logo candidates answered, the most telling sources first. */
export const maxLogos = 6;
/** og/twitter images answered. */
export const maxImages = 4;
/** Font candidates answered. */
export const maxFonts = 10;
/** A logo, image or stylesheet URL longer than this is left out (a cut URL would name something else). */
export const maxUrlLength = 512;
/** Site names are cut to this many characters, taglines to maxTaglineLength. */
export const maxSiteNameLength = 100;
export const maxTaglineLength = 200;
/** A font family or custom property name longer than this is not a name a brand uses; it is left out. */
export const maxFamilyLength = 64;
export const maxDetailLength = 64;
/** Whatever the page, the JSON of an answer stays under this size (the input URL itself is at most 2048). */
export const maxAnswerBytes = 16 * 1024;
