// Read model of notifications: folds the events that notify (the rules slices contribute, each slice's
// domain/<slice>/notification-rules.ts, see domain/notifications/rules.ts) into one cause per
// (workspace, dedupeKey) and one narrow row per recipient, and the members' inbox events (read, dismiss,
// preferences) onto those rows. Who is notified is decided against this projection's own copy of the workspace's
// members, roles and preferences as they stood at that point of the log, so a rebuild notifies exactly the same
// people, with the same ids and the same inbox order.
import { sql } from 'kysely';
import { z } from 'zod';
import { postGroupEventCodec } from '../../domain/post-groups/event-codec.js';
import { inboxEventCodec } from '../../domain/notifications/event-codec.js';
import { workspaceEventCodec } from '../../domain/workspaces/event-codec.js';
import {
  channelsFor,
  defaultPreferences,
  type InboxEvent,
  type PreferenceValues,
} from '../../domain/notifications/inbox.js';
import type { PostGroupEvent } from '../../domain/post-groups/event-codec.js';
import type { WorkspaceEvent } from '../../domain/workspaces/workspace.js';
import {
  notifierOf,
  resolveRecipients,
  type GroupFacts,
  type MemberFacts,
  type NotificationRules,
  type RuleContext,
} from '../../domain/notifications/rules.js';
import { causeIdOf } from '../../domain/notifications/ids.js';
import { isRole } from '../../domain/workspaces/roles.js';
import { defineProjection, type ReadModelTransaction } from '../engine/projection.js';
import { isEventOf, readsFrom, type Decoded, type EventOf } from '../engine/event-sources.js';

/** Membership events by name: the workspace slice may add suspension and removal; absent ones never arrive. */
const memberEventTypes = [
  'MemberJoined',
  'MemberRoleChanged',
  'MemberSuspended',
  'MemberReactivated',
  'MemberRemoved',
  'WorkspaceDeleted',
] as const;
const groupEventTypes = ['PostGroupCreated', 'PostGroupUpdated'] as const;
type MemberEvent = Extract<WorkspaceEvent, { type: (typeof memberEventTypes)[number] }>;
const inboxEventTypes = inboxEventCodec.types;

/**
 * What this projection reads, by slice: the members, the groups' facts (title, author, approvers), the inbox, and
 * the events the slices' notification rules name, each with its slice's codec.
 */
function readsOf(rules: readonly NotificationRules[]) {
  return [
    readsFrom(workspaceEventCodec, memberEventTypes),
    // Approvals are group facts (the approvers) as well as notifying; a type read twice is read once.
    readsFrom(postGroupEventCodec, [...groupEventTypes, 'PostGroupApproved']),
    readsFrom(inboxEventCodec),
    ...rules.map((r) => readsFrom(r.codec, r.types)),
  ];
}

type Event = Decoded<EventOf<ReturnType<typeof readsOf>[number]>>;

/** The workspace events this projection reads are its membership events (a slice's rules may read others). */
const isMemberEvent = (event: Event): event is Decoded<MemberEvent> =>
  isEventOf(workspaceEventCodec, event) && (memberEventTypes as readonly string[]).includes(event.type);
type Notifier = ReturnType<typeof notifierOf>;

const memberData = z.object({ orgId: z.string(), userId: z.string(), role: z.string().optional() });

type Db = ReadModelTransaction;

type MemberRow = MemberFacts;

/** A cause to write, and the index of its recipients (with their channels) in the batch's recipient sets. */
interface PendingCause {
  causeId: string;
  orgId: string;
  dedupeKey: string;
  type: string;
  tier: string;
  title: string;
  body: string | null;
  href: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  set: number;
}

interface RecipientSet {
  users: string[];
  inApp: boolean[];
  email: Array<string | null>;
}

