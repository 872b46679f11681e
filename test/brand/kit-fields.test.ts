// Checking a brand kit edit before saving: CSS colours normalised to #rrggbb (transparent and unknown ones
// refused), installed fonts only (stored as named), tagline length, http(s) website and logo links; every bad
// field gives one problem and all are collected; warnings for low contrast, a small logo and font fallbacks.
import { describe, expect, test } from 'vitest';
import { emptyBrandKit } from '../../domain/brand/brand-kit.js';
import { checkEdit, kitWarnings, normalizeColor } from '../../domain/brand/kit-fields.js';

describe('colours', () => {
  test.each([
    ['#1A73E8', '#1a73e8'],
    ['#abc', '#aabbcc'],
    ['  navy ', '#000080'],
    ['RED', '#ff0000'],
    ['rgb(26 115 232)', '#1a73e8'],
    ['rgb(26, 115, 232)', '#1a73e8'],
    ['hsl(0 100% 50%)', '#ff0000'],
    ['#aabbccff', '#aabbcc'],
  ])('%s is stored as %s', (input, hex) => {
    expect(normalizeColor(input)).toEqual({ hex });
  });

  test.each(['transparent', 'rgba(0,0,0,0.5)', '#aabbcc80'])('%s is refused as transparent', (input) => {
    expect(normalizeColor(input)).toEqual({ problem: expect.stringMatching(/transparent/) });
  });

  test.each(['nope', '#12345', '', 'currentColor', 'var(--brand)'])('%j is not a colour', (input) => {
    expect(normalizeColor(input)).toEqual({ problem: expect.stringMatching(/is not a colour/) });
  });
});

describe('an edit', () => {
  test('good fields come out in stored form', () => {
    const checked = checkEdit({
      colors: { primary: 'Navy', background: '#FFF', accent: null },
      headingFont: 'playfair display',
      bodyFont: 'INTER',
      tagline: '  Social media that sounds like you  ',
      website: 'https://Example.com',
      logo: { url: 'https://example.com/logo.svg' },
    });
    expect(checked.problems).toEqual([]);
    expect(checked.changes).toEqual({
      colors: { primary: '#000080', background: '#ffffff', accent: null },
      headingFont: 'Playfair Display',
      bodyFont: 'Inter',
      tagline: 'Social media that sounds like you',
      website: 'https://example.com/',
    });
    expect(checked.logo).toEqual({ url: 'https://example.com/logo.svg' });
  });

  test('empty strings clear like null; omitted fields stay out', () => {
    const checked = checkEdit({ tagline: '   ', website: '', headingFont: '' });
    expect(checked.problems).toEqual([]);
    expect(checked.changes).toEqual({ tagline: null, website: null, headingFont: null });
    expect(checkEdit({ logo: null }).logo).toBeNull();
    expect('logo' in checkEdit({})).toBe(false);
  });

  test('every bad field gives exactly one problem, all collected, named as in the request', () => {
    const checked = checkEdit({
      colors: { primary: 'blurple', secondary: 'rgba(0,0,0,.2)', accent: '#00ff00', background: '#12' },
      headingFont: 'Comic Sans MS',
      bodyFont: 'Wingdings',
      tagline: 'x'.repeat(201),
      website: 'ftp://example.com',
      logo: { url: 'not a url' },
    });
    expect(checked.problems.map((p) => p.path)).toEqual([
      'colors.primary',
      'colors.secondary',
      'colors.background',
      'headingFont',
      'bodyFont',
      'tagline',
      'website',
      'logo.url',
    ]);
    expect(checked.problems.find((p) => p.path === 'headingFont')!.message).toMatch(
      /not an installed font.*Inter, Roboto/,
    );
    expect(checked.problems.find((p) => p.path === 'tagline')!.message).toMatch(
      /at most 200 characters \(this one has 201\)/,
    );
    expect(checked.problems.find((p) => p.path === 'website')!.message).toMatch(/http or https/);
    // The good field of the batch is still read (the use case refuses the whole edit).
    expect(checked.changes.colors).toEqual({ accent: '#00ff00' });
  });

  test('a website must name a public-looking host; a logo link is left to the fetcher', () => {
    expect(checkEdit({ website: 'http://intranet' }).problems[0]!.path).toBe('website');
    expect(checkEdit({ logo: { url: 'http://intranet/logo.png' } }).problems).toEqual([]);
    expect(checkEdit({ logo: { url: 'javascript:alert(1)' } }).problems[0]).toMatchObject({
      path: 'logo.url',
    });
  });
});

describe('warnings', () => {
  test('low contrast of a brand colour on the background', () => {
    const kit = {
      ...emptyBrandKit,
      colors: { primary: '#ffff00', secondary: '#000000', accent: null, background: '#ffffff' },
    };
    const warnings = kitWarnings(kit);
    expect(warnings).toEqual([
      expect.objectContaining({
        field: 'colors.primary',
        code: 'low_contrast',
        message: expect.stringMatching(/1\.07:1/),
      }),
    ]);
  });

  test('a small raster logo; an SVG (drawn at any size) never', () => {
    const logo = {
      assetId: 'a',
      url: 'u',
      sourceUrl: null,
      width: 120,
      height: 40,
      contentType: 'image/png',
    };
    expect(kitWarnings({ ...emptyBrandKit, logo }).map((w) => w.code)).toEqual(['small_logo']);
    expect(kitWarnings({ ...emptyBrandKit, logo: { ...logo, width: 800, height: 400 } })).toEqual([]);
    expect(kitWarnings({ ...emptyBrandKit, logo: { ...logo, contentType: 'image/svg+xml' } })).toEqual([]);
  });

  test('one font set: the other falls back to the default', () => {
    expect(kitWarnings({ ...emptyBrandKit, bodyFont: 'Lato' })).toEqual([
      expect.objectContaining({ field: 'headingFont', code: 'font_fallback' }),
    ]);
    expect(kitWarnings({ ...emptyBrandKit, headingFont: 'Lato' })).toEqual([
      expect.objectContaining({ field: 'bodyFont', code: 'font_fallback' }),
    ]);
    expect(kitWarnings(emptyBrandKit)).toEqual([]);
  });
});
