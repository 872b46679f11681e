// Read model of the inspiration library (issue 31) for GET ORG/inspiration, the opportunities and GET one: one row
// per item, folded with the domain's own evolve and guarded by the stream revision, with the item's interpretation
// against the workspace's strategy beside it. The projection also reads the strategy's events: it keeps each
// workspace's strategy state (`inspiration_strategies`, folded with the strategy's own evolve) and, when it changes,
// reads every item of the workspace against it again, so relevance follows the strategy. A deleted item keeps its
// row as a tombstone (`deleted`); every read leaves tombstones out.
import { sql, type JSONColumnType } from 'kysely';
import { inspirationEventCodec } from '../../domain/inspiration/event-codec.js';
import { interpret, strategyLensOf, type Interpretation } from '../../domain/inspiration/interpretation.js';
import {
  inspirationDecider,
  type InspirationItem,
  type InspirationState,
} from '../../domain/inspiration/item.js';
import { strategyEventCodec } from '../../domain/strategy/event-codec.js';
import { strategyDecider, type StrategyState } from '../../domain/strategy/strategy.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection, type ReadModelTransaction } from '../engine/projection.js';

/** Types, not interfaces, so `withTables` takes them. */
export type InspirationItemsTable = {
  id: string;
  org_id: string;
  revision: number;
  deleted: boolean;
  platform: string;
  analysis_status: string;
  opportunity_status: string;
  /** Lower-cased for the contains filters. */
  topic: string | null;
  hook: string | null;
  audience: string | null;
  /** The author's name and handle, lower-cased (the `creator` filter). */
  creator: string | null;
  /** Lower-cased (the `tag` filter). */
  tags: string[];
  source_url: string | null;
  source_external_id: string | null;
  created_at: string;
  relevance_score: number | null;
  /** The aggregate's item (null once deleted). */
  item: JSONColumnType<InspirationItem | null>;
  interpretation: JSONColumnType<Interpretation | null>;
};
export type InspirationStrategiesTable = {
  org_id: string;
  revision: number;
  state: JSONColumnType<StrategyState>;
};
export type InspirationTables = {
  inspiration_items: InspirationItemsTable;
  inspiration_strategies: InspirationStrategiesTable;
};

const lower = (text: string | null | undefined) => (text ? text.toLowerCase() : null);

const tablesIn = (trx: ReadModelTransaction, schema: string) =>
  trx.withTables<InspirationTables>().withSchema(schema);
type Db = ReturnType<typeof tablesIn>;

async function strategyStateOf(
  db: Db,
  orgId: string,
): Promise<{ state: StrategyState; revision: number } | null> {
  const row = await db
    .selectFrom('inspiration_strategies')
    .select(['state', 'revision'])
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  if (!row) return null;
  const state = (typeof row.state === 'string' ? JSON.parse(row.state) : row.state) as StrategyState;
  return { state, revision: row.revision };
}

function columnsOf(item: InspirationItem | null, interpretation: Interpretation | null) {
  return {
    platform: item?.platform ?? 'x',
    analysis_status: item?.analysisStatus ?? 'pending',
    opportunity_status: item?.opportunityStatus ?? 'open',
    topic: lower(item?.analysis?.topic),
    hook: lower(item?.analysis?.hook),
    audience: lower(item?.analysis?.audience),
    creator: item ? lower([item.authorName, item.authorHandle].filter(Boolean).join(' ')) : null,
    tags: (item?.tags ?? []).map((t) => t.toLowerCase()),
    source_url: item?.sourceUrl ?? null,
    source_external_id: item?.sourceExternalId ?? null,
    relevance_score: interpretation?.relevanceScore ?? null,
    item: JSON.stringify(item),
    interpretation: JSON.stringify(interpretation),
  };
}

