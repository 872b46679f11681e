// The offline writer of `thoughts.draft` (domain/thoughts/draft-job.ts) on fixture thoughts of the two fixture
// brands: every post fits its platform and carries the thought, a format suited to the thought's kind is used, the
// carousel's slides are made from the drafts; the prompt for a model is built from public context only. Its outputs
// are checked in as docs/examples/offline-thought-drafts.md for a person to judge (UPDATE_EXAMPLES=1 rewrites it;
// the test fails when it drifts).
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { viralFormatKeys, viralFormats } from '../../../domain/ai/viral-formats.js';
import { emptyWritingContext, fitsPlatform, type WritingContext } from '../../../domain/ai/writing.js';
import {
  carouselSlidesOf,
  draftFromThoughtJob,
  writeDraftsOffline,
  type DraftPlatform,
  type ThoughtDraftInput,
} from '../../../domain/thoughts/draft-job.js';
import { b2bSaasBrand, personalCreatorBrand } from '../../fixtures/brand-contexts.js';

const saasContext: WritingContext = {
  ...emptyWritingContext('Ledgerly'),
  brand: b2bSaasBrand,
  pillars: [
    { name: 'Month-end close', description: 'How to close faster', keywords: ['close', 'reconciliation'] },
    { name: 'Audit readiness', description: 'Controls that hold up', keywords: ['audit', 'controls'] },
  ],
  priorities: ['Launch of the close checklist in December'],
};
const creatorContext: WritingContext = {
  ...emptyWritingContext('Maya Chen'),
  brand: personalCreatorBrand,
  pillars: [{ name: 'Design tokens', description: '', keywords: ['tokens', 'variables'] }],
};

const fixtures: { heading: string; input: ThoughtDraftInput }[] = [
  {
    heading: 'An opinion of a B2B SaaS company (Ledgerly), X and LinkedIn',
    input: {
      thought: {
        id: 't1',
        kind: 'opinion',
        text:
          'A faster close starts with fewer reconciliations, not faster ones. Most teams reconcile accounts nobody ' +
          'reads. Cut those first, then automate what is left.',
        tags: ['close'],
      },
      context: saasContext,
      platforms: ['x', 'linkedin'],
      visual: 'none',
      guidance: null,
    },
  },
  {
    heading: 'A lesson of a personal creator (Maya Chen), X and LinkedIn',
    input: {
      thought: {
        id: 't2',
        kind: 'lesson',
        text:
          'I renamed our design tokens three times before anyone used them. Names that describe intent survive; ' +
          'names that describe colours do not. Now I name tokens after where they are used.',
        tags: ['tokens'],
      },
      context: creatorContext,
      platforms: ['x', 'linkedin'],
      visual: 'none',
      guidance: null,
    },
  },
  {
    heading: 'A tip of Ledgerly with a carousel, X and LinkedIn',
    input: {
      thought: {
        id: 't3',
        kind: 'tip',
        text:
          'Make the close checklist the single source of truth. Give every task one owner. Put the due day next to ' +
          'each task. Review what slipped in a 15-minute retro after each close.',
        tags: ['close', 'checklist'],
      },
      context: saasContext,
      platforms: ['x', 'linkedin'],
      visual: 'carousel',
      guidance: 'for controllers',
    },
  },
];

