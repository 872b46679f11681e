// Read model of saved thoughts (issue 29) for GET ORG/thoughts and the writers' active thoughts: one row per
// thought, folded with the domain's own evolve and guarded by the stream revision, so a replayed event changes
// nothing. A deleted thought keeps its row as a tombstone (`deleted`), so a replay of an older event cannot bring
// it back; every read leaves tombstones out.
import { sql, type JSONColumnType } from 'kysely';
import { thoughtEventCodec } from '../../domain/thoughts/event-codec.js';
import { thoughtDecider, type Thought, type ThoughtState } from '../../domain/thoughts/thought.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

/** A type, not an interface, so `withTables` takes it. */
export type ThoughtsTable = {
  id: string;
  org_id: string;
  revision: number;
  status: string;
  deleted: boolean;
  created_at: string;
  /** The aggregate's thought (null once deleted). */
  state: JSONColumnType<Thought | null>;
};
export type ThoughtTables = { thoughts: ThoughtsTable };

export const thoughtsProjection = defineProjection({
  name: 'thoughts',
  version: 1,
  tables: ['thoughts'],
  reads: [readsFrom(thoughtEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.thoughts (
        id uuid primary key,
        org_id uuid not null,
        revision integer not null,
        status text not null,
        deleted boolean not null,
        created_at timestamptz not null,
        state jsonb
      )`.execute(trx);
    await sql`create index on ${s}.thoughts (org_id, created_at desc, id desc) where not deleted`.execute(
      trx,
    );
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<ThoughtTables>().withSchema(schema);
    const thoughtId = event.data.thoughtId;
    const row = await db
      .selectFrom('thoughts')
      .select(['revision', 'state', 'deleted', 'created_at'])
      .where('id', '=', thoughtId)
      .forUpdate()
      .executeTakeFirst();
    if (row && row.revision >= event.revision) return;
    const before: ThoughtState = row?.state
      ? { status: 'exists', thought: row.state }
      : thoughtDecider.initialState;
    const next = thoughtDecider.evolve(before, event);
    const thought = next.status === 'exists' ? next.thought : null;
    const values = {
      id: thoughtId,
      org_id: event.data.orgId,
      revision: event.revision,
      status: thought?.status ?? 'deleted',
      deleted: next.status === 'deleted',
      created_at: thought?.createdAt ?? row?.created_at ?? event.recordedAt,
      state: JSON.stringify(thought),
    };
    await db
      .insertInto('thoughts')
      .values(values)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          revision: values.revision,
          status: values.status,
          deleted: values.deleted,
          state: values.state,
        }),
      )
      .execute();
  },
});
