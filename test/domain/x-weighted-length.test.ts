// xWeightedLength against twitter-text's own parseTweet: the same number on generated texts (fragments chosen
// around what the URL pattern, emoji and weighting treat specially) and on hand-picked ones, and the shape of
// twitter-text's URL pattern the linear-time matching follows.
import fc from 'fast-check';
import twitterText from 'twitter-text';
import { describe, expect, test } from 'vitest';
import { asciiLabelClass, xWeightedLength } from '../../domain/post-groups/x-weighted-length.js';
import { propertyRuns } from '../support/property-runs.js';

const parseTweetLength = (text: string) => twitterText.parseTweet(text).weightedLength;

const fragments = [
  'http://',
  'https://',
  'HTTPS://',
  'hTtP://',
  'www.',
  '.com',
  '.co',
  '.jp',
  '.org',
  '.香港',
  '.中国',
  '.рф',
  '.xn--p1ai',
  'xn--',
  'xn--a.',
  't.co/',
  'T.CO/',
  'https://t.co/abc',
  `https://t.co/${'a'.repeat(41)}`,
  'a',
  'A',
  'é',
  'e\u0301',
  '\u0301',
  '日本',
  '語',
  '😀',
  '👨‍👩‍👧',
  '1️⃣',
  '🇯🇵',
  '👍🏽',
  '.',
  '..',
  '-',
  '_',
  '/',
  '?',
  '#',
  '@',
  '(',
  ')',
  ':',
  ':8080',
  ' ',
  '\n',
  '&',
  '=',
  '!',
  "'",
  '"',
  '–',
  '\u202A',
  '\uFEFF',
  '$',
  '＃',
  '가',
  '\uD83D',
  '\uDE00',
  '\u2000',
  '\u3000',
  '。',
  'example',
  'a.b.c',
  'comcast',
  'co.uk',
  'a'.repeat(64),
  'ü'.repeat(60),
  '%20',
  '~',
  '|',
  '[',
  ']',
  ',',
  ';',
  '*',
  '+',
  'x.com/a(b)c',
  'a.com/(x(y)z)',
  '@user/',
  'a.com?x=1&y=2',
  'a.com?',
  'a.com:80/x',
  '\u00a0',
  '\u0600',
  'क्ष',
  'K',
];

const fragmentText = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...fragments) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) },
    ),
    { maxLength: 120 },
  )
  .map((parts) => parts.join(''));

const label = fc.oneof(
  fc.string({
    unit: fc.constantFrom('a', 'Z', '0', '-', '_', 'é', '日', '😀', 'ж', '\u0301', '"', '\u0007'),
    minLength: 1,
    maxLength: 8,
  }),
  fc.constantFrom('xn--abc', 'xn--p1ai', 'a'.repeat(70), '日'.repeat(64)),
);
const urlText = fc
  .array(
    fc.tuple(
      fc.constantFrom('', ' ', '\n', '.', '-', '_', '/', 'a', '日', '@', '#', '(', '"', '\u202A', '😀', '。'),
      fc.constantFrom('', '', 'http://', 'https://', 'HTTPS://', 'ftp://'),
      fc.array(label, { maxLength: 4 }),
      fc.constantFrom('com', 'COM', 'co', 'jp', '香港', 'рф', 'xn--p1ai', 'comcast', 'zz', 'onion', 'みんな'),
      fc.constantFrom('', '', ':80', ':', '.', '-'),
      fc.option(
        fc.string({
          unit: fc.constantFrom(
            'a',
            '/',
            '(',
            ')',
            '!',
            '.',
            ',',
            '-',
            '=',
            '#',
            '@',
            '%',
            '~',
            '&',
            'ж',
            '–',
            ' ',
          ),
          maxLength: 25,
        }),
      ),
      fc.option(
        fc.string({
          unit: fc.constantFrom('a', '=', '&', '!', '?', '(', ')', '.', '-', '/', '_', ' '),
          maxLength: 12,
        }),
      ),
    ),
    { maxLength: 12 },
  )
  .map((urls) =>
    urls
      .map(
        ([before, protocol, labels, tld, port, path, query]) =>
          before +
          protocol +
          [...labels, tld].join('.') +
          port +
          (path === null ? '' : `/${path}`) +
          (query === null ? '' : `?${query}`),
      )
      .join(''),
  );

/** Around twitter-text's 4,096-character URL limit: long domains, long paths and what follows them. */
const longUrlText = fc
  .tuple(
    fc.constantFrom('', 'https://', ' '),
    fc.integer({ min: 0, max: 2100 }),
    fc.constantFrom('a.', 'é.', 'xn--a.', '日.', 'a_b.'),
    fc.constantFrom('com', '日本.com', 'zz'),
    fc.integer({ min: 0, max: 4200 }),
    fc.constantFrom('a', '(a)', '!'),
    fc.constantFrom('', ' more', '?a=b', ' https://t.co/x'),
  )
  .map(
    ([start, labels, label, tld, pathLength, unit, end]) =>
      `${start}${label.repeat(labels)}${tld}/${unit.repeat(Math.floor(pathLength / unit.length))}${end}`,
  );

