// The shared writing foundation (domain/ai/writing.ts, domain/ai/viral-formats.ts): the offline writer's posts fit
// every platform's limit in the platform's own unit for any thought, cutting keeps whole words, the catalogue's
// formats are all reachable and described, and the grounding lines carry what a writer must know.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { BrandContext } from '../../domain/ai/brand-context.js';
import {
  offlineFormatFor,
  offlinePost,
  viralFormatKeys,
  viralFormatPromptLines,
  viralFormats,
} from '../../domain/ai/viral-formats.js';
import {
  emptyWritingContext,
  fitToPlatform,
  fitsPlatform,
  groundingPromptLines,
  voiceInstructions,
  type ThoughtBrief,
} from '../../domain/ai/writing.js';
import { textLimits } from '../../domain/post-groups/content-rules.js';
import { platforms } from '../../domain/shared/platforms.js';
import { propertyRuns } from '../support/property-runs.js';

const brand: BrandContext = {
  name: 'Acme Analytics',
  websiteUrl: 'https://acme.example',
  tagline: 'Numbers you can act on',
  mission: null,
  brandType: 'business',
  voice: {
    tone: 'plain and warm',
    personalityTraits: ['direct'],
    writingGuidelines: ['short sentences'],
    bannedPhrases: ['game-changer'],
  },
  businessOutline: {
    overview: 'Analytics for small shops',
    productsOrServices: ['dashboards'],
    targetAudience: ['small shop owners'],
    valueProposition: 'Know what sells',
    differentiators: [],
  },
  expertise: [],
  goals: [],
  topics: ['retail'],
  opinions: [],
  knowledge: [],
  preferences: [],
  confirmed: true,
};

const kinds = ['thought', 'tip', 'opinion', 'story', 'lesson'] as const;
const words = fc.array(
  fc.oneof(
    fc.stringMatching(/^[a-zA-Z]{1,12}$/),
    fc.constantFrom('🙂', '日本語', 'https://a.example/x', '—'),
  ),
  { minLength: 1, maxLength: 400 },
);
const text = fc
  .tuple(words, fc.array(fc.constantFrom('. ', ' ', '! ', '? ', '\n'), { minLength: 400, maxLength: 400 }))
  .map(([w, seps]) => w.map((x, i) => x + seps[i]).join(''));

describe('the offline writer', () => {
  test('every format on every platform fits the platform limit, for any thought', () => {
    fc.assert(
      fc.property(
        text,
        fc.constantFrom(...kinds),
        fc.constantFrom(...viralFormatKeys),
        fc.constantFrom(...platforms),
        fc.boolean(),
        (thoughtText, kind, format, platform, withBrand) => {
          const thought: ThoughtBrief = { id: 't', kind, text: thoughtText, tags: [] };
          const post = offlinePost(format, {
            thought,
            brand: withBrand ? brand : null,
            pillar: withBrand ? 'Retail insight' : null,
            platform,
            guidance: null,
          });
          expect(fitsPlatform(platform, post)).toBe(true);
          expect(post.trim().length).toBeGreaterThan(0);
        },
      ),
      { numRuns: propertyRuns(500) },
    );
  });

  test('a thought becomes a post that says it, in the chosen format', () => {
    const thought: ThoughtBrief = {
      id: 't',
      kind: 'opinion',
      text: 'Most dashboards are read once. Owners need one number a day, not forty.',
      tags: [],
    };
    const format = offlineFormatFor('opinion', 'x');
    expect(format).toBe('contrarian_take');
    const post = offlinePost(format, { thought, brand, pillar: null, platform: 'x', guidance: null });
    expect(post).toContain('most dashboards are read once');
    expect(post).toContain('small shop owners');
    expect(post.startsWith('Unpopular opinion:')).toBe(true);
  });

  test('every thought kind has a format, and LinkedIn gets a second one where two suit', () => {
    for (const kind of kinds) {
      expect(viralFormatKeys).toContain(offlineFormatFor(kind, 'x'));
      expect(viralFormatKeys).toContain(offlineFormatFor(kind, 'linkedin'));
    }
    expect(offlineFormatFor('lesson', 'x')).not.toBe(offlineFormatFor('lesson', 'linkedin'));
  });
});

describe('fitting a text', () => {
  test('a text that fits is left as it is', () => {
    expect(fitToPlatform('x', 'Short and sweet.')).toBe('Short and sweet.');
  });

  test('a long text is cut at a word with an ellipsis, within the limit', () => {
    const long = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
    const cut = fitToPlatform('x', long);
    expect(cut.endsWith('…')).toBe(true);
    expect(fitsPlatform('x', cut)).toBe(true);
    expect(long.startsWith(cut.slice(0, -1))).toBe(true);
    expect(cut.slice(0, -1)).toMatch(/word\d+$/);
  });

  test('a single overlong word is cut by characters', () => {
    const cut = fitToPlatform('bluesky', 'x'.repeat(1000));
    expect(cut.length).toBe(textLimits.bluesky.max);
  });
});

describe('what a writer is told', () => {
  test('the grounding lines carry the brand voice, pillars, priorities, thoughts and top posts', () => {
    const lines = groundingPromptLines({
      ...emptyWritingContext('Acme'),
      brand,
      pillars: [{ name: 'Retail insight', description: 'What sells and why', keywords: [] }],
      priorities: ['Spring launch'],
      thoughts: [{ id: 't', kind: 'tip', text: 'Check margins weekly', tags: [] }],
      topPosts: [{ platform: 'x', text: 'Our best post', engagement: 40 }],
    }).join('\n');
    for (const expected of [
      'plain and warm',
      'Retail insight',
      'Spring launch',
      'Check margins weekly',
      'Our best post',
    ])
      expect(lines).toContain(expected);
    expect(voiceInstructions(brand)).toContain('game-changer');
  });

  test('the catalogue lists every format with its structure', () => {
    const lines = viralFormatPromptLines();
    expect(lines).toHaveLength(viralFormatKeys.length);
    for (const key of viralFormatKeys) {
      expect(viralFormats[key].structure.length).toBeGreaterThan(1);
      expect(lines.some((l) => l.startsWith(`${key}:`))).toBe(true);
    }
  });
});