/** One batch's fold: members, preferences and groups read once, new notification rows written together. */
class BatchFold {
  private readonly members = new Map<string, Map<string, MemberRow>>();
  private readonly preferences = new Map<string, PreferenceValues>();
  private readonly groups = new Map<string, GroupFacts & { orgId: string }>();
  private causes: PendingCause[] = [];
  private readonly causeIds = new Set<string>();
  /** Most causes of a batch go to the same people with the same channels: each distinct list is sent once. */
  private sets: RecipientSet[] = [];
  private setKeys = new Map<string, number>();

  constructor(
    private readonly trx: Db,
    private readonly schema: string,
    private readonly notifier: Notifier,
  ) {}

  private get s() {
    return sql.id(this.schema);
  }

  /**
   * Members for the workspaces whose membership changes or that are notified, preferences only for those notified:
   * a batch of inbox events alone (what a member's read or dismiss waits for) reads neither.
   */
  async preload(events: readonly Event[]): Promise<void> {
    const memberOrgIds = new Set<string>();
    const notifiedOrgIds = new Set<string>();
    const groupIds = new Set<string>();
    for (const e of events) {
      const data = e.data as { orgId?: unknown; groupId?: unknown };
      if (typeof data.orgId === 'string') {
        if (this.notifier.notifies(e.type)) {
          memberOrgIds.add(data.orgId);
          notifiedOrgIds.add(data.orgId);
        } else if ((memberEventTypes as readonly string[]).includes(e.type)) memberOrgIds.add(data.orgId);
      }
      if (typeof data.groupId === 'string') groupIds.add(data.groupId);
    }
    const orgs = [...memberOrgIds];
    for (const org of orgs) this.members.set(org, new Map());
    if (orgs.length > 0) {
      const { rows } = await sql<{ org_id: string; user_id: string; role: string; active: boolean }>`
        select org_id, user_id, role, active from ${this.s}.notification_members
        where org_id = any(${orgs}::text[]) order by org_id, joined_seq`.execute(this.trx);
      for (const r of rows) {
        if (!isRole(r.role)) continue;
        this.members.get(r.org_id)!.set(r.user_id, { userId: r.user_id, role: r.role, active: r.active });
      }
    }
    const notified = [...notifiedOrgIds];
    if (notified.length > 0) {
      const prefs = await sql<{ org_id: string; user_id: string; preferences: PreferenceValues }>`
        select org_id, user_id, preferences from ${this.s}.notification_preferences
        where org_id = any(${notified}::text[])`.execute(this.trx);
      for (const p of prefs.rows)
        this.preferences.set(`${p.org_id}:${p.user_id}`, { ...defaultPreferences, ...p.preferences });
    }
    const groups = [...groupIds];
    if (groups.length > 0) {
      const { rows } = await sql<{
        group_id: string;
        org_id: string;
        title: string;
        created_by: string;
        approvers: string[];
      }>`select group_id, org_id, title, created_by, approvers from ${this.s}.notification_groups
         where group_id = any(${groups}::text[])`.execute(this.trx);
      for (const g of rows)
        this.groups.set(g.group_id, {
          orgId: g.org_id,
          title: g.title,
          createdBy: g.created_by,
          approvers: g.approvers,
        });
    }
  }

  async fold(event: Event): Promise<void> {
    const type = event.type;
    if (isMemberEvent(event)) return this.member(event);
    if (
      isEventOf(postGroupEventCodec, event) &&
      ((groupEventTypes as readonly string[]).includes(type) || type === 'PostGroupApproved')
    )
      await this.group(event);
    if (isEventOf(inboxEventCodec, event)) return this.inbox(event);
    if (this.notifier.notifies(type)) return this.notify(event);
  }

  private membersOf(orgId: string): Map<string, MemberRow> {
    let members = this.members.get(orgId);
    if (!members) {
      members = new Map();
      this.members.set(orgId, members);
    }
    return members;
  }

