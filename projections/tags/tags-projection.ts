// Read model of tags for GET ORG/marketing/tags and tag-id checks: one row per live tag, removed on delete.
// Every event carries the tag's full values, so applying one twice writes the same row again.
import { sql } from 'kysely';
import { tagEventCodec } from '../../domain/tags/event-codec.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

export const tagsProjection = defineProjection({
  name: 'tags',
  version: 1,
  tables: ['tags'],
  reads: [readsFrom(tagEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.tags (
        id uuid primary key,
        org_id uuid not null,
        name text not null,
        color text,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`.execute(trx);
    await sql`create index on ${s}.tags (org_id, lower(name))`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withSchema(schema);
    switch (event.type) {
      case 'TagCreated': {
        const d = event.data;
        await db
          .insertInto('tags')
          .values({
            id: d.tagId,
            org_id: d.orgId,
            name: d.name,
            color: d.color,
            created_at: d.createdAt,
            updated_at: d.createdAt,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'TagUpdated': {
        const d = event.data;
        await db
          .updateTable('tags')
          .set({ name: d.name, color: d.color, updated_at: d.updatedAt })
          .where('id', '=', d.tagId)
          .where('org_id', '=', d.orgId)
          .execute();
        return;
      }
      case 'TagDeleted': {
        const d = event.data;
        await db.deleteFrom('tags').where('id', '=', d.tagId).where('org_id', '=', d.orgId).execute();
        return;
      }
      default:
        return;
    }
  },
});
