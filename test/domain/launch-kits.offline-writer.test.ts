// The launch kit's offline writer: for any pitch, name, URL, brand and channels it writes copy the job's own output
// schema accepts (listing limits, "Show HN: " titles, posts within their platform limits, Reddit titles), the
// same copy for the same input, grounded in what it was given; and the prompt carries the same grounding.
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
    expect(copy.hackerNews!.title).toMatch(/^Show HN: Shipday – shipday turns/);
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