export const inspirationProjection = defineProjection({
  name: 'inspiration',
  version: 1,
  tables: ['inspiration_items', 'inspiration_strategies'],
  reads: [readsFrom(inspirationEventCodec), readsFrom(strategyEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.inspiration_items (
        id uuid primary key,
        org_id uuid not null,
        revision integer not null,
        deleted boolean not null,
        platform text not null,
        analysis_status text not null,
        opportunity_status text not null,
        topic text,
        hook text,
        audience text,
        creator text,
        tags text[] not null,
        source_url text,
        source_external_id text,
        created_at timestamptz not null,
        relevance_score integer,
        item jsonb,
        interpretation jsonb
      )`.execute(trx);
    // The two sorts (recent; relevance), the opportunities (by status, most relevant first), a saved link's
    // duplicate (by the post's id), and the tag filter.
    await sql`create index on ${s}.inspiration_items (org_id, created_at desc, id desc) where not deleted`.execute(
      trx,
    );
    await sql`create index on ${s}.inspiration_items (org_id, relevance_score desc nulls last, created_at desc, id desc) where not deleted`.execute(
      trx,
    );
    await sql`create index on ${s}.inspiration_items (org_id, opportunity_status, relevance_score desc nulls last) where not deleted`.execute(
      trx,
    );
    await sql`create index on ${s}.inspiration_items (org_id, platform, source_external_id) where not deleted and source_external_id is not null`.execute(
      trx,
    );
    await sql`create index on ${s}.inspiration_items using gin (tags) where not deleted`.execute(trx);
    await sql`
      create table ${s}.inspiration_strategies (
        org_id uuid primary key,
        revision integer not null,
        state jsonb not null
      )`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = tablesIn(trx, schema);
    if (strategyEventCodec.knows(event.type)) {
      // The strategy changed: fold it, then read the workspace's items against it again.
      const orgId = (event.data as { orgId: string }).orgId;
      const known = await strategyStateOf(db, orgId);
      if (known && known.revision >= event.revision) return;
      const state = strategyDecider.evolve(
        known?.state ?? strategyDecider.initialState,
        event as Parameters<typeof strategyDecider.evolve>[1],
      );
      await db
        .insertInto('inspiration_strategies')
        .values({ org_id: orgId, revision: event.revision, state: JSON.stringify(state) })
        .onConflict((oc) =>
          oc.column('org_id').doUpdateSet({ revision: event.revision, state: JSON.stringify(state) }),
        )
        .execute();
      const lens = strategyLensOf(state, event.recordedAt);
      const rows = await db
        .selectFrom('inspiration_items')
        .select(['id', 'item'])
        .where('org_id', '=', orgId)
        .where('deleted', '=', false)
        .execute();
      for (const row of rows) {
        const item = (
          typeof row.item === 'string' ? JSON.parse(row.item) : row.item
        ) as InspirationItem | null;
        if (!item) continue;
        const interpretation = interpret(item, lens);
        await db
          .updateTable('inspiration_items')
          .set({
            relevance_score: interpretation?.relevanceScore ?? null,
            interpretation: JSON.stringify(interpretation),
          })
          .where('id', '=', row.id)
          .execute();
      }
      return;
    }
    const data = event.data as { orgId: string; itemId: string };
    const row = await db
      .selectFrom('inspiration_items')
      .select(['revision', 'item', 'created_at'])
      .where('id', '=', data.itemId)
      .forUpdate()
      .executeTakeFirst();
    if (row && row.revision >= event.revision) return;
    const stored = row?.item
      ? ((typeof row.item === 'string' ? JSON.parse(row.item) : row.item) as InspirationItem)
      : null;
    const before: InspirationState = stored
      ? { status: 'exists', item: stored }
      : inspirationDecider.initialState;
    const next = inspirationDecider.evolve(before, event as Parameters<typeof inspirationDecider.evolve>[1]);
    const item = next.status === 'exists' ? next.item : null;
    const strategy = item ? await strategyStateOf(db, data.orgId) : null;
    const interpretation =
      item && strategy ? interpret(item, strategyLensOf(strategy.state, event.recordedAt)) : null;
    const values = {
      id: data.itemId,
      org_id: data.orgId,
      revision: event.revision,
      deleted: next.status === 'deleted',
      created_at: item?.createdAt ?? row?.created_at ?? event.recordedAt,
      ...columnsOf(item, interpretation),
    };
    await db
      .insertInto('inspiration_items')
      .values(values)
      .onConflict((oc) => oc.column('id').doUpdateSet({ ...values, id: undefined, org_id: undefined }))
      .execute();
  },
});
