// Read models of post groups and posts, shaped for list posts (filters on platform, status, account, tag and
// time; sorts on scheduledForUtc, createdAt, status, platform) and the calendar. Each row keeps the spec's body.
import { sql, type Insertable, type QueryCreator } from 'kysely';
import {
  evolvePostGroup,
  postGroupEventCodec,
  publishWork,
  type ActivePostGroup,
  type PostState,
  type PostGroupEvent,
  type PostGroupState,
} from '../../domain/post-groups/post-group.js';
import { tagEventCodec } from '../../domain/tags/event-codec.js';
import type { TagEvent } from '../../domain/tags/tags.js';
import { postGroupView, postView } from '../../domain/post-groups/views.js';
import { canonicalJson } from '../../domain/shared/canonical-json.js';
import { defineProjection, type ReadModelTransaction } from '../engine/projection.js';
import { readsFrom, type Decoded } from '../engine/event-sources.js';
import type { PostsTable, ReadModels } from '../read-models.js';
import { busyAtOf, noteBusyChanges, type BusyChange } from '../scheduling/busy-times.js';

/** Events of other features that change these rows: a deleted tag leaves every group it was on. */
const tagDeleted = 'TagDeleted';
type TagDeleted = Extract<TagEvent, { type: typeof tagDeleted }>;

