// Read model of tracked DM conversations for GET ORG/dms (list_dm_conversations): one row per tracked conversation,
// folded with the domain's own evolve and guarded by the stream revision (an event applied twice changes nothing).
// Deleting a conversation removes its row (its log is gone from every read); a later add starts a new row. The
// status and follow-up are not stored: they depend on the clock and the workspace's zone, and are read off the
// stored conversation at query time (queries.ts).
import { sql, type JSONColumnType } from 'kysely';
import { dmConversationDecider, type DmConversation } from '../../domain/engagement/dm-conversation.js';
import { dmConversationEventCodec } from '../../domain/engagement/event-codec.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';

/** A type, not an interface, so `withTables` takes it. */
export type DmConversationsTable = {
  conversation_id: string;
  org_id: string;
  revision: number;
  closed: boolean;
  conversation: JSONColumnType<DmConversation>;
};
export type DmConversationTables = { dm_conversations: DmConversationsTable };

export const dmConversationsProjection = defineProjection({
  name: 'dm_conversations',
  version: 1,
  tables: ['dm_conversations'],
  reads: [readsFrom(dmConversationEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.dm_conversations (
        conversation_id uuid primary key,
        org_id uuid not null,
        revision integer not null,
        closed boolean not null,
        conversation jsonb not null
      )`.execute(trx);
    await sql`create index on ${s}.dm_conversations (org_id, closed)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<DmConversationTables>().withSchema(schema);
    const id = event.data.conversationId;
    if (event.type === 'DmConversationDeleted') {
      await db.deleteFrom('dm_conversations').where('conversation_id', '=', id).execute();
      return;
    }
    const row = await db
      .selectFrom('dm_conversations')
      .select(['revision', 'conversation'])
      .where('conversation_id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (row && row.revision >= event.revision) return;
    // Without a row only a start begins one (the other events of a deleted log are behind its deletion).
    if (!row && event.type !== 'DmConversationStarted') return;
    const before = row
      ? { status: 'tracked' as const, conversation: row.conversation }
      : dmConversationDecider.initialState;
    const next = dmConversationDecider.evolve(before, event);
    if (next.status !== 'tracked') return;
    const values = {
      conversation_id: id,
      org_id: next.conversation.orgId,
      revision: event.revision,
      closed: next.conversation.closed,
      conversation: JSON.stringify(next.conversation),
    };
    await db
      .insertInto('dm_conversations')
      .values(values)
      .onConflict((oc) =>
        oc.column('conversation_id').doUpdateSet({
          revision: values.revision,
          closed: values.closed,
          conversation: values.conversation,
        }),
      )
      .execute();
  },
});
