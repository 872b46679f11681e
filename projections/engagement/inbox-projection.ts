// Read model of the reply inbox for GET ORG/engagement (list_reply_inbox): one row per item, folded with the
// domain's own evolve and guarded by the stream revision (an event applied twice changes nothing). `bucket` is the
// list's status filter (open: new, drafted, failed; sent: sending, sent; dismissed), `sort_at` its order (the
// post's time, else when it was found): the index (org_id, bucket, sort_at desc, item_id desc) answers a page of
// any filter without sorting, at 50,000 items a workspace too (test/api/engagement/inbox-list.bench.test.ts).
import { sql, type JSONColumnType } from 'kysely';
import { inboxItemDecider, type InboxItem, type InboxStatus } from '../../domain/engagement/inbox-item.js';
import { inboxItemEventCodec } from '../../domain/engagement/event-codec.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

export type InboxBucket = 'open' | 'sent' | 'dismissed';

export const bucketOf = (status: InboxStatus): InboxBucket =>
  status === 'sent' || status === 'sending' ? 'sent' : status === 'dismissed' ? 'dismissed' : 'open';

/** A type, not an interface, so `withTables` takes it. */
export type InboxItemsTable = {
  item_id: string;
  org_id: string;
  revision: number;
  status: string;
  bucket: InboxBucket;
  kind: string;
  platform: string;
  feed_id: string | null;
  external_post_id: string;
  relevance: number | null;
  sort_at: string | Date;
  item: JSONColumnType<InboxItem>;
};
/** How many items of a workspace are in each list bucket, by platform and kind (the list's `total` without counting rows). */
export type InboxCountsTable = {
  org_id: string;
  bucket: string;
  platform: string;
  kind: string;
  n: number;
};
export type InboxItemTables = { inbox_items: InboxItemsTable; inbox_counts: InboxCountsTable };

export const inboxItemsProjection = defineProjection({
  name: 'inbox_items',
  // 2: the counts per bucket, platform and kind (the list's total read from them, not counted at each request).
  version: 2,
  tables: ['inbox_items', 'inbox_counts'],
  reads: [readsFrom(inboxItemEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.inbox_items (
        item_id uuid primary key,
        org_id uuid not null,
        revision integer not null,
        status text not null,
        bucket text not null,
        kind text not null,
        platform text not null,
        feed_id text,
        external_post_id text not null,
        relevance integer,
        sort_at timestamptz not null,
        item jsonb not null
      )`.execute(trx);
    await sql`create index on ${s}.inbox_items (org_id, bucket, sort_at desc, item_id desc)`.execute(trx);
    await sql`create index on ${s}.inbox_items (org_id, sort_at desc, item_id desc)`.execute(trx);
    await sql`create index on ${s}.inbox_items (org_id, feed_id, bucket) where feed_id is not null`.execute(
      trx,
    );
    await sql`
      create table ${s}.inbox_counts (
        org_id uuid not null,
        bucket text not null,
        platform text not null,
        kind text not null,
        n integer not null,
        primary key (org_id, bucket, platform, kind)
      )`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<InboxItemTables>().withSchema(schema);
    const id = event.data.itemId;
    const row = await db
      .selectFrom('inbox_items')
      .select(['revision', 'item'])
      .where('item_id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (row && row.revision >= event.revision) return;
    if (!row && event.type !== 'InboxItemFound') return;
    const before = row
      ? {
          status: 'present' as const,
          item: (typeof row.item === 'string' ? JSON.parse(row.item) : row.item) as InboxItem,
        }
      : inboxItemDecider.initialState;
    const next = inboxItemDecider.evolve(before, event);
    if (next.status !== 'present') return;
    const item = next.item;
    const wasIn = before.status === 'present' ? bucketOf(before.item.status) : null;
    const isIn = bucketOf(item.status);
    if (wasIn !== isIn) {
      const count = (bucket: string, by: number) =>
        db
          .insertInto('inbox_counts')
          .values({ org_id: item.orgId, bucket, platform: item.platform, kind: item.kind, n: by })
          .onConflict((oc) =>
            oc
              .columns(['org_id', 'bucket', 'platform', 'kind'])
              .doUpdateSet((eb) => ({ n: eb('inbox_counts.n', '+', eb.ref('excluded.n')) })),
          )
          .execute();
      if (wasIn !== null) await count(wasIn, -1);
      await count(isIn, 1);
    }
    const values = {
      item_id: id,
      org_id: item.orgId,
      revision: event.revision,
      status: item.status,
      bucket: isIn,
      kind: item.kind,
      platform: item.platform,
      feed_id: item.feedId,
      external_post_id: item.externalPostId,
      relevance: item.relevance,
      sort_at: item.postedAt ?? item.createdAt,
      item: JSON.stringify(item),
    };
    await db
      .insertInto('inbox_items')
      .values(values)
      .onConflict((oc) =>
        oc.column('item_id').doUpdateSet({
          revision: values.revision,
          status: values.status,
          bucket: values.bucket,
          item: values.item,
        }),
      )
      .execute();
  },
});
