// The brand_profile.infer job's prompt (the pages' own text, each page bounded) and what the use case makes of any
// output, a model's included: clipped to the profile's limits rather than refused, facts as knowledge items with
// provenance `inferred`, a source that is not an http(s) page replaced by the website.
import { describe, expect, test } from 'vitest';
import { inferredChanges } from '../../commands/brand-profile/brand-profile-use-cases.js';
import { problemsOf, profileLimits } from '../../domain/brand-profile/brand-profile.js';
import {
  inferBrandProfileJob,
  type InferredProfile,
  type SitePage,
} from '../../domain/brand-profile/infer-job.js';

const page = (kind: SitePage['kind'], url: string, text: string): SitePage => ({
  url,
  kind,
  title: `${kind} title`,
  siteName: null,
  description: `${kind} description`,
  headings: [{ level: 1, text: `${kind} heading` }],
  paragraphs: [],
  text,
  plans: kind === 'pricing' ? [{ name: 'Pro', price: '$10/month' }] : [],
});

describe('the prompt', () => {
  test("the pages' own text, each page cut at 3000 characters", () => {
    const pages = [
      page('home', 'https://acme.example/', `Home text ${'h'.repeat(5000)}TAIL`),
      page('pricing', 'https://acme.example/pricing', 'Pricing text'),
    ];
    const { system, prompt } = inferBrandProfileJob.prompt({ websiteUrl: 'https://acme.example/', pages });
    expect(system).toMatch(/Use only what the pages say/);
    expect(prompt).toContain('## home page: https://acme.example/');
    expect(prompt).toContain('Plans: Pro ($10/month)');
    expect(prompt).toContain('Pricing text');
    expect(prompt).not.toContain('TAIL');
    expect(prompt.length).toBeLessThan(4000);
  });
});

describe('inferredChanges', () => {
  test('any output is clipped to the profile’s limits and becomes valid changes', () => {
    const output: InferredProfile = {
      brandType: 'business',
      name: '  Acme  ',
      tagline: 't'.repeat(500),
      mission: '',
      overview: 'o'.repeat(10_000),
      productsOrServices: Array.from({ length: 80 }, (_, i) => `Product ${i}`),
      targetAudience: ['', '  Teams  '],
      valueProposition: 'v',
      differentiators: ['x'.repeat(900)],
      topics: ['rockets'],
      tone: 'Dry',
      personalityTraits: [],
      writingGuidelines: [],
      facts: [
        { kind: 'fact', text: 'Founded 2019', sourceUrl: 'javascript:alert(1)', confidence: 'medium' },
        {
          kind: 'fact',
          text: 'Pro costs $10',
          sourceUrl: 'https://acme.example/pricing',
          confidence: 'high',
        },
        { kind: 'claim', text: '   ', sourceUrl: null, confidence: 'low' },
      ],
    };
    let n = 0;
    const changes = inferredChanges(
      output,
      'https://acme.example/',
      [page('home', 'https://acme.example/', ''), page('pricing', 'https://acme.example/pricing', '')],
      { now: '2026-11-22T10:00:00.000Z', newId: () => `id-${++n}` },
    );
    expect(changes).toMatchObject({ identity: 'Acme', mission: null, websiteUrl: 'https://acme.example/' });
    expect(changes.tagline!.length).toBeLessThanOrEqual(profileLimits.shortText);
    expect(changes.businessOutline!.productsOrServices).toHaveLength(profileLimits.listEntries);
    expect(changes.businessOutline!.targetAudience).toEqual(['Teams']);
    expect(changes.knowledgeItems).toEqual([
      {
        id: 'id-1',
        kind: 'fact',
        text: 'Founded 2019',
        provenance: {
          origin: 'inferred',
          sourceType: 'website',
          sourceUrl: 'https://acme.example/',
          fetchedAt: '2026-11-22T10:00:00.000Z',
          confidence: 'medium',
          userSupplied: false,
        },
        disclosure: 'public',
        durability: 'durable',
        confirmed: false,
      },
      expect.objectContaining({ text: 'Pro costs $10', durability: 'time_sensitive' }),
    ]);
    expect(problemsOf(changes)).toEqual([]);
  });
});
