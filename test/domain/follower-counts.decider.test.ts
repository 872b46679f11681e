// The follower-count decider: a reading recorded, later ones counted on, repeats and late readings deciding
// nothing, an unavailability recorded once until a reading succeeds again, refused numbers named by field, another
// account's events refused; and as a property, any sequence of commands keeps the readings in time order.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { audienceEventCodec } from '../../domain/analytics/audience-codec.js';
import {
  accountAudienceDecider,
  type AccountAudienceCommand,
  type AccountStatsReading,
  type AudienceEvent,
} from '../../domain/analytics/follower-counts.js';
import { fold } from '../../domain/shared/decider.js';
import { Conflict, InvalidFields } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';
import { propertyRuns } from '../support/property-runs.js';

const subject = {
  orgId: '00000000-0000-4000-8000-000000000001',
  socialAccountId: '00000000-0000-4000-8000-0000000000c1',
  platform: 'x' as const,
};
const day1 = '2026-03-03T10:00:00.000Z';
const day2 = '2026-03-04T10:00:00.000Z';
const day3 = '2026-03-05T10:00:00.000Z';
const stats = (followers: number, overrides: Partial<AccountStatsReading> = {}): AccountStatsReading => ({
  followers,
  following: 120,
  posts: 48,
  ...overrides,
});
const record = (s: AccountStatsReading, readAt: string): AccountAudienceCommand => ({
  type: 'RecordAccountStats',
  ...subject,
  stats: s,
  readAt,
});
const read = (s: AccountStatsReading, readAt: string): AudienceEvent => ({
  type: 'AccountStatsRead',
  data: { ...subject, ...s, readAt },
});
const refuse = (at: string, missingScopes = ['users.read']): AccountAudienceCommand => ({
  type: 'RecordAccountStatsUnavailable',
  ...subject,
  reason: 'needs_permission',
  message: 'The grant lacks the users.read scope',
  missingScopes,
  at,
});
const unavailable = (at: string, missingScopes = ['users.read']): AudienceEvent => ({
  type: 'AccountStatsUnavailable',
  data: {
    ...subject,
    reason: 'needs_permission',
    message: 'The grant lacks the users.read scope',
    missingScopes,
    at,
  },
});
const spec = deciderSpec(accountAudienceDecider);

describe('recording follower counts', () => {
  test("an account's first reading, then a later one counted on", () => {
    spec
      .given([])
      .when(record(stats(1000), day1))
      .then([read(stats(1000), day1)]);
    spec
      .given([read(stats(1000), day1)])
      .when(record(stats(1012, { following: null, posts: null }), day2))
      .then([read(stats(1012, { following: null, posts: null }), day2)]);
    spec
      .given([read(stats(1000), day1)])
      .when(record(stats(1012), day2))
      .thenState((s) =>
        expect(s).toMatchObject({
          kind: 'tracked',
          readings: 2,
          lastReadAt: day2,
          latest: stats(1012),
          unavailable: null,
        }),
      );
  });

  test('the same reading again decides nothing, and neither does an older one arriving late', () => {
    spec
      .given([read(stats(1000), day1)])
      .when(record(stats(1000), day1))
      .then([]);
    spec
      .given([read(stats(1000), day1), read(stats(1020), day3)])
      .when(record(stats(1010), day2))
      .then([]);
  });

  test('follower counts that are not whole numbers of 0 or more, and bad times, are refused by field', () => {
    try {
      accountAudienceDecider.decide(
        record(stats(-1, { following: 1.5, posts: Number.NaN }), 'yesterday'),
        accountAudienceDecider.initialState,
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidFields);
      expect((error as InvalidFields).details?.map((d) => d.path)).toEqual([
        'stats.followers',
        'stats.following',
        'stats.posts',
        'readAt',
      ]);
    }
    spec
      .given([])
      .when(refuse('soon'))
      .thenThrows(InvalidFields, /Invalid follower counts/);
  });

  test("another workspace's or account's counts on this stream are a conflict", () => {
    spec
      .given([read(stats(1000), day1)])
      .when({ ...record(stats(1001), day2), orgId: '00000000-0000-4000-8000-000000000009' })
      .thenThrows(Conflict, /another account/);
    spec
      .given([read(stats(1000), day1)])
      .when({ ...refuse(day2), socialAccountId: '00000000-0000-4000-8000-0000000000c9' })
      .thenThrows(Conflict, /another account/);
  });
});