describe('the offline writer', () => {
  test.each(fixtures)(
    '$heading: one post per platform, fitting, in a format that suits the kind',
    ({ input }) => {
      const out = writeDraftsOffline(input);
      expect(() => draftFromThoughtJob(input.platforms).output.parse(out)).not.toThrow();
      expect(out.posts.map((p) => p.platform)).toEqual(input.platforms);
      for (const post of out.posts) {
        expect(fitsPlatform(post.platform, post.contentText)).toBe(true);
        expect(post.contentText).not.toMatch(/…$/);
        expect(viralFormats[post.format].suits).toContain(input.thought.kind);
      }
      // The thought's own claim is in every post.
      const claim = input.thought.text.split('.')[0]!.toLowerCase().slice(1, 30);
      for (const post of out.posts) expect(post.contentText.toLowerCase()).toContain(claim);
    },
  );

  test('a thought too long for X is shortened by dropping sentences before any cut', () => {
    const text = Array.from({ length: 8 }, (_, i) => `Sentence number ${i + 1} says something useful.`).join(
      ' ',
    );
    const out = writeDraftsOffline({
      ...fixtures[0]!.input,
      thought: { id: 't', kind: 'opinion', text, tags: [] },
      platforms: ['x', 'bluesky', 'threads'] as DraftPlatform[],
    });
    for (const post of out.posts) {
      expect(fitsPlatform(post.platform, post.contentText)).toBe(true);
      expect(post.contentText).not.toMatch(/…$/);
    }
  });

  test('the carousel: a cover with the title, then the LinkedIn post point by point', () => {
    const { input } = fixtures[2]!;
    const slides = carouselSlidesOf(writeDraftsOffline(input), input.thought);
    expect(slides.length).toBeGreaterThanOrEqual(3);
    expect(slides[0]!.title).toBe('Make the close checklist the single source of truth.');
    expect(slides.every((s) => s.title.length <= 140)).toBe(true);
  });

  test('the prompt carries the voice, the pillars, the priorities, the thought, the guidance and the formats', () => {
    const { input } = fixtures[2]!;
    const { system, prompt } = draftFromThoughtJob(input.platforms).prompt(input);
    expect(system).toContain('game-changer');
    for (const expected of [
      'Clear and practical',
      'Month-end close',
      'Launch of the close checklist',
      'single source of truth',
      'for controllers',
      'X (x): at most 280',
      ...viralFormatKeys,
    ])
      expect(prompt).toContain(expected);
  });
});

const examplesPath = 'docs/examples/offline-thought-drafts.md';

test('docs/examples/offline-thought-drafts.md shows what the offline writer drafts for fixture thoughts', () => {
  const sections = fixtures.map(({ heading, input }) => {
    const out = writeDraftsOffline(input);
    const slides =
      input.visual === 'carousel'
        ? [
            '**Carousel slides**',
            '',
            ...carouselSlidesOf(out, input.thought).map(
              (s, i) => `${i + 1}. ${s.title}${s.body ? ` (${s.body})` : ''}`,
            ),
            '',
            'As rendered by the visuals slice for a new workspace (default theme, no brand kit, no strategy, so the last ' +
              'slide names no pillar; written by test/api/thoughts/thoughts.test.ts with `UPDATE_EXAMPLES=1`):',
            '',
            carouselSlidesOf(out, input.thought)
              .map((_, i) => `![Slide ${i + 1}](thought-drafts/slide-${i + 1}.png)`)
              .join(' '),
            '',
          ]
        : [];
    return [
      `## ${heading}`,
      '',
      `Thought (${input.thought.kind}): ${input.thought.text}`,
      '',
      `Group title: ${out.title}`,
      '',
      ...out.posts.flatMap((p) => [
        `**${p.platform === 'x' ? 'X' : 'LinkedIn'}** (${viralFormats[p.format].name}, \`${p.format}\`)`,
        '',
        ...p.contentText.split('\n').map((l) => (l ? `> ${l}` : '>')),
        '',
      ]),
      ...slides,
    ].join('\n');
  });
  const doc = [
    '# The offline thought drafter: examples',
    '',
    'What `POST ORG/thoughts/{thoughtId}/drafts` writes with no model configured (`providerModel: offline`), for',
    'fixture thoughts of the two fixture brands (test/fixtures/brand-contexts.ts). Generated from the code by',
    '`test/domain/thoughts/offline-drafts.test.ts` (`UPDATE_EXAMPLES=1` rewrites this file; the test fails when it',
    'drifts). The posts go to review as one group, pending approval.',
    '',
    ...sections,
  ].join('\n');
  if (process.env.UPDATE_EXAMPLES === '1') writeFileSync(examplesPath, doc);
  expect(readFileSync(examplesPath, 'utf8')).toBe(doc);
});
