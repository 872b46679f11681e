// The launch kit's offline writer: for any pitch, name, URL, brand and channels it writes copy the job's own output
// schema accepts (listing limits, "Show HN: " titles, posts within their platform limits, Reddit titles), the
// same copy for the same input, grounded in what it was given; and the prompt carries the same grounding. Its
// output for a fixture is checked in as docs/examples/offline-launch-kit.md (`UPDATE_EXAMPLES=1` rewrites it).
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { emptyWritingContext, type WritingContext } from '../../domain/ai/writing.js';
import {
  createLaunchKitJob,
  launchKitCopySchema,
  writeLaunchKitOffline,
  type LaunchKitJobInput,
} from '../../domain/launch-kits/create-job.js';
import { launchChannels } from '../../domain/launch-kits/event-codec.js';
import { launchPlan } from '../../domain/launch-kits/plan.js';
import { resolveProfile } from '../../domain/scheduling/profile.js';
import { emptySchedulingSettings } from '../../domain/scheduling/types.js';
import { b2bSaasBrand, personalCreatorBrand } from '../fixtures/brand-contexts.js';
import { propertyRuns } from '../support/property-runs.js';

function inputOf(
  partial: Pick<LaunchKitJobInput, 'pitch' | 'productName' | 'url' | 'channels'> & {
    writing: WritingContext;
    subreddits?: string[];
  },
): LaunchKitJobInput {
  const plan = launchPlan({
    launchDate: '2026-12-08',
    timezone: 'UTC',
    channels: partial.channels,
    subreddits: partial.subreddits ?? (partial.channels.includes('reddit') ? ['r/SideProject'] : []),
    profile: resolveProfile(emptySchedulingSettings, 'UTC'),
  });
  return {
    ...partial,
    launchDate: '2026-12-08',
    guidance: null,
    posts: plan.flatMap((s) => (s.post ? [s.post] : [])),
    tasks: plan.filter((s) => s.kind !== 'post').map((s) => ({ key: s.key, title: s.title })),
  };
}

const writings = fc.constantFrom<WritingContext>(
  emptyWritingContext('Acme'),
  { ...emptyWritingContext('Northwind'), brand: b2bSaasBrand },
  { ...emptyWritingContext('Me'), brand: personalCreatorBrand },
);

describe('the offline writer', () => {
  test('always writes copy the output schema accepts, a post per slot, deterministically', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 2000 }).filter((s) => s.trim().length > 0),
        fc.option(
          fc.string({ minLength: 1, maxLength: 80 }).filter((s) => s.trim().length > 0),
          { nil: null },
        ),
        fc.option(fc.webUrl({ size: 'large' }), { nil: null }),
        fc.uniqueArray(fc.constantFrom(...launchChannels), { minLength: 1 }),
        writings,
        (pitch, productName, url, channels, writing) => {
          const input = inputOf({ pitch, productName, url, channels, writing });
          const copy = writeLaunchKitOffline(input);
          const parsed = launchKitCopySchema.safeParse(copy);
          expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
          expect(copy.posts.map((p) => p.key)).toEqual(input.posts.map((p) => p.key));
          expect(copy.productHunt !== null).toBe(channels.includes('product_hunt'));
          expect(copy.hackerNews !== null).toBe(channels.includes('hacker_news'));
          expect(writeLaunchKitOffline(input)).toEqual(copy);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  test('grounded in the pitch, the name, the URL and the brand', () => {
    const input = inputOf({
      pitch: 'Shipday turns your changelog into release notes customers read. It takes a minute.',
      productName: 'Shipday',
      url: 'https://shipday.example',
      channels: ['product_hunt', 'hacker_news', 'x', 'linkedin', 'reddit'],
      writing: { ...emptyWritingContext('Shipday Inc'), brand: b2bSaasBrand },
    });
    const copy = writeLaunchKitOffline(input);
    expect(copy.productHunt!.tagline).toBe('Shipday turns your changelog into release notes customers');
    expect(copy.productHunt!.description).toContain(
      b2bSaasBrand.businessOutline.valueProposition.slice(0, 20),
    );
    expect(copy.hackerNews).toMatchObject({ url: 'https://shipday.example' });
    expect(copy.hackerNews!.title).toMatch(/^Show HN: Shipday – Shipday turns/);
    const launch = copy.posts.find((p) => p.key === 'x.launch')!;
    expect(launch.contentText).toContain('Shipday is live today on Product Hunt');
    expect(launch.contentText).toContain('https://shipday.example');
    const reddit = copy.posts.find((p) => p.channel === 'reddit')!;
    expect(reddit.title).toMatch(/^I built Shipday: /);
    expect(reddit.contentText).toMatch(/^Hi r\/SideProject/);
  });

  test('the prompt carries the pitch, the voice, the slots and the limits', () => {
    const input = inputOf({
      pitch: 'PITCH-TEXT',
      productName: null,
      url: null,
      channels: ['x', 'reddit'],
      writing: { ...emptyWritingContext('Acme'), brand: b2bSaasBrand },
    });
    const { system, prompt } = createLaunchKitJob.prompt(input);
    expect(prompt).toContain('PITCH-TEXT');
    expect(prompt).toContain(b2bSaasBrand.voice.tone);
    expect(prompt).toContain('reddit.launch.0: reddit in r/SideProject');
    expect(prompt).toMatch(/X \(x\): at most 280/);
    expect(system).toContain('Show HN: ');
  });
});