  private async member(recorded: Decoded<MemberEvent>): Promise<void> {
    if (recorded.type === 'WorkspaceDeleted') return this.workspaceDeleted(recorded);
    const parsed = memberData.safeParse(recorded.data);
    if (!parsed.success) return;
    const { orgId, userId, role } = parsed.data;
    const members = this.membersOf(orgId);
    const existing = members.get(userId);
    let next: MemberRow | undefined;
    switch (recorded.type) {
      case 'MemberJoined':
      case 'MemberRoleChanged':
        if (!role || !isRole(role)) return;
        next = existing
          ? { ...existing, role, active: recorded.type === 'MemberJoined' ? true : existing.active }
          : { userId, role, active: true };
        break;
      case 'MemberSuspended':
      case 'MemberRemoved':
        if (!existing) return;
        next = { ...existing, active: false };
        break;
      case 'MemberReactivated':
        if (!existing) return;
        next = { ...existing, active: true, ...(role && isRole(role) ? { role } : {}) };
        break;
      default:
        return;
    }
    members.set(userId, next);
    await sql`
      insert into ${this.s}.notification_members (org_id, user_id, role, active, last_seq)
      values (${orgId}, ${userId}, ${next.role}, ${next.active}, 0)
      on conflict (org_id, user_id) do update set role = excluded.role, active = excluded.active`.execute(
      this.trx,
    );
  }

  /** A deleted workspace notifies nobody any more. */
  private async workspaceDeleted(recorded: Decoded<MemberEvent>): Promise<void> {
    const orgId = (recorded.data as { orgId?: unknown }).orgId;
    if (typeof orgId !== 'string') return;
    for (const member of this.membersOf(orgId).values()) member.active = false;
    await sql`update ${this.s}.notification_members set active = false where org_id = ${orgId}`.execute(
      this.trx,
    );
  }

  private async group(event: Decoded<PostGroupEvent>): Promise<void> {
    if (event.type === 'PostGroupCreated') {
      const d = event.data;
      if (this.groups.has(d.groupId)) return;
      this.groups.set(d.groupId, { orgId: d.orgId, title: d.title, createdBy: d.by, approvers: [] });
      await sql`
        insert into ${this.s}.notification_groups (group_id, org_id, title, created_by, approvers)
        values (${d.groupId}, ${d.orgId}, ${d.title}, ${d.by}, ${[]}::text[])
        on conflict (group_id) do nothing`.execute(this.trx);
    } else if (event.type === 'PostGroupUpdated') {
      const title = event.data.changes.title;
      const group = this.groups.get(event.data.groupId);
      if (title === undefined || !group || group.title === title) return;
      group.title = title;
      await sql`update ${this.s}.notification_groups set title = ${title}
                where group_id = ${event.data.groupId}`.execute(this.trx);
    } else if (event.type === 'PostGroupApproved') {
      // Approvers hear when what they approved fails to publish.
      const group = this.groups.get(event.data.groupId);
      if (!group || group.approvers.includes(event.data.by)) return;
      group.approvers = [...group.approvers, event.data.by];
      await sql`update ${this.s}.notification_groups set approvers = ${group.approvers}::text[]
                where group_id = ${event.data.groupId}`.execute(this.trx);
    }
  }

