// The newsjacking settings decider, rule by rule (issue 31, part 3): defaults, a save naming the fields it changes
// (lists replace), normalising (feed URLs without fragments, names from the host, trimmed de-duplicated terms), the
// limits with every refused field named, feed ids kept by url, and saving what is saved deciding nothing. Then the
// pure research rules: news relevance, X's post counts, topic momentum.
import { describe, expect, test } from 'vitest';
import {
  defaultNewsjackingSettings,
  newsjackingSettingsDecider,
  type NewsjackingSettings,
  type NewsjackingSettingsChanges,
  type NewsjackingSettingsCommand,
  type NewsjackingSettingsEvent,
} from '../../domain/research/newsjacking-settings.js';
import { newsRelevance } from '../../domain/research/news.js';
import { matchedTerms } from '../../domain/research/sources.js';
import { momentumOf, postCountOf } from '../../domain/research/trends.js';
import { fold } from '../../domain/shared/decider.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const userId = '00000000-0000-4000-8000-000000000011';
const now = '2026-11-29T10:00:00.000Z';
const spec = deciderSpec(newsjackingSettingsDecider);

const update = (changes: NewsjackingSettingsChanges, idSeed = 'seed-1'): NewsjackingSettingsCommand => ({
  type: 'UpdateNewsjackingSettings',
  orgId,
  changes,
  idSeed,
  by: userId,
  now,
});
const saved = (settings: Partial<NewsjackingSettings>): NewsjackingSettingsEvent => ({
  type: 'NewsjackingSettingsUpdated',
  data: {
    orgId,
    settings: { ...defaultNewsjackingSettings, ...settings },
    updatedAt: now,
    updatedBy: userId,
  },
});

function refusedPaths(given: NewsjackingSettingsEvent[], changes: NewsjackingSettingsChanges): string[] {
  try {
    newsjackingSettingsDecider.decide(update(changes), fold(newsjackingSettingsDecider, given));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidFields);
    return ((error as InvalidFields).details ?? []).map((d) => d.path);
  }
  throw new Error('expected a refusal');
}

describe('newsjacking settings', () => {
  test('defaults: on, no feeds, no terms, alert threshold 60, never saved', () => {
    expect(newsjackingSettingsDecider.initialState).toEqual({
      settings: { enabled: true, feeds: [], keywords: [], excludeTerms: [], alertThreshold: 60 },
      updatedAt: null,
      updatedBy: null,
    });
  });

  test('a save records the whole settings; omitted fields stay; lists replace', () => {
    spec
      .given([saved({ keywords: ['launch'], alertThreshold: 80 })])
      .when(update({ excludeTerms: ['sponsored', ' Sponsored '] }))
      .then([saved({ keywords: ['launch'], alertThreshold: 80, excludeTerms: ['sponsored'] })]);
    spec
      .given([saved({ keywords: ['a', 'b'] })])
      .when(update({ keywords: [] }))
      .then([saved({ keywords: [] })]);
  });

  test('feeds: the URL normalised (no fragment), the name from the host, new ids from the seed, ids kept by url', () => {
    const id = deterministicUuid('seed-1', 'news-feed', '0');
    spec
      .given([])
      .when(update({ feeds: [{ url: ' https://News.example/feed.xml#latest ' }] }))
      .then([
        saved({ feeds: [{ id, name: 'news.example', url: 'https://news.example/feed.xml', enabled: true }] }),
      ]);
    const given = [
      saved({ feeds: [{ id: 'mine', name: 'Mine', url: 'https://a.example/rss', enabled: true }] }),
    ];
    spec
      .given(given)
      .when(update({ feeds: [{ url: 'https://a.example/rss', name: 'Renamed', enabled: false }] }, 'seed-2'))
      .then([
        saved({ feeds: [{ id: 'mine', name: 'Renamed', url: 'https://a.example/rss', enabled: false }] }),
      ]);
  });

  test('every refused field is named at once', () => {
    expect(
      refusedPaths([], {
        feeds: [
          { url: 'ftp://a.example/feed' },
          { url: 'https://user:pw@a.example/feed' },
          { url: 'https://b.example/feed' },
          { url: 'https://b.example/feed' },
          { url: 'https://c.example/feed', id: 'not an id!' },
        ],
        keywords: ['', 'x'.repeat(101)],
        alertThreshold: 101,
      }),
    ).toEqual([
      'alertThreshold',
      'feeds.0.url',
      'feeds.1.url',
      'feeds.3.url',
      'feeds.4.id',
      'keywords.0',
      'keywords.1',
    ]);
    expect(
      refusedPaths([], { feeds: Array.from({ length: 21 }, (_, i) => ({ url: `https://f${i}.example/` })) }),
    ).toEqual(['feeds']);
    expect(refusedPaths([], { excludeTerms: Array.from({ length: 51 }, (_, i) => `t${i}`) })).toEqual([
      'excludeTerms',
    ]);
    expect(refusedPaths([], { alertThreshold: 1.5 })).toEqual(['alertThreshold']);
  });

  test('saving what is saved decides nothing (after the first save)', () => {
    const given = [saved({ keywords: ['launch'] })];
    spec
      .given(given)
      .when(update({ keywords: ['launch'] }))
      .then([]);
    spec.given(given).when(update({})).then([]);
    spec
      .given([])
      .when(update({}))
      .then([saved({})]);
  });
});

