// Read models of post groups and posts, shaped for list posts (filters on platform, status, account, tag and
// time; sorts on scheduledForUtc, createdAt, status, platform) and the calendar. Each row keeps the spec's body.
import { sql, type Transaction } from 'kysely';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import {
  evolvePostGroup,
  postGroupEventTypes,
  type ActivePostGroup,
  type PostGroupEvent,
  type PostGroupState,
} from '../../domain/post-groups/post-group.js';
import { postGroupView, postView } from '../../domain/post-groups/views.js';
import { canonicalJson } from '../../domain/shared/canonical-json.js';
import type { AnyDatabase, Projection } from '../engine/projection.js';

/** Events of other features that change these rows: a deleted tag leaves every group it was on. */
const tagDeleted = 'TagDeleted';

export const postGroupsProjection: Projection = {
  name: 'post_groups',
  // v2: a descending time index for the calendar and lists; post rows written only when they change.
  version: 2,
  tables: ['post_groups', 'posts'],
  eventTypes: [...postGroupEventTypes, tagDeleted],

  async createTables(trx: Transaction<AnyDatabase>, schema: string) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.post_groups (
        id uuid primary key,
        org_id uuid not null,
        status text not null,
        title text not null,
        scheduled_for timestamptz,
        tag_ids uuid[] not null default '{}',
        created_at timestamptz not null,
        updated_at timestamptz not null,
        revision integer not null,
        -- The aggregate state, so each event is folded with the domain's own evolve.
        state jsonb not null,
        body jsonb not null
      )`.execute(trx);
    await sql`create index on ${s}.post_groups (org_id, created_at desc, id)`.execute(trx);
    await sql`create index on ${s}.post_groups using gin (tag_ids)`.execute(trx);
    await sql`
      create table ${s}.posts (
        id uuid primary key,
        org_id uuid not null,
        group_id uuid not null,
        platform text not null,
        status text not null,
        social_account_id uuid,
        scheduled_for_utc timestamptz,
        tag_ids uuid[] not null default '{}',
        created_at timestamptz not null,
        updated_at timestamptz not null,
        body jsonb not null
      )`.execute(trx);
    // One index per sort of the spec, each led by the workspace; filters on status/platform ride along.
    await sql`create index on ${s}.posts (org_id, created_at, id)`.execute(trx);
    await sql`create index on ${s}.posts (org_id, scheduled_for_utc, id)`.execute(trx);
    // Newest times first with untimed posts last, as the lists sort them (a backward scan would put nulls first).
    await sql`create index on ${s}.posts (org_id, scheduled_for_utc desc nulls last, id desc)`.execute(trx);
    await sql`create index on ${s}.posts (org_id, status, scheduled_for_utc, id)`.execute(trx);
    await sql`create index on ${s}.posts (org_id, platform, scheduled_for_utc, id)`.execute(trx);
    await sql`create index on ${s}.posts (org_id, social_account_id)`.execute(trx);
    await sql`create index on ${s}.posts (group_id)`.execute(trx);
    await sql`create index on ${s}.posts using gin (tag_ids)`.execute(trx);
    // The slot finder and the publishing clock look for scheduled posts by time.
    await sql`create index on ${s}.posts (scheduled_for_utc) where status = 'scheduled'`.execute(trx);
  },

  async apply(trx: Transaction<AnyDatabase>, recorded: RecordedEvent, schema: string) {
    const db = trx.withSchema(schema);
    if (recorded.type === tagDeleted) {
      // The group's state forgets the tag too, so later events folded onto it do not bring it back.
      const { orgId, tagId } = recorded.data as { orgId: string; tagId: string };
      await db
        .updateTable('post_groups')
        .set({
          tag_ids: sql`array_remove(tag_ids, ${tagId}::uuid)`,
          state: sql`jsonb_set(state, '{tagIds}', (state->'tagIds') - ${tagId}::text)`,
          body: sql`jsonb_set(body, '{tagIds}', (body->'tagIds') - ${tagId}::text)`,
        })
        .where('org_id', '=', orgId)
        .where('tag_ids', '@>', sql`array[${tagId}]::uuid[]`)
        .execute();
      await db
        .updateTable('posts')
        .set({ tag_ids: sql`array_remove(tag_ids, ${tagId}::uuid)` })
        .where('org_id', '=', orgId)
        .where('tag_ids', '@>', sql`array[${tagId}]::uuid[]`)
        .execute();
      return;
    }
    const event = { type: recorded.type, data: recorded.data } as PostGroupEvent;
    const groupId = (event.data as { groupId: string }).groupId;
    const found: unknown = await db
      .selectFrom('post_groups')
      .select(['revision', 'state'])
      .where('id', '=', groupId)
      .forUpdate()
      .executeTakeFirst();
    const row = found as { revision: number; state: ActivePostGroup } | undefined;
    // Idempotent: an event this row already reflects is skipped.
    if (row && row.revision >= recorded.revision) return;
    const before: PostGroupState = row ? row.state : { kind: 'absent' };
    const next = evolvePostGroup(before, event);
    if (next.kind === 'absent') return;

    const body = postGroupView(next);
    const group = {
      id: next.id,
      org_id: next.orgId,
      status: next.status,
      title: next.title,
      scheduled_for: next.scheduledFor,
      tag_ids: next.tagIds,
      created_at: next.createdAt,
      updated_at: next.updatedAt,
      revision: recorded.revision,
      state: JSON.stringify(next),
      body: JSON.stringify(body),
    };
    if (row) await db.updateTable('post_groups').set(group).where('id', '=', groupId).execute();
    else await db.insertInto('post_groups').values(group).execute();

    // Only rows that changed are written: most events touch one or two posts, and every rewrite leaves a dead
    // row version behind for vacuum.
    const tagsChanged =
      before.kind === 'absent' || canonicalJson(before.tagIds) !== canonicalJson(next.tagIds);
    const previous = new Map(
      before.kind === 'active' ? before.posts.map((p) => [p.id, canonicalJson(postView(before, p))]) : [],
    );
    const gone = [...previous.keys()].filter((id) => !next.posts.some((p) => p.id === id));
    if (gone.length > 0) await db.deleteFrom('posts').where('id', 'in', gone).execute();
    const changed = next.posts
      .map((p) => ({ post: p, body: postView(next, p) }))
      .filter(({ post, body }) => tagsChanged || previous.get(post.id) !== canonicalJson(body));
    if (changed.length === 0) return;
    await db
      .insertInto('posts')
      .values(
        changed.map(({ post: p, body }) => ({
          id: p.id,
          org_id: next.orgId,
          group_id: next.id,
          platform: p.platform,
          status: p.status,
          social_account_id: p.socialAccountId,
          scheduled_for_utc: p.scheduledForUtc,
          tag_ids: next.tagIds,
          created_at: p.createdAt,
          updated_at: p.updatedAt,
          body: JSON.stringify(body),
        })),
      )
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          platform: eb.ref('excluded.platform'),
          status: eb.ref('excluded.status'),
          social_account_id: eb.ref('excluded.social_account_id'),
          scheduled_for_utc: eb.ref('excluded.scheduled_for_utc'),
          tag_ids: eb.ref('excluded.tag_ids'),
          updated_at: eb.ref('excluded.updated_at'),
          body: eb.ref('excluded.body'),
        })),
      )
      .execute();
  },
};