  private async inbox(event: Decoded<InboxEvent>): Promise<void> {
    // Read and dismiss act on rows created before them in the log: write the pending ones first.
    await this.flush();
    const s = this.s;
    switch (event.type) {
      case 'NotificationRead':
      case 'NotificationDismissed': {
        const d = event.data;
        // The first read (or dismissal) stays: a repeat leaves its time as it was.
        const [column, at] =
          event.type === 'NotificationRead'
            ? ['read_at', event.data.readAt]
            : ['dismissed_at', event.data.dismissedAt];
        await sql`update ${s}.notifications set ${sql.id(column)} = coalesce(${sql.id(column)}, ${at}::timestamptz)
                  where id = ${d.notificationId} and org_id = ${d.orgId} and user_id = ${d.userId}`.execute(
          this.trx,
        );
        return;
      }
      case 'NotificationsAllRead': {
        const d = event.data;
        // The same rows the use case counted: visible in-app, neither read nor dismissed, up to the watermark.
        await sql`update ${s}.notifications set read_at = ${d.readAt}::timestamptz
                  where org_id = ${d.orgId} and user_id = ${d.userId} and seq <= ${d.upToSeq}
                    and in_app and read_at is null and dismissed_at is null`.execute(this.trx);
        return;
      }
      case 'NotificationsAllDismissed': {
        const d = event.data;
        await sql`update ${s}.notifications set dismissed_at = ${d.dismissedAt}::timestamptz
                  where org_id = ${d.orgId} and user_id = ${d.userId} and seq <= ${d.upToSeq}
                    and in_app and dismissed_at is null`.execute(this.trx);
        return;
      }
      case 'NotificationPreferencesChanged': {
        const d = event.data;
        this.preferences.set(`${d.orgId}:${d.userId}`, d.preferences);
        await sql`
          insert into ${s}.notification_preferences (org_id, user_id, preferences, updated_at)
          values (${d.orgId}, ${d.userId}, ${JSON.stringify(d.preferences)}::jsonb, ${d.updatedAt})
          on conflict (org_id, user_id) do update
            set preferences = excluded.preferences, updated_at = excluded.updated_at`.execute(this.trx);
        return;
      }
      default:
        return;
    }
  }

  /** When notifications began on this service (processes/notifications/migrations.ts); read once per batch. */
  private startedAt: Promise<number> | undefined;

  private async notify(recorded: Event): Promise<void> {
    this.startedAt ??= sql<{ started_at: Date | string }>`select started_at from notifications_start`
      .execute(this.trx)
      .then(({ rows }) => (rows[0] ? new Date(rows[0].started_at).getTime() : -Infinity));
    if (new Date(recorded.recordedAt).getTime() < (await this.startedAt)) return;
    const context: RuleContext = { group: null };
    const data = recorded.data as { groupId?: unknown };
    if (typeof data.groupId === 'string') context.group = this.groups.get(data.groupId) ?? null;
    if (isEventOf(postGroupEventCodec, recorded) && recorded.type === 'PostPublished')
      context.publishedCount = await this.countPublished(recorded.data);
    for (const intent of this.notifier.notificationsFor(recorded, context)) {
      const causeId = causeIdOf(intent.orgId, intent.dedupeKey);
      if (this.causeIds.has(causeId)) continue;
      this.causeIds.add(causeId);
      const members = this.membersOf(intent.orgId);
      const set: RecipientSet = { users: [], inApp: [], email: [] };
      for (const userId of resolveRecipients(intent.recipients, [...members.values()])) {
        const channels = channelsFor(
          intent,
          this.preferences.get(`${intent.orgId}:${userId}`) ?? defaultPreferences,
        );
        set.users.push(userId);
        set.inApp.push(channels.inApp);
        set.email.push(channels.email);
      }
      // Nobody to tell (e.g. an owner approving their own group): no cause row, nothing to write.
      if (set.users.length === 0) continue;
      const key = JSON.stringify(set);
      let index = this.setKeys.get(key);
      if (index === undefined) {
        index = this.sets.length;
        this.sets.push(set);
        this.setKeys.set(key, index);
      }
      this.causes.push({
        causeId,
        orgId: intent.orgId,
        dedupeKey: intent.dedupeKey,
        type: intent.type,
        tier: intent.tier,
        title: intent.title,
        body: intent.body,
        href: intent.href,
        metadata: intent.metadata,
        createdAt: intent.createdAt,
        set: index,
      });
    }
  }

  /** Counts each published post once (a replayed PostPublished finds it counted): the count after this one. */
  private async countPublished(d: { orgId: string; postId: string }): Promise<number | undefined> {
    const inserted = await sql`
      insert into ${this.s}.notification_published_posts (org_id, post_id) values (${d.orgId}, ${d.postId})
      on conflict do nothing returning post_id`.execute(this.trx);
    if (inserted.rows.length === 0) return undefined;
    const { rows } = await sql<{ published_posts: number }>`
      insert into ${this.s}.notification_counts (org_id, published_posts) values (${d.orgId}, 1)
      on conflict (org_id) do update set published_posts = notification_counts.published_posts + 1
      returning published_posts`.execute(this.trx);
    return rows[0]?.published_posts;
  }

