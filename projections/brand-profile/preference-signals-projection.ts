// Read model of the preference signals learned from review (domain/brand-profile/preference-signals.ts): one row
// per signal an event showed, keyed by the event, so folding an event twice counts it once; a signal's count is
// the number of its rows. To see what an edit changed and what an approval approved it keeps each post's current
// text and each group's topic. Only people's own review counts: what an assistant did is not a preference.
import { sql } from 'kysely';
import { postGroupEventCodec } from '../../domain/post-groups/event-codec.js';
import {
  approvalSignals,
  editSignals,
  rejectSignals,
  type LearnedKind,
} from '../../domain/brand-profile/preference-signals.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection, type ReadModelTransaction } from '../engine/projection.js';

/** Types, not interfaces, so `withTables` takes them. */
export type BrandSignalPostsTable = {
  post_id: string;
  org_id: string;
  group_id: string;
  content_text: string;
};
export type BrandSignalGroupsTable = { group_id: string; org_id: string; topic: string | null };
export type BrandSignalOccurrencesTable = {
  org_id: string;
  kind: string;
  signal: string;
  event_id: string;
  seen_at: string;
};
export type BrandSignalTables = {
  brand_signal_posts: BrandSignalPostsTable;
  brand_signal_groups: BrandSignalGroupsTable;
  brand_signal_occurrences: BrandSignalOccurrencesTable;
};

const tablesOf = (trx: ReadModelTransaction, schema: string) =>
  trx.withTables<BrandSignalTables>().withSchema(schema);

async function record(
  db: ReturnType<typeof tablesOf>,
  orgId: string,
  eventId: string,
  at: string,
  kind: LearnedKind,
  signals: readonly string[],
): Promise<void> {
  if (signals.length === 0) return;
  await db
    .insertInto('brand_signal_occurrences')
    .values(signals.map((signal) => ({ org_id: orgId, kind, signal, event_id: eventId, seen_at: at })))
    .onConflict((oc) => oc.columns(['event_id', 'kind', 'signal']).doNothing())
    .execute();
}

export const preferenceSignalsProjection = defineProjection({
  name: 'brand_preference_signals',
  version: 1,
  tables: ['brand_signal_posts', 'brand_signal_groups', 'brand_signal_occurrences'],
  reads: [
    readsFrom(postGroupEventCodec, [
      'PostGroupCreated',
      'PostGroupUpdated',
      'PostGroupApproved',
      'PreferenceSignalRecorded',
      'PostEdited',
    ]),
  ],
  // Reviewers see what their review taught the profile right after it; creating a group waits for nothing here.
  awaitedFor: ['PostGroupApproved', 'PreferenceSignalRecorded', 'PostEdited'],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.brand_signal_posts (
        post_id text primary key,
        org_id uuid not null,
        group_id text not null,
        content_text text not null
      )`.execute(trx);
    await sql`
      create table ${s}.brand_signal_groups (
        group_id text primary key,
        org_id uuid not null,
        topic text
      )`.execute(trx);
    await sql`
      create table ${s}.brand_signal_occurrences (
        org_id uuid not null,
        kind text not null,
        signal text not null,
        event_id text not null,
        seen_at timestamptz not null,
        primary key (event_id, kind, signal)
      )`.execute(trx);
    await sql`create index on ${s}.brand_signal_occurrences (org_id, kind, signal)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = tablesOf(trx, schema);
    const d = event.data;
    switch (event.type) {
      case 'PostGroupCreated': {
        await db
          .insertInto('brand_signal_groups')
          .values({ group_id: d.groupId, org_id: d.orgId, topic: event.data.topic })
          .onConflict((oc) => oc.column('group_id').doNothing())
          .execute();
        if (event.data.posts.length > 0)
          await db
            .insertInto('brand_signal_posts')
            .values(
              event.data.posts.map((p) => ({
                post_id: p.postId,
                org_id: d.orgId,
                group_id: d.groupId,
                content_text: p.contentText,
              })),
            )
            .onConflict((oc) => oc.column('post_id').doNothing())
            .execute();
        return;
      }
      case 'PostGroupUpdated': {
        const topic = event.data.changes.topic;
        if (topic !== undefined)
          await db
            .updateTable('brand_signal_groups')
            .set({ topic })
            .where('group_id', '=', d.groupId)
            .execute();
        return;
      }
      case 'PostEdited': {
        const text = event.data.changes.contentText;
        if (text === undefined) return;
        const row = await db
          .selectFrom('brand_signal_posts')
          .select('content_text')
          .where('post_id', '=', event.data.postId)
          .executeTakeFirst();
        // Folding this event again finds the text it left, the same as the edit's: no signal twice.
        if (row && !d.assistant)
          await record(db, d.orgId, event.id, d.at, 'edit', editSignals(row.content_text, text));
        await db
          .insertInto('brand_signal_posts')
          .values({ post_id: event.data.postId, org_id: d.orgId, group_id: d.groupId, content_text: text })
          .onConflict((oc) => oc.column('post_id').doUpdateSet({ content_text: text }))
          .execute();
        return;
      }
      case 'PostGroupApproved': {
        if (d.assistant) return;
        const ids = event.data.posts.map((p) => p.postId);
        const posts =
          ids.length === 0
            ? []
            : await db
                .selectFrom('brand_signal_posts')
                .select('content_text')
                .where('post_id', 'in', ids)
                .execute();
        const group = await db
          .selectFrom('brand_signal_groups')
          .select('topic')
          .where('group_id', '=', d.groupId)
          .executeTakeFirst();
        await record(
          db,
          d.orgId,
          event.id,
          d.at,
          'approval',
          approvalSignals(
            posts.map((p) => p.content_text),
            group?.topic ?? null,
          ),
        );
        return;
      }
      case 'PreferenceSignalRecorded': {
        if (d.assistant) return;
        const signal = rejectSignals[event.data.signal];
        if (signal) await record(db, d.orgId, event.id, d.at, 'reject', [signal]);
        return;
      }
      default:
        return;
    }
  },
});