export const postGroupsProjection = defineProjection({
  name: 'post_groups',
  // v2: a descending time index for the calendar and lists; post rows written only when they change.
  // v3: what the publishing pipeline has to do for each post, and from when (publish_action, publish_due_at).
  version: 3,
  tables: ['post_groups', 'posts'],
  reads: [readsFrom(postGroupEventCodec), readsFrom(tagEventCodec, [tagDeleted])],

  async createTables(trx, schema) {
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
        publish_action text,
        publish_due_at timestamptz,
        body jsonb not null
      )`.execute(trx);
    // The publishing sweep: posts with work, by when it is due.
    await sql`create index on ${s}.posts (publish_due_at) where publish_due_at is not null`.execute(trx);
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

  apply(trx, event, schema) {
    return foldBatch(trx, [event], schema);
  },

  applyBatch: foldBatch,
});

interface Entry {
  /** As the row holds it (null: no row yet). */
  stored: ActivePostGroup | null;
  next: PostGroupState;
  revision: number;
  dirty: boolean;
}

/** Rows per multi-row statement, well under PostgreSQL's 65,535 parameters. */
const chunk = 500;

/**
 * Folds a batch: each group touched is read once (locked), folded in memory with the domain's evolve, and
 * written once, with only the post rows that changed. A deleted tag is applied in order between the events.
 */
async function foldBatch(
  trx: ReadModelTransaction,
  events: readonly Decoded<PostGroupEvent | TagDeleted>[],
  schema: string,
) {
  const db = trx.withSchema(schema);
  const entries = new Map<string, Entry>();

  const load = async (ids: readonly string[]) => {
    const wanted = ids.filter((id) => !entries.has(id));
    if (wanted.length === 0) return;
    const found: unknown = await db
      .selectFrom('post_groups')
      .select(['id', 'revision', 'state'])
      .where('id', 'in', wanted)
      .forUpdate()
      .execute();
    const rows = new Map(
      (found as Array<{ id: string; revision: number; state: ActivePostGroup }>).map((r) => [r.id, r]),
    );
    for (const id of wanted) {
      const row = rows.get(id);
      entries.set(
        id,
        row
          ? { stored: row.state, next: row.state, revision: row.revision, dirty: false }
          : { stored: null, next: { kind: 'absent' }, revision: -1, dirty: false },
      );
    }
  };

  const flush = async () => {
    const dirty = [...entries.values()].filter(
      (e): e is Entry & { next: ActivePostGroup } => e.dirty && e.next.kind === 'active',
    );
    if (dirty.length === 0) return;
    const groups = dirty.map(({ next, revision }) => ({
      id: next.id,
      org_id: next.orgId,
      status: next.status,
      title: next.title,
      scheduled_for: next.scheduledFor,
      tag_ids: next.tagIds,
      created_at: next.createdAt,
      updated_at: next.updatedAt,
      revision,
      state: JSON.stringify(next),
      body: JSON.stringify(postGroupView(next)),
    }));
    for (let i = 0; i < groups.length; i += chunk) {
      await db
        .insertInto('post_groups')
        .values(groups.slice(i, i + chunk))
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({
            status: eb.ref('excluded.status'),
            title: eb.ref('excluded.title'),
            scheduled_for: eb.ref('excluded.scheduled_for'),
            tag_ids: eb.ref('excluded.tag_ids'),
            updated_at: eb.ref('excluded.updated_at'),
            revision: eb.ref('excluded.revision'),
            state: eb.ref('excluded.state'),
            body: eb.ref('excluded.body'),
          })),
        )
        .execute();
    }
    // Only rows that changed are written: most events touch one or two posts, and every rewrite leaves a dead
    // row version behind for vacuum.
    const gone: string[] = [];
    const upserts: Insertable<PostsTable>[] = [];
    // Posts whose busy time changed, for the slot finder's snapshots (projections/scheduling/busy-times.ts).
    const busyChanges: BusyChange[] = [];
    for (const entry of dirty) {
      const { stored, next } = entry;
      const tagsChanged = !stored || canonicalJson(stored.tagIds) !== canonicalJson(next.tagIds);
      const previous = new Map(stored ? stored.posts.map((p) => [p.id, p]) : []);
      for (const [id, p] of previous)
        if (!next.posts.some((n) => n.id === id)) {
          gone.push(id);
          const before = busyAtOf(p);
          if (before !== null) busyChanges.push({ orgId: next.orgId, postId: id, before, at: null });
        }
      for (const p of next.posts) {
        const was = previous.get(p.id);
        const at = busyAtOf(p);
        const before = was ? busyAtOf(was) : null;
        if (at !== before) busyChanges.push({ orgId: next.orgId, postId: p.id, before, at });
        const body = postView(next, p);
        if (!tagsChanged && was && rowKey(stored, was) === rowKey(next, p)) continue;
        const work = publishWork(p);
        upserts.push({
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
          publish_action: work?.action ?? null,
          publish_due_at: work?.dueAt ?? null,
          body: JSON.stringify(body),
        });
      }
      entry.stored = next;
      entry.dirty = false;
    }
    if (gone.length > 0) await db.deleteFrom('posts').where('id', 'in', gone).execute();
    for (let i = 0; i < upserts.length; i += chunk) {
      await db
        .insertInto('posts')
        .values(upserts.slice(i, i + chunk))
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({
            platform: eb.ref('excluded.platform'),
            status: eb.ref('excluded.status'),
            social_account_id: eb.ref('excluded.social_account_id'),
            scheduled_for_utc: eb.ref('excluded.scheduled_for_utc'),
            tag_ids: eb.ref('excluded.tag_ids'),
            updated_at: eb.ref('excluded.updated_at'),
            publish_action: eb.ref('excluded.publish_action'),
            publish_due_at: eb.ref('excluded.publish_due_at'),
            body: eb.ref('excluded.body'),
          })),
        )
        .execute();
    }
    await noteBusyChanges<ReadModels>(trx, busyChanges);
  };

  await load(events.flatMap((e) => (e.type === tagDeleted ? [] : [e.data.groupId])));
  for (const event of events) {
    if (event.type === tagDeleted) {
      // Written rows first, then the tag leaves every group and post; groups are read again after it.
      await flush();
      entries.clear();
      await removeTag(db, event.data);
      continue;
    }
    const { revision } = event;
    const groupId = event.data.groupId;
    await load([groupId]);
    const entry = entries.get(groupId)!;
    // Idempotent: an event the row already reflects is skipped.
    if (entry.revision >= revision) continue;
    entry.next = evolvePostGroup(entry.next, event);
    entry.revision = revision;
    entry.dirty = true;
  }
  await flush();
}

/** What a post row holds: its spec body and the publishing work derived from the state. */
function rowKey(group: ActivePostGroup, post: PostState): string {
  return canonicalJson({ body: postView(group, post), work: publishWork(post) });
}

/** The group's state forgets the tag too, so later events folded onto it do not bring it back. */
async function removeTag(db: QueryCreator<ReadModels>, { orgId, tagId }: { orgId: string; tagId: string }) {
  await db
    .updateTable('post_groups')
    .set({
      tag_ids: sql<string[]>`array_remove(tag_ids, ${tagId}::uuid)`,
      state: sql`jsonb_set(state, '{tagIds}', (state->'tagIds') - ${tagId}::text)`,
      body: sql`jsonb_set(body, '{tagIds}', (body->'tagIds') - ${tagId}::text)`,
    })
    .where('org_id', '=', orgId)
    .where('tag_ids', '@>', sql<string[]>`array[${tagId}]::uuid[]`)
    .execute();
  await db
    .updateTable('posts')
    .set({ tag_ids: sql<string[]>`array_remove(tag_ids, ${tagId}::uuid)` })
    .where('org_id', '=', orgId)
    .where('tag_ids', '@>', sql<string[]>`array[${tagId}]::uuid[]`)
    .execute();
}