  /**
   * Writes the pending causes not folded before (a replay finds them), and one row per recipient: its id derived
   * from the cause and the recipient, its seq the member's next in cause order, its channels as decided.
   */
  async flush(): Promise<void> {
    if (this.causes.length === 0) return;
    const pending = this.causes;
    const sets = this.sets;
    this.causes = [];
    this.causeIds.clear();
    this.sets = [];
    this.setKeys = new Map();
    const s = this.s;
    const existing = await sql<{ cause_id: string }>`
      select cause_id from ${s}.notification_causes
      where cause_id = any(${pending.map((c) => c.causeId)}::uuid[])`.execute(this.trx);
    const folded = new Set(existing.rows.map((r) => r.cause_id));
    const causes = pending.filter((c) => !folded.has(c.causeId));
    if (causes.length === 0) return;
    await sql`
      insert into ${s}.notification_causes
        (cause_id, org_id, dedupe_key, type, tier, title, body, href, metadata, created_at)
      select * from unnest(
        ${causes.map((c) => c.causeId)}::uuid[], ${causes.map((c) => c.orgId)}::text[],
        ${causes.map((c) => c.dedupeKey)}::text[], ${causes.map((c) => c.type)}::text[],
        ${causes.map((c) => c.tier)}::text[], ${causes.map((c) => c.title)}::text[],
        ${causes.map((c) => c.body)}::text[], ${causes.map((c) => c.href)}::text[],
        ${causes.map((c) => JSON.stringify(c.metadata))}::jsonb[], ${causes.map((c) => c.createdAt)}::timestamptz[])
      on conflict do nothing`.execute(this.trx);
    const setIndex: number[] = [];
    const users: string[] = [];
    const inApp: boolean[] = [];
    const email: Array<string | null> = [];
    sets.forEach((set, index) => {
      set.users.forEach((user, i) => {
        setIndex.push(index);
        users.push(user);
        inApp.push(set.inApp[i]!);
        email.push(set.email[i]!);
      });
    });
    if (users.length === 0) return;
    // Each member's rows take their next sequence numbers in cause order; the counters move to the last one.
    await sql`
      with c as (
        select * from unnest(${causes.map((c) => c.causeId)}::uuid[], ${causes.map((c) => c.orgId)}::text[],
          ${causes.map((_, i) => i)}::int[], ${causes.map((c) => c.set)}::int[],
          ${causes.map((c) => c.createdAt)}::timestamptz[]) as c(cause_id, org_id, ord, set_index, created_at)
      ), r as (
        select * from unnest(${setIndex}::int[], ${users}::text[], ${inApp}::boolean[], ${email}::text[])
          as r(set_index, user_id, in_app, email_mode)
      ), rows as (
        select c.cause_id, c.org_id, r.user_id, r.in_app, r.email_mode, c.created_at,
          m.last_seq + row_number() over (partition by c.org_id, r.user_id order by c.ord) as seq
        from c join r on r.set_index = c.set_index
        join ${s}.notification_members m on m.org_id = c.org_id and m.user_id = r.user_id
      ), inserted as (
        insert into ${s}.notifications (id, cause_id, org_id, user_id, seq, in_app, email_mode, created_at)
        -- md5 of cause and member as a version-8 UUID (domain/notifications/ids.ts computes the same).
        select (substr(h, 1, 12) || '8' || substr(h, 14, 3)
                || substr('89ab', (('x' || substr(h, 17, 1))::bit(4)::int & 3) + 1, 1) || substr(h, 18))::uuid,
          cause_id, org_id, user_id, seq, in_app, email_mode, created_at
        from rows, lateral md5(cause_id::text || ':' || user_id) as h
        returning org_id, user_id, seq
      )
      update ${s}.notification_members m set last_seq = x.seq
      from (select org_id, user_id, max(seq) as seq from inserted group by org_id, user_id) x
      where m.org_id = x.org_id and m.user_id = x.user_id`.execute(this.trx);
  }
}