const examplesPath = new URL('../../docs/examples/offline-launch-kit.md', import.meta.url);

test('the checked-in example is what the offline writer writes', () => {
  const input = inputOf({
    pitch:
      'Ledgerly closes the month in three days instead of ten by matching bank lines to invoices automatically.',
    productName: 'Ledgerly Close',
    url: 'https://ledgerly.example/close',
    channels: ['product_hunt', 'hacker_news', 'x', 'linkedin', 'reddit'],
    subreddits: ['r/Accounting'],
    writing: { ...emptyWritingContext('Ledgerly'), brand: b2bSaasBrand },
  });
  const copy = writeLaunchKitOffline(input);
  const ph = copy.productHunt!;
  const hn = copy.hackerNews!;
  const quote = (text: string) =>
    text
      .split('\n')
      .map((l) => (l ? `> ${l}` : `>`))
      .join('\n');
  const doc = [
    '# The offline launch kit writer: an example',
    '',
    'What `POST ORG/launch-kits` writes with no model configured (`providerModel: offline`), for the B2B fixture',
    'brand context (`test/fixtures/brand-contexts.ts`). Generated from the code by',
    '`test/domain/launch-kits.offline-writer.test.ts` (`UPDATE_EXAMPLES=1` rewrites this file; the test fails when',
    'it drifts). The plan, its dates and suggested times are added by the plan (`domain/launch-kits/plan.ts`).',
    '',
    `Input: pitch "${input.pitch}"; product "Ledgerly Close"; url ${input.url}; launch ${input.launchDate}; channels ${input.channels.join(', ')}; subreddit r/Accounting.`,
    '',
    '## Product Hunt',
    '',
    `- **Name:** ${ph.name}`,
    `- **Tagline (${ph.tagline.length}/60):** ${ph.tagline}`,
    `- **Description (${ph.description.length}/260):** ${ph.description}`,
    `- **Topics:** ${ph.topics.join(', ')}`,
    `- **First comment:** ${ph.firstComment}`,
    '- **Gallery ideas:**',
    ...ph.galleryIdeas.map((g) => `  - ${g}`),
    '',
    '## Show HN',
    '',
    `**${hn.title}** (${hn.url ?? 'no link'})`,
    '',
    quote(hn.text),
    '',
    '## Posts (each drafted into review as pending approval)',
    '',
    ...copy.posts.flatMap((p) => [
      `### ${p.key}${p.title ? `: "${p.title}"` : ''}`,
      '',
      quote(p.contentText),
      '',
    ]),
  ].join('\n');
  if (process.env.UPDATE_EXAMPLES === '1') writeFileSync(examplesPath, doc);
  expect(readFileSync(examplesPath, 'utf8')).toBe(doc);
});
