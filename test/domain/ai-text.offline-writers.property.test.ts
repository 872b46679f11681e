// Properties of the ai-text offline writers (issue 29): over random texts, brands and guidance, every output is
// valid for its own job's schema (what the runner checks), so the offline writer never fails a run: a rewrite fits
// its platform whatever the text and the guidance, every thread part fits X, a summary is made of the text's own
// sentences in their order, and banned phrases never appear in what is written.
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { BrandContext } from '../../domain/ai/brand-context.js';
import { emptyWritingContext, fitsPlatform } from '../../domain/ai/writing.js';
import { rewritePostJob } from '../../domain/ai-text/rewrite-job.js';
import { sentencesOf } from '../../domain/ai-text/offline-voice.js';
import { extractiveSummary, generateTextJob, summarizeTextJob } from '../../domain/ai-text/text-jobs.js';
import { xThreadJob } from '../../domain/ai-text/x-thread-job.js';
import { platforms } from '../../domain/shared/platforms.js';
import { b2bSaasBrand, personalCreatorBrand } from '../fixtures/brand-contexts.js';
import { propertyRuns } from '../support/property-runs.js';

const word = fc.oneof(
  fc.constantFrom(
    'close',
    'books',
    'team',
    'fast',
    'we’re',
    "don't",
    'really',
    '🎉',
    '#finance',
    'game-changer',
  ),
  fc.constantFrom('https://ledgerly.example/a/very/long/path', '数字', 'Ledgerly', 'audit', 'spreadsheet'),
  fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim().length > 0),
);
const sentence = fc
  .array(word, { minLength: 1, maxLength: 30 })
  .chain((words) => fc.constantFrom('.', '!', '?', '').map((end) => `${words.join(' ')}${end}`));
const text = fc.array(sentence, { minLength: 1, maxLength: 40 }).map((s) => s.join(' '));
const guidance = fc
  .subarray([
    'shorter',
    'add a question',
    'more formal',
    'casual',
    'remove emoji',
    'no hashtags',
    'add a CTA',
  ])
  .map((g) => g.join(', ') || 'make it better');
const brand: fc.Arbitrary<BrandContext | null> = fc.constantFrom(null, b2bSaasBrand, personalCreatorBrand);

test('a rewrite is valid for its platform’s schema whatever the text and the guidance, and drops banned phrases', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...platforms),
      text,
      guidance,
      fc.boolean(),
      brand,
      (platform, body, g, keepLength, b) => {
        const job = rewritePostJob(platform);
        const out = job.heuristic({
          platform,
          text: body,
          guidance: g,
          keepLength,
          brand: b,
          workspaceName: 'W',
        });
        expect(job.output.safeParse(out).success, JSON.stringify(out)).toBe(true);
        expect(fitsPlatform(platform, out.text)).toBe(true);
        if (b === b2bSaasBrand) expect(out.text.toLowerCase()).not.toContain('game-changer');
      },
    ),
    { numRuns: propertyRuns(300) },
  );
});

test('a thread has 2 to 25 numbered parts within X’s limit, whatever the topic', () => {
  fc.assert(
    fc.property(text, fc.integer({ min: 2, max: 25 }), brand, (topic, parts, b) => {
      const out = xThreadJob.heuristic({
        topic: topic.slice(0, 500),
        guidance: null,
        parts,
        context: { ...emptyWritingContext('W'), brand: b, priorities: ['Launch the checklist'] },
      });
      expect(xThreadJob.output.safeParse(out).success, JSON.stringify(out)).toBe(true);
      expect(out.parts.length).toBeLessThanOrEqual(parts);
      out.parts.forEach((p, i) => expect(p.startsWith(`${i + 1}/${out.parts.length} `)).toBe(true));
    }),
    { numRuns: propertyRuns(300) },
  );
});

test('a summary is some of the text’s own sentences, in order, valid for its schema', () => {
  fc.assert(
    fc.property(text, (body) => {
      const summary = extractiveSummary(body);
      expect(summarizeTextJob.output.safeParse({ result: summary }).success).toBe(true);
      const all = sentencesOf(body);
      let from = 0;
      for (const s of sentencesOf(summary)) {
        const at = all.indexOf(s, from);
        expect(at, s).toBeGreaterThanOrEqual(from);
        from = at + 1;
      }
    }),
    { numRuns: propertyRuns(300) },
  );
});

test('a generated text is valid for its schema whatever the prompt', () => {
  fc.assert(
    fc.property(text, brand, (prompt, b) => {
      const out = generateTextJob.heuristic({ prompt: prompt.slice(0, 4000), brand: b, workspaceName: 'W' });
      expect(generateTextJob.output.safeParse(out).success).toBe(true);
      if (b === b2bSaasBrand) expect(out.result.toLowerCase()).not.toContain('game-changer');
    }),
    { numRuns: propertyRuns(200) },
  );
});