describe('research rules', () => {
  test('terms match whole words and phrases, case-insensitively', () => {
    expect(
      matchedTerms('Revenue forecasting, open  source and APIs', [
        'forecasting',
        'open source',
        'api',
        'rev',
      ]),
    ).toEqual(['forecasting', 'open source']);
    expect(matchedTerms('C++ tips', ['c++'])).toEqual(['c++']);
  });

  test('news relevance: 50 for a term, 10 per other term, freshness, 0 with an exclude term', () => {
    const fresh = {
      title: 'Forecasting revenue',
      summary: 'pipeline',
      publishedAt: '2026-11-29T08:00:00.000Z',
    };
    expect(newsRelevance(fresh, ['forecasting', 'revenue', 'pipeline'], [], now)).toEqual({
      relevance: 90,
      matched: ['forecasting', 'revenue', 'pipeline'],
    });
    expect(
      newsRelevance({ ...fresh, publishedAt: '2026-11-27T10:00:00.000Z' }, ['forecasting'], [], now)
        .relevance,
    ).toBe(60);
    expect(newsRelevance({ ...fresh, publishedAt: null }, ['forecasting'], [], now).relevance).toBe(50);
    expect(newsRelevance(fresh, ['gardening'], [], now)).toEqual({ relevance: 20, matched: [] });
    expect(newsRelevance(fresh, ['forecasting'], ['pipeline'], now)).toEqual({ relevance: 0, matched: [] });
  });

  test("X's post counts as numbers", () => {
    expect(postCountOf('42K posts')).toBe(42_000);
    expect(postCountOf('1.2M posts')).toBe(1_200_000);
    expect(postCountOf('980 posts')).toBe(980);
    expect(postCountOf('12,345 posts')).toBe(12_345);
    expect(postCountOf(77)).toBe(77);
    expect(postCountOf('Trending')).toBeNull();
    expect(postCountOf(undefined)).toBeNull();
  });

  test('momentum: posts per hour over the sample span (at least an hour), the busiest topic scoring 100', () => {
    const at = (minutes: number) => new Date(Date.parse(now) - minutes * 60_000).toISOString();
    const busy = Array.from({ length: 20 }, (_, i) => ({ postedAt: at(i * 3), likes: 5, replies: 1 }));
    const slow = [
      { postedAt: at(60), likes: 0, replies: 0 },
      { postedAt: at(300), likes: 1, replies: 0 },
    ];
    const [a, b, c] = momentumOf(
      [
        { topic: 'busy', posts: busy },
        { topic: 'slow', posts: slow },
        { topic: 'none', posts: [] },
      ],
      now,
    );
    expect(a).toEqual({ topic: 'busy', sampleSize: 20, postsPerHour: 20, engagementPerPost: 6, score: 100 });
    expect(b!.postsPerHour).toBe(0.4);
    expect(b!.score).toBeLessThan(5);
    expect(c).toEqual({ topic: 'none', sampleSize: 0, postsPerHour: 0, engagementPerPost: 0, score: 0 });
  });
});
