// What the branded-visuals use cases take (spec part 1, "Branded visuals"), after the API's schema checks, and
// the checks across fields that every entry point (route, assistant tool, preview) gets alike. Refusals name the
// fields in the request's terms under `prefix` (`aiBackground.model`, `slides.3.stat`; a preview's
// `content.slides.3.stat`).
import { InvalidFields, Unprocessable, type ErrorDetail } from '../../domain/shared/errors.js';
import {
  maxCarouselSlides,
  minCarouselSlides,
  type CarouselLayoutId,
  type ScreenshotLayoutId,
  type TemplateId,
  type ThemeId,
  type VisualContent,
  type VisualFormatId,
  type carouselFormatIds,
  type screenshotFormatIds,
} from '../../infra/visuals/contract.js';
import { unsupportedCharacters } from '../../infra/visuals/fonts.js';

export interface AssetOrUrl {
  assetId?: string | undefined;
  url?: string | undefined;
}

export interface AiBackgroundInput {
  prompt: string;
  model?: string | undefined;
}

interface CommonInput {
  theme?: ThemeId | undefined;
  includeLogo?: boolean | undefined;
  handle?: string | null | undefined;
}

export interface ImageVisualInput extends CommonInput {
  content: VisualContent;
  template?: TemplateId | undefined;
  format?: VisualFormatId | undefined;
  backgroundImage?: AssetOrUrl | undefined;
  aiBackground?: AiBackgroundInput | undefined;
  alsoFormats?: VisualFormatId[] | undefined;
  outputs?: ImageOutput[] | undefined;
}

export interface CarouselSlideInput extends VisualContent {
  layout?: CarouselLayoutId | undefined;
}

export interface CarouselVisualInput extends CommonInput {
  slides: CarouselSlideInput[];
  format?: (typeof carouselFormatIds)[number] | undefined;
  aiBackground?: AiBackgroundInput | undefined;
  outputs?: CarouselOutput[] | undefined;
}

export type ScreenshotFormatId = (typeof screenshotFormatIds)[number];

export interface ScreenshotVisualInput extends CommonInput {
  screenshot: AssetOrUrl;
  layout?: ScreenshotLayoutId | undefined;
  format?: ScreenshotFormatId | undefined;
  content?:
    { eyebrow?: string | undefined; title?: string | undefined; body?: string | undefined } | undefined;
  addressBar?: string | null | undefined;
  windowTheme?: 'auto' | 'light' | 'dark' | undefined;
  crop?: { zoom: number; focusX: number; focusY: number } | undefined;
  alsoFormats?: ScreenshotFormatId[] | undefined;
  outputs?: ImageOutput[] | undefined;
}

/** What a render stores: images and screenshots are PNGs; a carousel is PNG slides and/or one PDF. */
export const imageOutputs = ['png'] as const;
export type ImageOutput = (typeof imageOutputs)[number];
export const carouselOutputs = ['png', 'pdf'] as const;
export type CarouselOutput = (typeof carouselOutputs)[number];

/** Collects refusals and throws them together, so a client fixes every field at once. */
export class FieldProblems {
  private readonly details: ErrorDetail[] = [];
  constructor(private readonly prefix: string) {}
  add(path: string, message: string): void {
    this.details.push({ path: this.prefix + path, message });
  }
  throwIfAny(): void {
    if (this.details.length > 0)
      throw new InvalidFields(this.details.map((d) => `${d.path}: ${d.message}`).join('; '), this.details);
  }
}

/** At most this many of a field's undrawable characters are named in its refusal. */
const charactersNamed = 5;
const drawableScripts = 'Latin, Greek, Cyrillic and Vietnamese letters, and emoji';

/**
 * Text the renderer cannot draw (CJK, Arabic, Hebrew, Devanagari, Thai…, or an emoji Twemoji lacks) would show
 * as empty boxes: such text is refused with 422 `unsupported_characters`, one error per field (in the
 * input's terms, `content.title`, `slides.2.body`), before anything is stored or charged.
 */
class CharacterProblems {
  private readonly details: ErrorDetail[] = [];
  constructor(private readonly prefix: string) {}
  check(path: string, text: string | null | undefined): void {
    if (!text) return;
    const found = unsupportedCharacters(text);
    if (found.length === 0) return;
    const named = found
      .slice(0, charactersNamed)
      .map((c) => `"${c}"`)
      .join(', ');
    const more = found.length > charactersNamed ? ` and ${found.length - charactersNamed} more` : '';
    this.details.push({
      path: `${this.prefix}${path}`,
      message: `cannot be drawn: ${named}${more}; visuals support ${drawableScripts}`,
    });
  }
  content(path: string, content: Partial<VisualContent> | undefined): void {
    if (!content) return;
    for (const key of ['eyebrow', 'title', 'body', 'stat', 'attribution', 'cta'] as const)
      this.check(`${path}${key}`, content[key]);
    content.bullets?.forEach((bullet, i) => this.check(`${path}bullets.${i}`, bullet));
  }
  throwIfAny(): void {
    if (this.details.length > 0) throw new UnsupportedCharacters(this.details);
  }
}