describe('when the counts cannot be read', () => {
  test('the unavailability is recorded once, again only when what is missing changes', () => {
    spec
      .given([])
      .when(refuse(day1))
      .then([unavailable(day1)]);
    spec
      .given([unavailable(day1)])
      .when(refuse(day2))
      .then([]);
    spec
      .given([unavailable(day1)])
      .when(refuse(day2, ['users.read', 'tweet.read']))
      .then([unavailable(day2, ['users.read', 'tweet.read'])]);
  });

  test('a reading after it clears it, and a refusal older than the last reading decides nothing', () => {
    spec
      .given([unavailable(day1)])
      .when(record(stats(900), day2))
      .thenState((s) => expect(s).toMatchObject({ unavailable: null, readings: 1 }));
    spec
      .given([unavailable(day1), read(stats(900), day2)])
      .when(refuse(day3))
      .then([unavailable(day3)]);
    spec
      .given([read(stats(900), day2)])
      .when(refuse(day1))
      .then([]);
  });
});

test('the codec reads back what the decider writes, and refuses a reading without its followers', () => {
  const events = [read(stats(1000), day1), unavailable(day2), read(stats(1005, { posts: null }), day3)];
  const stored = events.map((event, revision) => ({
    streamName: `accountAudience-${subject.socialAccountId}`,
    revision,
    type: event.type,
    data: JSON.parse(JSON.stringify(event.data)) as unknown,
    metadata: { schemaVersion: audienceEventCodec.schemaVersion(event.type) },
  }));
  const decoded = audienceEventCodec.decodeAll(stored);
  expect(decoded).toEqual(events);
  expect(fold(accountAudienceDecider, decoded)).toMatchObject({
    readings: 2,
    lastReadAt: day3,
    unavailable: null,
  });
  const { followers: _followers, ...withoutFollowers } = (
    events[0] as Extract<AudienceEvent, { type: 'AccountStatsRead' }>
  ).data;
  expect(() => audienceEventCodec.decode({ ...stored[0]!, data: withoutFollowers })).toThrow(/followers/);
});

test('property: whatever readings and refusals come, in whatever order, readings are recorded in time order and only newer ones count', () => {
  const base = Date.parse('2026-03-01T00:00:00.000Z');
  const command = fc.oneof(
    fc.record({
      kind: fc.constant('read' as const),
      hour: fc.integer({ min: 0, max: 200 }),
      followers: fc.integer({ min: 0, max: 1_000_000 }),
    }),
    fc.record({
      kind: fc.constant('refuse' as const),
      hour: fc.integer({ min: 0, max: 200 }),
      scopes: fc.subarray(['users.read', 'tweet.read']),
    }),
  );
  fc.assert(
    fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
      let state = accountAudienceDecider.initialState;
      const readTimes: number[] = [];
      let newest = -Infinity;
      for (const c of commands) {
        const at = new Date(base + c.hour * 3_600_000).toISOString();
        const events = accountAudienceDecider.decide(
          c.kind === 'read' ? record(stats(c.followers), at) : refuse(at, c.scopes),
          state,
        );
        for (const event of events) {
          if (event.type === 'AccountStatsRead') {
            readTimes.push(Date.parse(event.data.readAt));
            // A reading is recorded only when it is newer than every earlier one.
            expect(Date.parse(event.data.readAt)).toBeGreaterThan(newest);
            newest = Date.parse(event.data.readAt);
          }
          state = accountAudienceDecider.evolve(state, event);
        }
      }
      expect([...readTimes].sort((a, b) => a - b)).toEqual(readTimes);
      if (state.kind === 'tracked') expect(state.readings).toBe(readTimes.length);
      else expect(readTimes).toHaveLength(0);
    }),
    { numRuns: propertyRuns(300) },
  );
});