/** parseTweet throws on some texts (punycode overflow in an over-long label); those prove nothing. */
function sameAsParseTweet(text: string): void {
  let expected: number;
  try {
    expected = parseTweetLength(text);
  } catch {
    return;
  }
  expect(xWeightedLength(text), JSON.stringify(text.slice(0, 300))).toBe(expected);
}

describe('xWeightedLength is parseTweet’s weightedLength', () => {
  test.each([
    ['', 0],
    ['hello', 5],
    ['日本語', 6],
    ['😀', 2],
    ['👨‍👩‍👧', 2],
    ['https://example.com/a/very/long/path', 23],
    ['example.com and t.co', 23 + 5 + 23],
    ['e\u0301', 1],
    ['日本語.com', 10],
    ['a.com/(x(y)z)', 23],
    [`https://t.co/${'a'.repeat(41)}`, 54],
  ])('%j counts %i', (text, expected) => {
    expect(xWeightedLength(text)).toBe(expected);
    expect(parseTweetLength(text)).toBe(expected);
  });

  test('on texts built from the fragments URLs, emoji and weights treat specially', () => {
    fc.assert(fc.property(fragmentText, sameAsParseTweet), { numRuns: propertyRuns(1500) });
  });

  test('on texts of URLs with and without protocol, ports, paths, queries and what precedes them', () => {
    fc.assert(fc.property(urlText, sameAsParseTweet), { numRuns: propertyRuns(1500) });
  });

  test('around the 4,096-character URL limit', () => {
    fc.assert(fc.property(longUrlText, sameAsParseTweet), { numRuns: propertyRuns(60) });
  });

  test('on TLDs in upper case, with non-ASCII letters, as punycode and next to what the lookahead refuses', () => {
    const tlds = ['vermögensberatung', 'VERMÖGENSBERATER', 'vermögen', 'xn--p1ai', 'XN--P1AI', 'xn-', 'xn'];
    tlds.push(
      'com-',
      'com@',
      'co+',
      'comé',
      'com_x',
      'cOmcast',
      'comcastx',
      '香港',
      '香港x',
      'РФ',
      'co2',
      'a',
    );
    for (const before of ['', ' ', 'https://', 'x.']) {
      for (const tld of tlds) {
        for (const after of ['', ' ', '/p', '.', '-']) {
          sameAsParseTweet(`${before}example.${tld}${after} and ${before}a.b.${tld}`);
        }
      }
    }
  });

  test('on texts twitter-text takes long over', () => {
    for (const text of [
      `${'日本語の文章です'.repeat(250)}.`,
      'a.'.repeat(1000),
      `a.com/${'(a)'.repeat(600)}`,
      ` ${'a.'.repeat(1990)}日本.com`,
      ` xn--${'a.'.repeat(1990)}日本.com`,
    ]) {
      sameAsParseTweet(text);
    }
  });
});

describe('twitter-text’s URL pattern has the shape the matching follows', () => {
  const r = twitterText.regexen as typeof twitterText.regexen & { validUrlQueryEndingChars: RegExp };
  const D = r.validDomainChars.source;
  const P = r.validGeneralUrlPathChars.source;
  const tlds = `(?:${r.validGTLD.source}|${r.validCCTLD.source}|${r.validPunycode.source})`;

  test('domain: labels with "_" and "-" inside, then one without "_", then a TLD', () => {
    const sub = `(?:(?:${D}(?:[_-]|${D})*)?${D}\\.)`;
    const name = `(?:(?:${D}(?:-|${D})*)?${D}\\.)`;
    expect(r.validSubdomain.source).toBe(sub);
    expect(r.validDomainName.source).toBe(name);
    expect(r.validDomain.source).toBe(`(?:${sub}*${name}${tlds})`);
    expect(r.validAsciiDomain.source).toBe(`(?:(?:${asciiLabelClass()}+)\\.)+${tlds}`);
    expect(r.validAsciiDomain.flags).toBe('gi');
  });

  test('path: runs of path characters and parenthesised groups ending on an ending character', () => {
    const parens = `\\((?:${P}+|(?:${P}*\\(${P}+\\)${P}*))\\)`;
    expect(r.validUrlBalancedParens.source).toBe(parens);
    const ending = r.validUrlPathEndingChars.source;
    expect(ending).toMatch(/^\[[^\]]*\]\|\(\?:/);
    expect(ending.slice(ending.indexOf('|(?:') + 4, -1)).toBe(parens);
    expect(r.validUrlPath.source).toBe(`(?:(?:${P}*(?:${parens}${P}*)*${ending})|(?:@${P}+\\/))`);
  });

  test('the whole: preceding character, protocol, domain, port, path, query', () => {
    expect(r.extractUrl.source).toBe(
      `((${r.validUrlPrecedingChars.source})((https?:\\/\\/)?(${r.validDomain.source})(?::(${r.validPortNumber.source}))?(\\/${r.validUrlPath.source}*)?(\\?${r.validUrlQueryChars.source}*${r.validUrlQueryEndingChars.source})?))`,
    );
    expect(r.extractUrl.flags).toBe('gi');
    expect(r.validPortNumber.source).toBe('[0-9]+');
  });
});
