// When a post is published, its metrics are to be read at ages that slow down: this process manager writes the post's
// row of the fetch schedule (post_metrics_fetches) in the same transaction as its checkpoint, so a published
// post is never forgotten and replaying the log writes nothing twice. The metrics fetcher does the reading.
import { sql } from 'kysely';
import { postGroupEventCodec } from '../../domain/post-groups/event-codec.js';
import { readsFrom } from '../../projections/engine/event-sources.js';
import { defineProcess } from '../runner/process-manager.js';

const hourMs = 3_600_000;

const dayMs = 24 * hourMs;

/**
 * When a post's metrics are read, after its publication: slowing with its age, as its numbers settle. An hour, six
 * hours and a day, then weekly (7, 14, 21 and 28 days) and a last reading at 30 days, when its window closes.
 * (Until issue 28: an hour, a day, three days and a week; rows on that schedule move onto this one at their next
 * reading, and rows it had finished within 30 days of publication were taken up again by migration 0036.)
 */
export const METRICS_FETCH_OFFSETS_MS: readonly number[] = [
  hourMs,
  6 * hourMs,
  dayMs,
  7 * dayMs,
  14 * dayMs,
  21 * dayMs,
  28 * dayMs,
  30 * dayMs,
];

/** The last reading's age: a post older than this is read no more. */
export const METRICS_WINDOW_MS = METRICS_FETCH_OFFSETS_MS[METRICS_FETCH_OFFSETS_MS.length - 1]!;

/**
 * The next reading due after one taken at `at` (or at the start, with `at` = publication): the first offset
 * still ahead of `at`. Readings whose time passed while nobody read (a backlog, a stopped service, a refresh)
 * are skipped rather than taken one after another. Null when the last one is behind.
 */
export function nextFetchAt(publishedAt: string, at: Date): string | null {
  const published = Date.parse(publishedAt);
  const next = METRICS_FETCH_OFFSETS_MS.map((offset) => published + offset).find((t) => t > at.getTime());
  return next === undefined ? null : new Date(next).toISOString();
}

export const postMetricsScheduleProcess = defineProcess({
  name: 'post-metrics-schedule',
  reads: [readsFrom(postGroupEventCodec, ['PostPublished'])],
  async handle(trx, event) {
    const d = event.data;
    // The first reading an hour after publication; a post published long ago (the log replayed when this
    // process first runs) is due at once, and the fetcher then skips the readings whose time is past.
    const first = new Date(Date.parse(d.at) + METRICS_FETCH_OFFSETS_MS[0]!).toISOString();
    await sql`
      insert into post_metrics_fetches (post_id, org_id, group_id, external_id, url, published_at, next_fetch_at)
      values (${d.postId}, ${d.orgId}, ${d.groupId}, ${d.externalId}, ${d.url}, ${d.at}, ${first})
      on conflict (post_id) do nothing`.execute(trx);
  },
});
