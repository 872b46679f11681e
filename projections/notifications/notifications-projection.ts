// Read model of notifications: folds the events that notify (domain/notifications/rules.ts) into one row per
// (workspace, recipient, dedupeKey), and the members' inbox events (read, dismiss, preferences) onto them. Who is
// notified is decided against this projection's own copy of the workspace's members, roles and preferences as
// they stood at that point of the log, so a rebuild notifies exactly the same people with the same ids.
import { sql, type Transaction } from 'kysely';
import { z } from 'zod';
import { postGroupEventCodec } from '../../domain/post-groups/event-codec.js';
import { socialAccountEventCodec } from '../../domain/social-accounts/event-codec.js';
import { inboxEventCodec, inboxEventTypes } from '../../domain/notifications/event-codec.js';
import { channelsFor, defaultPreferences, type PreferenceValues } from '../../domain/notifications/inbox.js';
import {
  notificationsFor,
  notifyingEventTypes,
  resolveRecipients,
  type GroupFacts,
  type MemberFacts,
  type NotifyingEvent,
  type RuleContext,
} from '../../domain/notifications/rules.js';
import { notificationId } from '../../domain/notifications/ids.js';
import { isRole } from '../../domain/workspaces/roles.js';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import type { AnyDatabase, Projection } from '../engine/projection.js';
import type { NotificationsTable } from './tables.js';

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

const memberData = z.object({ orgId: z.string(), userId: z.string(), role: z.string().optional() });

type Db = Transaction<AnyDatabase>;

interface MemberRow extends MemberFacts {
  lastSeq: number;
  /** The sequence counter moved in this batch (written back at the end). */
  moved: boolean;
}

interface PendingRow extends Omit<NotificationsTable, 'read_at' | 'dismissed_at' | 'seq'> {
  seq: number;
}

/** One batch's fold: members, preferences and groups read once, new notification rows written together. */
class BatchFold {
  private readonly members = new Map<string, Map<string, MemberRow>>();
  private readonly preferences = new Map<string, PreferenceValues>();
  private readonly groups = new Map<string, GroupFacts & { orgId: string }>();
  private candidates: Array<Omit<PendingRow, 'seq'>> = [];
  private readonly candidateKeys = new Set<string>();

  constructor(
    private readonly trx: Db,
    private readonly schema: string,
  ) {}

  private get s() {
    return sql.id(this.schema);
  }

