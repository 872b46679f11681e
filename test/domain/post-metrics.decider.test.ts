// The post metrics decider: the first reading of a post, later ones counted on, the engagement sum, repeats and
// late readings deciding nothing, refused numbers named by field, and the codec reading back what it writes.
import { describe, expect, test } from 'vitest';
import {
  engagementOf,
  postMetricsDecider,
  type MetricsReading,
  type PostMetricsCommand,
  type PostMetricsEvent,
} from '../../domain/analytics/post-metrics.js';
import { postMetricsEventCodec } from '../../domain/analytics/event-codec.js';
import { fold } from '../../domain/shared/decider.js';
import { Conflict, InvalidFields } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const subject = {
  orgId: '00000000-0000-4000-8000-000000000001',
  postId: '00000000-0000-4000-8000-0000000000a1',
  groupId: '00000000-0000-4000-8000-0000000000b1',
  platform: 'x' as const,
  socialAccountId: '00000000-0000-4000-8000-0000000000c1',
  externalId: '1790000000000000001',
  publishedAt: '2026-03-03T09:00:00.000Z',
  contentType: 'educational',
};
const reading = (likes: number, overrides: Partial<MetricsReading> = {}): MetricsReading => ({
  likes,
  reposts: 4,
  replies: 3,
  quotes: 1,
  bookmarks: 2,
  impressions: 900,
  ...overrides,
});
const hour1 = '2026-03-03T10:00:00.000Z';
const day1 = '2026-03-04T09:00:00.000Z';

const record = (metrics: MetricsReading, fetchedAt: string): PostMetricsCommand => ({
  type: 'RecordPostMetrics',
  ...subject,
  metrics,
  fetchedAt,
});
const fetched = (metrics: MetricsReading, fetchedAt: string, fetchNumber: number): PostMetricsEvent => ({
  type: 'PostMetricsFetched',
  data: { ...subject, metrics, engagement: engagementOf(metrics), fetchNumber, fetchedAt },
});
const spec = deciderSpec(postMetricsDecider);

describe('recording a reading', () => {
  test("a post's first reading is fetch number 1, with the engagement summed", () => {
    spec
      .given([])
      .when(record(reading(20), hour1))
      .then([fetched(reading(20), hour1, 1)]);
    expect(engagementOf(reading(20))).toBe(20 + 4 + 3 + 1 + 2);
    expect(engagementOf(reading(20, { bookmarks: null, impressions: null }))).toBe(28);
  });

  test('a later reading is counted on from the last one and becomes the post numbers', () => {
    spec
      .given([fetched(reading(20), hour1, 1)])
      .when(record(reading(55), day1))
      .then([fetched(reading(55), day1, 2)]);
    spec
      .given([fetched(reading(20), hour1, 1)])
      .when(record(reading(55), day1))
      .thenState((s) => {
        expect(s).toMatchObject({ kind: 'tracked', fetchCount: 2, lastFetchedAt: day1, engagement: 65 });
      });
  });

  test('the same reading again decides nothing, and neither does an older one arriving late', () => {
    spec
      .given([fetched(reading(20), hour1, 1)])
      .when(record(reading(20), hour1))
      .then([]);
    spec
      .given([fetched(reading(20), hour1, 1), fetched(reading(55), day1, 2)])
      .when(record(reading(30), '2026-03-03T12:00:00.000Z'))
      .then([]);
  });

  test('counts below zero, not numbers or bad times are refused, named by field', () => {
    spec
      .given([])
      .when(record(reading(-1, { impressions: Number.NaN }), hour1))
      .thenThrows(InvalidFields, /Invalid post metrics/);
    try {
      postMetricsDecider.decide(
        { ...record(reading(-1, { impressions: Number.NaN }), 'yesterday'), publishedAt: 'soon' },
        postMetricsDecider.initialState,
      );
      expect.unreachable();
    } catch (error) {
      expect((error as InvalidFields).details?.map((d) => d.path)).toEqual([
        'metrics.likes',
        'metrics.impressions',
        'fetchedAt',
        'publishedAt',
      ]);
    }
  });

  test("a reading of another workspace's post on this stream is a conflict", () => {
    spec
      .given([fetched(reading(20), hour1, 1)])
      .when({ ...record(reading(30), day1), orgId: '00000000-0000-4000-8000-000000000009' })
      .thenThrows(Conflict, /another post/);
  });
});

test('the codec reads back what the decider writes, and refuses a reading without its numbers', () => {
  const events = [fetched(reading(20), hour1, 1), fetched(reading(55, { bookmarks: null }), day1, 2)];
  const stored = events.map((event, revision) => ({
    streamName: `postMetrics-${subject.postId}`,
    revision,
    type: event.type,
    data: JSON.parse(JSON.stringify(event.data)) as unknown,
    metadata: { schemaVersion: postMetricsEventCodec.schemaVersion(event.type) },
  }));
  const decoded = postMetricsEventCodec.decodeAll(stored);
  expect(decoded).toEqual(events);
  expect(fold(postMetricsDecider, decoded)).toMatchObject({ kind: 'tracked', fetchCount: 2 });
  const { metrics: _metrics, ...withoutMetrics } = events[0]!.data;
  expect(() => postMetricsEventCodec.decode({ ...stored[0]!, data: withoutMetrics })).toThrow(/metrics/);
});
