// The offline writer (`brand_profile.infer` without a model) on two fixture sites, a B2B SaaS and a personal
// creator: the pages read as the site reader reads them (jsdom and Readability, here in this thread), the about
// and pricing pages found from the home page's links, and the profile inferred. Its outputs are also the readable
// examples in docs/examples/offline-brand-profile.md; `UPDATE_EXAMPLES=1` rewrites that file from them.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { describe, expect, test } from 'vitest';
import {
  inferProfileOffline,
  type SitePage,
  type SitePageKind,
} from '../../domain/brand-profile/infer-job.js';
import { extractPageText } from '../../infra/brand-profile/page-text.js';
import { linkedPages } from '../../infra/brand-profile/site-reader.js';

const docPath = new URL('../../docs/examples/offline-brand-profile.md', import.meta.url);
const update = process.env.UPDATE_EXAMPLES === '1';

/** Reads a fixture site as the site reader would: home first, then the about and pricing pages it links to. */
function readFixture(
  site: string,
  origin: string,
): { pages: SitePage[]; found: { kind: SitePageKind; url: string }[] } {
  const read = (path: string, kind: SitePageKind, url: string) =>
    extractPageText({
      body: readFileSync(new URL(`./fixtures/${site}/${path}.html`, import.meta.url)),
      contentType: 'text/html; charset=utf-8',
      url,
      kind,
    });
  const home = read('home', 'home', `${origin}/`);
  const found = linkedPages(home.page.url, home.links);
  return { pages: [home.page, ...found.map(({ kind, url }) => read(kind, kind, url).page)], found };
}

const saas = readFixture('saas', 'https://ledgerly.example');
const creator = readFixture('creator', 'https://mayachen.example');
const saasProfile = inferProfileOffline({ websiteUrl: 'https://ledgerly.example/', pages: saas.pages });
const creatorProfile = inferProfileOffline({ websiteUrl: 'https://mayachen.example/', pages: creator.pages });

describe('the offline writer', () => {
  test('a B2B SaaS: business, its plans with prices, its audience, its differentiators', () => {
    expect(saas.found).toEqual([
      { kind: 'pricing', url: 'https://ledgerly.example/pricing' },
      { kind: 'about', url: 'https://ledgerly.example/about' },
    ]);
    expect(saasProfile).toMatchObject({
      brandType: 'business',
      name: 'Ledgerly',
      tagline: 'Invoicing and time tracking for creative agencies.',
      mission: 'Our mission is to make sure every hour an agency works gets billed and paid.',
      valueProposition: 'Stop losing billable hours',
    });
    expect(saasProfile.productsOrServices).toEqual([
      'Solo plan (€12 per month)',
      'Studio plan (€39 per month)',
      'Agency plan (€99 per month)',
    ]);
    expect(saasProfile.targetAudience).toContain('Creative agencies');
    expect(saasProfile.differentiators).toContain('Invoices straight from tracked time');
    expect(saasProfile.overview).toMatch(/^Ledgerly was started in 2021/);
    expect(saasProfile.facts).toContainEqual({
      kind: 'fact',
      text: 'Plans: Solo (€12 per month), Studio (€39 per month), Agency (€99 per month)',
      sourceUrl: 'https://ledgerly.example/pricing',
      confidence: 'high',
    });
  });

  test('a personal creator: personal, first person, newsletter, course and coaching', () => {
    expect(creator.found).toEqual([{ kind: 'about', url: 'https://mayachen.example/about-me' }]);
    expect(creatorProfile).toMatchObject({
      brandType: 'personal',
      name: 'Maya Chen',
      // A belief the about page states is the closest it comes to a mission.
      mission: 'I believe small, calm businesses are underrated.',
    });
    expect(creatorProfile.productsOrServices).toEqual(
      expect.arrayContaining(['Newsletter', 'Courses', 'Coaching']),
    );
    expect(creatorProfile.targetAudience).toContain('Indie hackers');
    expect(creatorProfile.targetAudience).not.toContain('Six years');
    expect(creatorProfile.differentiators).toEqual([]);
    expect(creatorProfile.writingGuidelines[0]).toBe('Write in the first person (I, my), as the site does');
    expect(creatorProfile.topics).toEqual(expect.arrayContaining(['newsletter', 'bootstrapping']));
  });

  test('both are the examples in docs/examples/offline-brand-profile.md', async () => {
    // As the repository formats it (npm run format).
    const file = fileURLToPath(docPath);
    const options = (await prettier.resolveConfig(file)) ?? {};
    const expected = await prettier.format(examplesDocument(), { ...options, filepath: file });
    if (update) writeFileSync(docPath, expected);
    expect(readFileSync(docPath, 'utf8')).toBe(expected);
  });
});

function examplesDocument(): string {
  const block = (value: unknown) => `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;
  const section = (
    title: string,
    site: string,
    origin: string,
    read: typeof saas,
    profile: typeof saasProfile,
  ) =>
    [
      `## ${title}`,
      '',
      `Fixture: \`test/brand-profile/fixtures/${site}/\`, served as ${origin}. Pages read: ${read.pages
        .map((p) => `${p.kind} (${p.url})`)
        .join(', ')}.`,
      '',
      block(profile),
      '',
    ].join('\n');
  return [
    '# The offline brand-profile writer: two examples',
    '',
    'What `POST ORG/brand/profile/from-website` infers with no model configured (`source: "heuristic"`,',
    '`providerModel: "offline"`): the offline writer of the `brand_profile.infer` job',
    '(`domain/brand-profile/infer-job.ts`) reads titles, meta descriptions, headings, first paragraphs and the',
    "pricing page's plans, and every field can be traced to a page. The use case saves it unconfirmed: the facts",
    'become knowledge items with provenance `inferred` (sourceUrl, fetchedAt, confidence), the name becomes',
    '`identity`, and fields a person already set are kept. Generated by `test/brand-profile/offline-writer.test.ts`',
    '(`UPDATE_EXAMPLES=1` rewrites this file); the test fails when the writer and this page disagree.',
    '',
    section('A B2B SaaS: Ledgerly', 'saas', 'https://ledgerly.example', saas, saasProfile),
    section('A personal creator: Maya Chen', 'creator', 'https://mayachen.example', creator, creatorProfile),
  ].join('\n');
}