/** The 422 of undrawable text; its message names the fields as its details do (where the caller sent them). */
class UnsupportedCharacters extends Unprocessable {
  constructor(details: ErrorDetail[]) {
    super(UnsupportedCharacters.messageOf(details), 'unsupported_characters', details);
  }

  override withDetails(details: ErrorDetail[]): this {
    const located = super.withDetails(details);
    located.message = UnsupportedCharacters.messageOf(details);
    return located;
  }

  private static messageOf(details: readonly ErrorDetail[]): string {
    return (
      `Some text has characters the visuals cannot draw (${details.map((d) => d.path).join(', ')}): ` +
      `visuals support ${drawableScripts}`
    );
  }
}

function checkAssetOrUrl(problems: FieldProblems, path: string, ref: AssetOrUrl | undefined): void {
  if (!ref) return;
  const given = [ref.assetId, ref.url].filter((v) => v !== undefined).length;
  if (given !== 1) problems.add(path, 'give exactly one of assetId (an image of the media library) or url');
}

/** The fields each template shows, besides the title every template has. */
function checkTemplateFields(
  problems: FieldProblems,
  path: string,
  kind: TemplateId | CarouselLayoutId,
  content: VisualContent,
): void {
  if (kind === 'stat' && (content.stat === undefined || content.stat.trim() === ''))
    problems.add(
      `${path}stat`,
      `the ${kind} ${path.startsWith('slides') ? 'layout' : 'template'} shows a stat: give one, e.g. "73%"`,
    );
  if (kind === 'list' && (content.bullets === undefined || content.bullets.length === 0))
    problems.add(
      `${path}bullets`,
      `the list ${path.startsWith('slides') ? 'layout' : 'template'} shows bullets: give at least one`,
    );
}

export function checkImageInput(input: ImageVisualInput, prefix = ''): void {
  const problems = new FieldProblems(prefix);
  const template = input.template ?? 'headline';
  checkAssetOrUrl(problems, 'backgroundImage', input.backgroundImage);
  if (input.backgroundImage && input.aiBackground)
    problems.add('aiBackground', 'give either backgroundImage or aiBackground, not both');
  if (template === 'photo' && !input.backgroundImage && !input.aiBackground)
    problems.add(
      'backgroundImage',
      'the photo template needs a photo: give backgroundImage (assetId or url) or aiBackground',
    );
  checkTemplateFields(problems, 'content.', template, input.content);
  problems.throwIfAny();
  const characters = new CharacterProblems(prefix);
  characters.content('content.', input.content);
  characters.check('handle', input.handle);
  characters.throwIfAny();
}

/**
 * The layout of each slide: the one given, else `cover` for the first, `cta` for the last when it has a cta,
 * `stat` for a slide with a stat, `list` for one with bullets, `point` otherwise.
 */
export function slideLayouts(slides: readonly CarouselSlideInput[]): CarouselLayoutId[] {
  return slides.map((slide, index) => {
    if (slide.layout) return slide.layout;
    if (index === 0) return 'cover';
    if (index === slides.length - 1 && slide.cta !== undefined && slide.cta.trim() !== '') return 'cta';
    if (slide.stat !== undefined && slide.stat.trim() !== '') return 'stat';
    if (slide.bullets !== undefined && slide.bullets.length > 0) return 'list';
    return 'point';
  });
}

export function checkCarouselInput(input: CarouselVisualInput, prefix = ''): void {
  const problems = new FieldProblems(prefix);
  if (input.slides.length < minCarouselSlides || input.slides.length > maxCarouselSlides)
    problems.add(
      'slides',
      `a carousel has ${minCarouselSlides} to ${maxCarouselSlides} slides; got ${input.slides.length}`,
    );
  const layouts = slideLayouts(input.slides);
  input.slides.forEach((slide, index) =>
    checkTemplateFields(problems, `slides.${index}.`, layouts[index]!, slide),
  );
  problems.throwIfAny();
  const characters = new CharacterProblems(prefix);
  input.slides.forEach((slide, index) => characters.content(`slides.${index}.`, slide));
  characters.check('handle', input.handle);
  characters.throwIfAny();
}

export function checkScreenshotInput(input: ScreenshotVisualInput, prefix = ''): void {
  const problems = new FieldProblems(prefix);
  checkAssetOrUrl(problems, 'screenshot', input.screenshot);
  problems.throwIfAny();
  const characters = new CharacterProblems(prefix);
  characters.content('content.', input.content);
  characters.check('addressBar', input.addressBar);
  characters.check('handle', input.handle);
  characters.throwIfAny();
}

/** The formats to render: the primary first, then `alsoFormats` without repeats. */
export function formatsToRender<F extends string>(primary: F, also: readonly F[] | undefined): F[] {
  return [...new Set([primary, ...(also ?? [])])];
}
