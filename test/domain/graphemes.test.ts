// Grapheme counting in pieces against Intl.Segmenter over the whole text, on generated texts mixing plain
// characters with what joins into clusters (marks, ZWJ emoji, flags, Hangul jamo, Indic conjuncts, CR LF).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { graphemeCount, sumOverGraphemes } from '../../domain/post-groups/graphemes.js';
import { propertyRuns } from '../support/property-runs.js';

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const segments = (text: string) => Array.from(segmenter.segment(text), ({ segment }) => segment);

/** Threads' weight of a grapheme: an emoji its UTF-8 size, anything else its UTF-16 length. */
const weigh = (grapheme: string) =>
  /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u.test(grapheme)
    ? new TextEncoder().encode(grapheme).length
    : grapheme.length;

const fragments = [
  'a',
  'é',
  'e\u0301',
  '\u0301',
  '😀',
  '👨‍👩‍👧',
  '\u200D',
  '1️⃣',
  '🇯🇵',
  '🇯',
  '🏴󠁧󠁢󠁳󠁣󠁴󠁿',
  '👍🏽',
  '🏽',
  '漢',
  '가',
  '\u1100',
  '\u1161',
  '\u11A8',
  'क',
  '्',
  'ष',
  'ก',
  '\u0e33',
  '\u0600',
  'ا',
  '\r',
  '\n',
  '\r\n',
  ' ',
  '\uD83D',
  '\uDE00',
  '\uFF9E',
  'ｶ',
  '\u0D4E',
  '©',
  '\uFE0F',
  '𠀀',
  'x'.repeat(300),
  '😀'.repeat(200),
  'e\u0301'.repeat(200),
  'ж',
];
const text = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...fragments) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }) },
    ),
    { maxLength: 150 },
  )
  .map((parts) => parts.join(''));

describe('graphemes in pieces are the segmenter’s graphemes', () => {
  test('the count', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(graphemeCount(t), JSON.stringify(t.slice(0, 200))).toBe(segments(t).length);
      }),
      { numRuns: propertyRuns(1500) },
    );
  });

  test('each grapheme, or null for a plain character that is one UTF-16 unit and no emoji', () => {
    fc.assert(
      fc.property(text, (t) => {
        const total = segments(t).reduce((sum, grapheme) => sum + weigh(grapheme), 0);
        const visited = sumOverGraphemes(t, (grapheme) => (grapheme === null ? 1 : weigh(grapheme)));
        expect(visited, JSON.stringify(t.slice(0, 200))).toBe(total);
      }),
      { numRuns: propertyRuns(500) },
    );
  });

  test.each([
    ['plain text', 'Hello, world! Grüße, привет, 漢字かな, 안녕하세요', 40],
    ['combining marks', 'e\u0301'.repeat(10), 10],
    ['a family emoji and a flag', '👨‍👩‍👧🇯🇵', 2],
    ['CR LF', 'a\r\nb', 3],
  ])('%s', (_name, sample, expected) => {
    expect(graphemeCount(sample)).toBe(expected);
    expect(segments(sample)).toHaveLength(expected);
  });
});
