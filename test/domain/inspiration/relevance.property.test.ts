// Properties of relevance against the strategy (issue 31): adding a keyword to a pillar raises the relevance of
// every item that mentions it (unless its strategy fit was full already) and leaves every item that does not
// mention it exactly as it was; the score and its breakdown stay within 0–100; the same item and strategy always
// read the same.
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { interpret, normalizeText, type StrategyLens } from '../../../domain/inspiration/interpretation.js';
import { propertyRuns } from '../../support/property-runs.js';

const vocabulary = [
  'onboarding',
  'pricing',
  'hiring',
  'churn',
  'releases',
  'design',
  'growth',
  'security',
  'analytics',
  'community',
  'roadmap',
  'founders',
  'retention',
  'sales call',
  'product market fit',
];
const filler = ['the', 'team', 'shipped', 'a', 'new', 'thing', 'today', 'and', 'we', 'learned', 'much'];
const word = fc.constantFrom(...vocabulary, ...filler);

const text = fc.array(word, { minLength: 1, maxLength: 30 }).map((w) => w.join(' '));
type Item = Parameters<typeof interpret>[0];

const item: fc.Arbitrary<Item> = fc.record({
  contentText: text,
  analysis: fc.option(
    fc.record({
      topic: text,
      hook: text,
      format: fc.constantFrom('listicle', 'insight', 'story_arc'),
      tone: fc.constant('informative'),
      audience: fc.constantFrom('founders', 'developers', 'general professional audience'),
      cta: fc.constant('none'),
      writingFramework: fc.constant('hook, body, takeaway'),
      keywords: fc.array(word, { maxLength: 5 }),
      qualityScore: fc.integer({ min: 0, max: 100 }),
    }),
    { nil: null },
  ),
  tags: fc.array(word, { maxLength: 3 }),
  engagement: fc.option(
    fc.record({
      likes: fc.option(fc.nat(100_000), { nil: null }),
      comments: fc.option(fc.nat(5_000), { nil: null }),
      shares: fc.option(fc.nat(5_000), { nil: null }),
      impressions: fc.constant(null),
      bookmarks: fc.constant(null),
      quotes: fc.constant(null),
      raw: fc.constant(null),
    }),
    { nil: null },
  ),
  publishedAt: fc.option(fc.constantFrom('2026-11-01T00:00:00.000Z', '2026-11-28T12:00:00.000Z'), {
    nil: null,
  }),
  createdAt: fc.constant('2026-11-29T00:00:00.000Z'),
});

const lens: fc.Arbitrary<StrategyLens> = fc.record({
  strategyId: fc.constant('00000000-0000-4000-8000-000000000009'),
  version: fc.integer({ min: 1, max: 5 }),
  pillars: fc.array(
    fc.record({
      name: fc.constantFrom('Pillar A', 'Customer success', 'Engineering culture'),
      keywords: fc.uniqueArray(fc.constantFrom(...vocabulary), { maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  priorities: fc.array(fc.constantFrom('Grow retention among founders', 'Launch the pricing page'), {
    maxLength: 2,
  }),
  targetAudience: fc.constantFrom('', 'B2B founders', 'developers and designers'),
});

const mentions = (i: Item, keyword: string) => {
  const all = normalizeText(
    [i.contentText, i.analysis?.topic ?? '', ...(i.analysis?.keywords ?? []), ...i.tags].join(' \n '),
  );
  return ` ${all} `.includes(` ${normalizeText(keyword)} `);
};

test("a pillar's keyword raises the items that mention it and leaves the others as they were", () => {
  fc.assert(
    fc.property(
      fc.array(item, { minLength: 1, maxLength: 6 }),
      lens,
      fc.nat(),
      fc.constantFrom(...vocabulary),
      (items, strategy, at, keyword) => {
        const index = at % strategy.pillars.length;
        const pillar = strategy.pillars[index]!;
        fc.pre(!pillar.keywords.includes(keyword) && normalizeText(pillar.name) !== normalizeText(keyword));
        const widened: StrategyLens = {
          ...strategy,
          pillars: strategy.pillars.map((p, i) =>
            i === index ? { ...p, keywords: [...p.keywords, keyword] } : p,
          ),
        };
        for (const i of items) {
          const before = interpret(i, strategy)!;
          const after = interpret(i, widened)!;
          if (!mentions(i, keyword)) expect(after).toEqual(before);
          else if (before.scoreBreakdown.strategyFit < 100) {
            expect(after.relevanceScore).toBeGreaterThan(before.relevanceScore);
            expect(after.matchedPillars).toContain(pillar.name);
          } else expect(after.relevanceScore).toBe(before.relevanceScore);
        }
      },
    ),
    { numRuns: propertyRuns(500) },
  );
});

test('scores stay within 0–100; the same item and strategy read the same; no strategy, no interpretation', () => {
  fc.assert(
    fc.property(item, lens, (i, strategy) => {
      const read = interpret(i, strategy)!;
      for (const v of [read.relevanceScore, ...Object.values(read.scoreBreakdown)]) {
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(100);
        expect(Number.isInteger(v)).toBe(true);
      }
      expect(interpret(i, strategy)).toEqual(read);
      expect(interpret(i, null)).toBeNull();
    }),
    { numRuns: propertyRuns(300) },
  );
});
