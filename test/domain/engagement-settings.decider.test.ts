// The engagement settings decider, rule by rule: defaults, a save naming the fields it changes (lists replace),
// normalising (handles without @ or a profile URL, subreddits without r/, trimmed and de-duplicated terms), the
// limits (every refused field named, in the spec's error shape), feeds (source rules, ids kept by id or by name,
// new ids from the seed), and saving what is saved deciding nothing.
import { describe, expect, test } from 'vitest';
import {
  defaultEngagementSettings,
  engagementSettingsDecider,
  type EngagementSettingsChanges,
  type EngagementSettingsCommand,
  type EngagementSettingsEvent,
  type EngagementSettings,
} from '../../domain/engagement/settings.js';
import { fold } from '../../domain/shared/decider.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const userId = '00000000-0000-4000-8000-000000000011';
const now = '2026-11-29T10:00:00.000Z';
const spec = deciderSpec(engagementSettingsDecider);

const update = (changes: EngagementSettingsChanges, idSeed = 'seed-1'): EngagementSettingsCommand => ({
  type: 'UpdateEngagementSettings',
  orgId,
  changes,
  idSeed,
  by: userId,
  now,
});
const saved = (settings: Partial<EngagementSettings>): EngagementSettingsEvent => ({
  type: 'EngagementSettingsUpdated',
  data: { orgId, settings: { ...defaultEngagementSettings, ...settings }, updatedAt: now, updatedBy: userId },
});

/** The fields a refusal names, in order. */
function refusedPaths(given: EngagementSettingsEvent[], changes: EngagementSettingsChanges): string[] {
  try {
    engagementSettingsDecider.decide(update(changes), fold(engagementSettingsDecider, given));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidFields);
    return ((error as InvalidFields).details ?? []).map((d) => d.path);
  }
  throw new Error('expected a refusal');
}

describe('defaults and saving', () => {
  test('a workspace that never saved has the defaults, unsaved', () => {
    expect(engagementSettingsDecider.initialState).toEqual({
      settings: {
        watchHandles: [],
        keywords: [],
        autoRefresh: false,
        redditKeywords: [],
        subreddits: [],
        redditExcludeTerms: [],
        feeds: [],
        communities: [],
      },
      updatedAt: null,
      updatedBy: null,
    });
  });

  test('a save records the whole settings: the fields sent, the others as they were', () => {
    spec
      .given([saved({ keywords: ['launch'], autoRefresh: true })])
      .when(update({ subreddits: ['SaaS'] }))
      .then([saved({ keywords: ['launch'], autoRefresh: true, subreddits: ['SaaS'] })]);
  });

  test('lists replace the saved ones; an empty list clears', () => {
    spec
      .given([saved({ keywords: ['a', 'b'] })])
      .when(update({ keywords: [] }))
      .then([saved({ keywords: [] })]);
  });

  test('saving what is saved decides nothing (after the first save)', () => {
    const given = [saved({ keywords: ['launch'] })];
    spec
      .given(given)
      .when(update({ keywords: ['launch'] }))
      .then([]);
    spec
      .given(given)
      .when(update({ keywords: ['  LAUNCH ', 'launch'] }))
      .then([saved({ keywords: ['LAUNCH'] })]);
    spec.given(given).when(update({})).then([]);
    // The first save of the defaults is recorded: updatedAt says they were saved.
    spec
      .given([])
      .when(update({}))
      .then([saved({})]);
  });
});

describe('normalising', () => {
  test('handles lose @ and profile URLs, keep their case, and repeat once (case-insensitive)', () => {
    spec
      .given([])
      .when(update({ watchHandles: ['@Alex_Dev', 'https://x.com/jack', 'twitter.com/Jack/', ' alex_dev '] }))
      .then([saved({ watchHandles: ['Alex_Dev', 'jack'] })]);
  });

  test('subreddits lose r/, /r/ and reddit.com URLs', () => {
    spec
      .given([])
      .when(
        update({ subreddits: ['r/SaaS', '/r/startups', 'https://www.reddit.com/r/Entrepreneur/', 'saas'] }),
      )
      .then([saved({ subreddits: ['SaaS', 'startups', 'Entrepreneur'] })]);
  });

  test('terms are trimmed, inner spaces collapsed, repeated once', () => {
    spec
      .given([])
      .when(
        update({
          keywords: ['  content   calendar ', 'Content calendar'],
          redditKeywords: ['scheduler'],
          redditExcludeTerms: ['hiring', 'HIRING'],
        }),
      )
      .then([
        saved({
          keywords: ['content calendar'],
          redditKeywords: ['scheduler'],
          redditExcludeTerms: ['hiring'],
        }),
      ]);
  });
});