/**
 * The notifications read model, built from the rules the slices contribute (api/notifications/slice.ts reads the
 * `notificationRules` extension point): which events it reads and which notify is theirs.
 */
/** The read model's name (its projection is built from the slices' rules by createNotificationsProjection). */
export const notificationsProjectionName = 'notifications';

export function createNotificationsProjection(rules: readonly NotificationRules[]) {
  const notifier = notifierOf(rules);
  return defineProjection({
    name: notificationsProjectionName,
    version: 1,
    tables: [
      'notifications',
      'notification_causes',
      'notification_members',
      'notification_preferences',
      'notification_groups',
      'notification_published_posts',
      'notification_counts',
    ],
    reads: readsOf(rules),
    // A draft, an approval or a publication notifies other people: their writers do not wait for this fold (it
    // follows within milliseconds). A member's own reads, dismissals and preferences do, so the inbox shows them.
    awaitedFor: inboxEventTypes,

    async createTables(trx, schema) {
      const s = sql.id(schema);
      await sql`
      create table ${s}.notification_causes (
        -- Derived from (org_id, dedupe_key) (domain/notifications/ids.ts): one cause notifies once.
        cause_id uuid primary key,
        org_id text not null,
        dedupe_key text not null,
        type text not null,
        tier text not null,
        title text not null,
        body text,
        href text,
        metadata jsonb,
        created_at timestamptz not null
      )`.execute(trx);
      await sql`
      create table ${s}.notifications (
        -- From md5(cause_id || ':' || user_id): the same id for the same cause and member after any rebuild.
        id uuid primary key,
        cause_id uuid not null,
        org_id text not null,
        user_id text not null,
        seq int not null,
        in_app boolean not null,
        email_mode text,
        created_at timestamptz not null,
        read_at timestamptz,
        dismissed_at timestamptz
      )`.execute(trx);
      await sql`create index on ${s}.notifications (org_id, user_id, seq desc)`.execute(trx);
      await sql`create index on ${s}.notifications (created_at) where email_mode is not null`.execute(trx);
      await sql`
      create table ${s}.notification_members (
        org_id text not null,
        user_id text not null,
        role text not null,
        active boolean not null,
        last_seq int not null default 0,
        joined_seq bigserial,
        primary key (org_id, user_id)
      )`.execute(trx);
      await sql`
      create table ${s}.notification_preferences (
        org_id text not null,
        user_id text not null,
        preferences jsonb not null,
        updated_at timestamptz not null,
        primary key (org_id, user_id)
      )`.execute(trx);
      await sql`
      create table ${s}.notification_groups (
        group_id text primary key,
        org_id text not null,
        title text not null,
        created_by text not null,
        approvers text[] not null
      )`.execute(trx);
      await sql`
      create table ${s}.notification_published_posts (
        org_id text not null,
        post_id text not null,
        primary key (org_id, post_id)
      )`.execute(trx);
      await sql`
      create table ${s}.notification_counts (
        org_id text primary key,
        published_posts int not null
      )`.execute(trx);
    },

    async apply(trx, event, schema) {
      await foldNotifications(trx, [event], schema, notifier);
    },

    applyBatch: (trx, events, schema) => foldNotifications(trx, events, schema, notifier),
  });
}

async function foldNotifications(
  trx: Db,
  events: readonly Event[],
  schema: string,
  notifier: Notifier,
): Promise<void> {
  const fold = new BatchFold(trx, schema, notifier);
  await fold.preload(events);
  for (const event of events) await fold.fold(event);
  await fold.flush();
}
