// Read model of the context library (issue 31): one row per source and one per document, folded with the domain's
// own evolve and guarded by the stream revision, so a replayed event changes nothing. A deleted document keeps its
// row as a tombstone (`deleted`), so a replay of an older event cannot bring it back; reads leave tombstones out.
import { sql, type JSONColumnType } from 'kysely';
import {
  contextDocumentDecider,
  type ContextDocument,
  type ContextDocumentState,
} from '../../domain/context/document.js';
import { contextDocumentEventCodec, contextSourceEventCodec } from '../../domain/context/event-codec.js';
import {
  contextSourceDecider,
  type ContextSource,
  type ContextSourceState,
} from '../../domain/context/source.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

/** Types, not interfaces, so `withTables` takes them. */
export type ContextSourcesTable = {
  id: string;
  org_id: string;
  revision: number;
  created_at: string;
  state: JSONColumnType<ContextSource>;
};
export type ContextDocumentsTable = {
  id: string;
  org_id: string;
  source_id: string;
  revision: number;
  deleted: boolean;
  feeds: boolean;
  synced_at: string | null;
  state: JSONColumnType<ContextDocument | null>;
};
export type ContextTables = {
  context_sources: ContextSourcesTable;
  context_documents: ContextDocumentsTable;
};

export const contextProjection = defineProjection({
  name: 'context_library',
  version: 1,
  tables: ['context_sources', 'context_documents'],
  reads: [readsFrom(contextSourceEventCodec), readsFrom(contextDocumentEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.context_sources (
        id uuid primary key,
        org_id uuid not null,
        revision integer not null,
        created_at timestamptz not null,
        state jsonb not null
      )`.execute(trx);
    await sql`create index on ${s}.context_sources (org_id, created_at)`.execute(trx);
    await sql`
      create table ${s}.context_documents (
        id uuid primary key,
        org_id uuid not null,
        source_id uuid not null,
        revision integer not null,
        deleted boolean not null,
        feeds boolean not null,
        synced_at timestamptz,
        state jsonb
      )`.execute(trx);
    await sql`create index on ${s}.context_documents (org_id, synced_at desc) where not deleted`.execute(trx);
  },

  async apply(trx, event, schema) {
    if (event.type.startsWith('ContextSource')) {
      const e = event as Parameters<typeof contextSourceDecider.evolve>[1] & { revision: number };
      const db = trx.withTables<ContextTables>().withSchema(schema);
      const id = e.data.sourceId;
      const row = await db
        .selectFrom('context_sources')
        .select(['revision', 'state'])
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (row && row.revision >= e.revision) return;
      const before: ContextSourceState = row ? { status: 'exists', source: row.state } : { status: 'none' };
      const next = contextSourceDecider.evolve(before, e);
      if (next.status !== 'exists') return;
      const values = {
        id,
        org_id: next.source.orgId,
        revision: e.revision,
        created_at: next.source.createdAt,
        state: JSON.stringify(next.source),
      };
      await db
        .insertInto('context_sources')
        .values(values)
        .onConflict((oc) => oc.column('id').doUpdateSet({ revision: values.revision, state: values.state }))
        .execute();
      return;
    }
    const e = event as Parameters<typeof contextDocumentDecider.evolve>[1] & { revision: number };
    const db = trx.withTables<ContextTables>().withSchema(schema);
    const id = e.data.documentId;
    const row = await db
      .selectFrom('context_documents')
      .select(['revision', 'state', 'source_id'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (row && row.revision >= e.revision) return;
    const before: ContextDocumentState = row?.state
      ? { status: 'exists', document: row.state }
      : contextDocumentDecider.initialState;
    const next = contextDocumentDecider.evolve(before, e);
    const document = next.status === 'exists' ? next.document : null;
    const values = {
      id,
      org_id: e.data.orgId,
      source_id: document?.sourceId ?? row?.source_id ?? ('sourceId' in e.data ? e.data.sourceId : id),
      revision: e.revision,
      deleted: next.status === 'deleted',
      feeds: document !== null && document.enabled && document.disclosure === 'public',
      synced_at: document?.syncedAt ?? null,
      state: JSON.stringify(document),
    };
    await db
      .insertInto('context_documents')
      .values(values)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          source_id: values.source_id,
          revision: values.revision,
          deleted: values.deleted,
          feeds: values.feeds,
          synced_at: values.synced_at,
          state: values.state,
        }),
      )
      .execute();
  },
});