describe('limits: every refused field named', () => {
  test('handles must be X handles (1 to 15 letters, digits, _)', () => {
    expect(refusedPaths([], { watchHandles: ['ok', 'has space', 'x'.repeat(16), '@', 'dash-ed'] })).toEqual([
      'watchHandles.1',
      'watchHandles.2',
      'watchHandles.3',
      'watchHandles.4',
    ]);
  });

  test('subreddits must be 2 to 21 letters, digits or _', () => {
    expect(refusedPaths([], { subreddits: ['a', 'r/ok_sub', 'x'.repeat(22), 'bad-name'] })).toEqual([
      'subreddits.0',
      'subreddits.2',
      'subreddits.3',
    ]);
  });

  test('at most 50 entries per list, each term 1 to 100 characters', () => {
    const many = Array.from({ length: 51 }, (_, i) => `k${i}`);
    expect(refusedPaths([], { keywords: many })).toEqual(['keywords']);
    expect(refusedPaths([], { redditKeywords: ['  ', 'x'.repeat(101), 'x'.repeat(100)] })).toEqual([
      'redditKeywords.0',
      'redditKeywords.1',
    ]);
    expect(refusedPaths([], { redditExcludeTerms: many, watchHandles: many.map((k) => `h${k}`) })).toEqual([
      'watchHandles',
      'redditExcludeTerms',
    ]);
  });

  test('a refused save records nothing, whatever else it held', () => {
    spec
      .given([saved({ keywords: ['launch'] })])
      .when(update({ keywords: ['fine'], subreddits: ['no spaces allowed'] }))
      .thenThrows(InvalidFields, /Invalid engagement settings/);
  });
});

describe('feeds', () => {
  const keywordsFeed = {
    name: 'Competitors',
    source: 'keywords' as const,
    keywords: ['buffer', 'hootsuite'],
  };
  const listFeed = { name: 'Founders list', source: 'list' as const, listId: '1234567890' };
  const peopleFeed = { name: 'Customers', source: 'people' as const, handles: ['@acme', 'Globex'] };

  test('each source with what it needs; new feeds get ids from the seed, enabled by default', () => {
    spec
      .given([])
      .when(update({ feeds: [keywordsFeed, listFeed, { ...peopleFeed, enabled: false }] }, 'seed-A'))
      .then([
        saved({
          feeds: [
            {
              id: deterministicUuid('seed-A', 'engagement-feed', '0'),
              name: 'Competitors',
              source: 'keywords',
              keywords: ['buffer', 'hootsuite'],
              listId: null,
              handles: [],
              enabled: true,
            },
            {
              id: deterministicUuid('seed-A', 'engagement-feed', '1'),
              name: 'Founders list',
              source: 'list',
              keywords: [],
              listId: '1234567890',
              handles: [],
              enabled: true,
            },
            {
              id: deterministicUuid('seed-A', 'engagement-feed', '2'),
              name: 'Customers',
              source: 'people',
              keywords: [],
              listId: null,
              handles: ['acme', 'Globex'],
              enabled: false,
            },
          ],
        }),
      ]);
  });

  test('a feed keeps its id when sent with it, or when sent without one under the same name', () => {
    const first = engagementSettingsDecider.decide(update({ feeds: [keywordsFeed] }, 'seed-A'), {
      ...engagementSettingsDecider.initialState,
    });
    const id = first[0]!.data.settings.feeds[0]!.id;
    spec
      .given(first)
      .when(update({ feeds: [{ ...keywordsFeed, name: 'competitors', keywords: ['buffer'] }] }, 'seed-B'))
      .thenState((s) => expect(s.settings.feeds.map((f) => [f.id, f.name])).toEqual([[id, 'competitors']]));
    spec
      .given(first)
      .when(update({ feeds: [{ ...keywordsFeed, id: 'my-feed_1', name: 'Renamed' }] }, 'seed-B'))
      .thenState((s) => expect(s.settings.feeds.map((f) => f.id)).toEqual(['my-feed_1']));
  });

  test('source rules, names, ids and the limit of 20, each named', () => {
    expect(
      refusedPaths([], {
        feeds: [
          { name: 'No keywords', source: 'keywords' },
          { name: 'No list', source: 'list' },
          { name: 'Bad list', source: 'list', listId: 'abc' },
          { name: 'Nobody', source: 'people' },
          { name: 'Stray list id', source: 'keywords', keywords: ['a'], listId: '1' },
          { name: 'Stray handles', source: 'list', listId: '1', handles: ['jack'] },
          { name: '  ', source: 'keywords', keywords: ['a'] },
          { name: 'no keywords', source: 'keywords', keywords: ['b'] },
          { id: 'has space', name: 'Bad id', source: 'keywords', keywords: ['a'] },
          { id: 'same', name: 'One', source: 'keywords', keywords: ['a'] },
          { id: 'same', name: 'Two', source: 'keywords', keywords: ['a'] },
          { name: 'Bad handle', source: 'people', handles: ['not a handle'] },
        ],
      }),
    ).toEqual([
      'feeds.0.keywords',
      'feeds.1.listId',
      'feeds.2.listId',
      'feeds.3.handles',
      'feeds.4.listId',
      'feeds.5.handles',
      'feeds.6.name',
      'feeds.7.name',
      'feeds.8.id',
      'feeds.10.id',
      'feeds.11.handles.0',
    ]);
    const many = Array.from({ length: 21 }, (_, i) => ({
      name: `f${i}`,
      source: 'keywords' as const,
      keywords: ['a'],
    }));
    expect(refusedPaths([], { feeds: many })).toEqual(['feeds']);
  });
});