  async preload(events: readonly RecordedEvent[]): Promise<void> {
    const orgIds = new Set<string>();
    const groupIds = new Set<string>();
    for (const e of events) {
      const data = e.data as { orgId?: unknown; groupId?: unknown };
      if (typeof data.orgId === 'string') orgIds.add(data.orgId);
      if (typeof data.groupId === 'string') groupIds.add(data.groupId);
    }
    const orgs = [...orgIds];
    for (const org of orgs) this.members.set(org, new Map());
    if (orgs.length > 0) {
      const { rows } = await sql<{
        org_id: string;
        user_id: string;
        role: string;
        active: boolean;
        last_seq: number;
      }>`select org_id, user_id, role, active, last_seq from ${this.s}.notification_members
         where org_id = any(${orgs}::text[]) order by org_id, joined_seq`.execute(this.trx);
      for (const r of rows) {
        if (!isRole(r.role)) continue;
        this.members.get(r.org_id)!.set(r.user_id, {
          userId: r.user_id,
          role: r.role,
          active: r.active,
          lastSeq: r.last_seq,
          moved: false,
        });
      }
      const prefs = await sql<{ org_id: string; user_id: string; preferences: PreferenceValues }>`
        select org_id, user_id, preferences from ${this.s}.notification_preferences
        where org_id = any(${orgs}::text[])`.execute(this.trx);
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

  async fold(recorded: RecordedEvent): Promise<void> {
    const type = recorded.type;
    if ((memberEventTypes as readonly string[]).includes(type)) return this.member(recorded);
    if ((groupEventTypes as readonly string[]).includes(type) || type === 'PostGroupApproved')
      await this.group(recorded);
    if ((inboxEventTypes as readonly string[]).includes(type)) return this.inbox(recorded);
    if ((notifyingEventTypes as readonly string[]).includes(type)) return this.notify(recorded);
  }

  private membersOf(orgId: string): Map<string, MemberRow> {
    let members = this.members.get(orgId);
    if (!members) {
      members = new Map();
      this.members.set(orgId, members);
    }
    return members;
  }

  private async member(recorded: RecordedEvent): Promise<void> {
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
          : { userId, role, active: true, lastSeq: 0, moved: false };
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
      values (${orgId}, ${userId}, ${next.role}, ${next.active}, ${next.lastSeq})
      on conflict (org_id, user_id) do update set role = excluded.role, active = excluded.active`.execute(
      this.trx,
    );
  }

  /** A deleted workspace notifies nobody any more. */
  private async workspaceDeleted(recorded: RecordedEvent): Promise<void> {
    const orgId = (recorded.data as { orgId?: unknown }).orgId;
    if (typeof orgId !== 'string') return;
    for (const member of this.membersOf(orgId).values()) member.active = false;
    await sql`update ${this.s}.notification_members set active = false where org_id = ${orgId}`.execute(
      this.trx,
    );
  }

  private async group(recorded: RecordedEvent): Promise<void> {
    const event = postGroupEventCodec.decode(recorded);
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

  private async inbox(recorded: RecordedEvent): Promise<void> {
    // Read and dismiss act on rows created before them in the log: write the pending ones first.
    await this.flush();
    const event = inboxEventCodec.decode(recorded);
    const s = this.s;
    switch (event.type) {
      case 'NotificationRead': {
        const d = event.data;
        await sql`update ${s}.notifications set read_at = coalesce(read_at, ${d.readAt}::timestamptz)
                  where id = ${d.notificationId} and org_id = ${d.orgId} and user_id = ${d.userId}`.execute(
          this.trx,
        );
        return;
      }
      case 'NotificationDismissed': {
        const d = event.data;
        await sql`update ${s}.notifications set dismissed_at = coalesce(dismissed_at, ${d.dismissedAt}::timestamptz)
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

  private async notify(recorded: RecordedEvent): Promise<void> {
    const event = (
      recorded.type.startsWith('SocialAccount')
        ? socialAccountEventCodec.decode(recorded)
        : postGroupEventCodec.decode(recorded)
    ) as NotifyingEvent;
    const context: RuleContext = { group: null };
    if ('groupId' in event.data) context.group = this.groups.get(event.data.groupId) ?? null;
    if (event.type === 'PostPublished') context.publishedCount = await this.countPublished(event.data);
    const intents = notificationsFor(event, context);
    for (const intent of intents) {
      const members = this.membersOf(intent.orgId);
      for (const userId of resolveRecipients(intent.recipients, [...members.values()])) {
        const key = `${intent.orgId}:${userId}:${intent.dedupeKey}`;
        if (this.candidateKeys.has(key)) continue;
        this.candidateKeys.add(key);
        const prefs = this.preferences.get(`${intent.orgId}:${userId}`) ?? defaultPreferences;
        const channels = channelsFor(intent, prefs);
        this.candidates.push({
          id: notificationId(intent.orgId, userId, intent.dedupeKey),
          org_id: intent.orgId,
          user_id: userId,
          dedupe_key: intent.dedupeKey,
          type: intent.type,
          tier: intent.tier,
          title: intent.title,
          body: intent.body,
          href: intent.href,
          in_app: channels.inApp,
          email_mode: channels.email,
          metadata: intent.metadata,
          created_at: intent.createdAt,
        });
      }
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

  /** Writes the new rows: those whose (workspace, recipient, dedupeKey) is not taken get the member's next seq. */
  async flush(): Promise<void> {
    if (this.candidates.length === 0) return;
    const candidates = this.candidates;
    this.candidates = [];
    this.candidateKeys.clear();
    const s = this.s;
    const existing = await sql<{ id: string }>`
      select id from ${s}.notifications where id = any(${candidates.map((c) => c.id)}::uuid[])`.execute(
      this.trx,
    );
    const taken = new Set(existing.rows.map((r) => r.id));
    const rows: PendingRow[] = [];
    for (const c of candidates) {
      if (taken.has(c.id)) continue;
      taken.add(c.id);
      const member = this.membersOf(c.org_id).get(c.user_id);
      if (!member) continue;
      member.lastSeq += 1;
      member.moved = true;
      rows.push({ ...c, seq: member.lastSeq });
    }
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      await sql`
        insert into ${s}.notifications
          (id, org_id, user_id, seq, dedupe_key, type, tier, title, body, href, in_app, email_mode, metadata, created_at)
        select * from unnest(
          ${chunk.map((r) => r.id)}::uuid[], ${chunk.map((r) => r.org_id)}::text[],
          ${chunk.map((r) => r.user_id)}::text[], ${chunk.map((r) => r.seq)}::int[],
          ${chunk.map((r) => r.dedupe_key)}::text[], ${chunk.map((r) => r.type)}::text[],
          ${chunk.map((r) => r.tier)}::text[], ${chunk.map((r) => r.title)}::text[],
          ${chunk.map((r) => r.body)}::text[], ${chunk.map((r) => r.href)}::text[],
          ${chunk.map((r) => r.in_app)}::boolean[], ${chunk.map((r) => r.email_mode)}::text[],
          ${chunk.map((r) => JSON.stringify(r.metadata))}::jsonb[], ${chunk.map((r) => r.created_at)}::timestamptz[])
        on conflict do nothing`.execute(this.trx);
    }
    const moved: MemberRow[] = [];
    const orgOf = new Map<MemberRow, string>();
    for (const [orgId, members] of this.members)
      for (const m of members.values())
        if (m.moved) {
          moved.push(m);
          orgOf.set(m, orgId);
          m.moved = false;
        }
    if (moved.length > 0)
      await sql`
        update ${s}.notification_members m set last_seq = v.seq
        from unnest(${moved.map((m) => orgOf.get(m)!)}::text[], ${moved.map((m) => m.userId)}::text[],
                    ${moved.map((m) => m.lastSeq)}::int[]) as v(org_id, user_id, seq)
        where m.org_id = v.org_id and m.user_id = v.user_id`.execute(this.trx);
  }
}

export const notificationsProjection: Projection = {
  name: 'notifications',
  version: 1,
  tables: [
    'notifications',
    'notification_members',
    'notification_preferences',
    'notification_groups',
    'notification_published_posts',
    'notification_counts',
  ],
  eventTypes: [...memberEventTypes, ...groupEventTypes, ...notifyingEventTypes, ...inboxEventTypes],

  async createTables(trx: Transaction<AnyDatabase>, schema: string) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.notifications (
        -- Derived from (org_id, user_id, dedupe_key) (domain/notifications/ids.ts): one row per cause and member.
        id uuid primary key,
        org_id text not null,
        user_id text not null,
        seq int not null,
        dedupe_key text not null,
        type text not null,
        tier text not null,
        title text not null,
        body text,
        href text,
        in_app boolean not null,
        email_mode text,
        metadata jsonb,
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

  async apply(trx: Transaction<AnyDatabase>, event: RecordedEvent, schema: string) {
    await notificationsProjection.applyBatch!(trx, [event], schema);
  },

  async applyBatch(trx: Transaction<AnyDatabase>, events: readonly RecordedEvent[], schema: string) {
    const fold = new BatchFold(trx, schema);
    await fold.preload(events);
    for (const event of events) await fold.fold(event);
    await fold.flush();
  },
};
