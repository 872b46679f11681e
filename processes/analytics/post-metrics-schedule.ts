// When a post is published, its metrics are to be read at fixed ages: this process manager writes the post's
// row of the fetch schedule (post_metrics_fetches) in the same transaction as its checkpoint, so a published
// post is never forgotten and replaying the log writes nothing twice. The metrics fetcher does the reading.
import { sql } from 'kysely';
import { postGroupEventCodec } from '../../domain/post-groups/event-codec.js';
import { readsFrom } from '../../projections/engine/event-sources.js';
import { defineProcess } from '../runner/process-manager.js';

const hourMs = 3_600_000;

/** When a post's metrics are read, after its publication: an hour, a day, three days and a week. */
export const METRICS_FETCH_OFFSETS_MS: readonly number[] = [
  hourMs,
  24 * hourMs,
  72 * hourMs,
  7 * 24 * hourMs,
];

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
