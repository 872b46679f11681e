// Queries over the notifications read model for one member: their inbox page with its counts, one notification,
// the inbox's watermark for read-all and dismiss-all, and their preferences. E-mail status comes from the mailer's
// own table (processes/notifications), joined by the notification's stable id.
import { sql, type Kysely } from 'kysely';
import {
  defaultPreferences,
  emailWindowMs,
  type EmailMode,
  type KnownNotification,
  type PreferenceValues,
} from '../../domain/notifications/inbox.js';
import type { NotificationView, PreferencesView } from '../../domain/notifications/views.js';
import { toPage, type Page } from '../../domain/shared/page.js';
import type { NotificationCausesTable, NotificationsTable, NotificationTables } from './tables.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyReadModels = Kysely<any>;
const tablesOf = (db: AnyReadModels) => db.withTables<NotificationTables>() as Kysely<NotificationTables>;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Row = NotificationsTable &
  Omit<NotificationCausesTable, 'created_at'> & { email_status: string | null; email_sent_at: string | null };

/** The spec's status: `read` once read; else the e-mail's state while one is due; `sent` when delivered in-app. */
function statusOf(row: Row, now: number): NotificationView['status'] {
  if (row.read_at) return 'read';
  if (row.email_mode === null || row.email_status === 'skipped' || row.email_status === 'sent') return 'sent';
  if (row.email_status === 'failed') return 'failed';
  // An e-mail never picked up within its window will not go any more (the mailer was down): delivered in-app.
  const window = emailWindowMs[row.email_mode as EmailMode] ?? emailWindowMs.digest;
  if (row.email_status === null && Date.parse(row.created_at) < now - window) return 'sent';
  return 'pending';
}

export function notificationView(row: Row, now = Date.now()): NotificationView {
  return {
    id: row.id,
    orgId: row.org_id,
    type: row.type,
    title: row.title,
    body: row.body,
    href: row.href,
    tier: row.tier as NotificationView['tier'],
    channels: row.email_mode ? ['in_app', 'email'] : ['in_app'],
    status: statusOf(row, now),
    dedupeKey: row.dedupe_key,
    readAt: row.read_at,
    dismissedAt: row.dismissed_at,
    emailSentAt: row.email_sent_at,
    createdAt: row.created_at,
    metadata: row.metadata,
  };
}

/** A page of the inbox, and how many of its notifications are unread in all. */
export type InboxPage = Page<NotificationView> & { unreadCount: number };

/** The member's notifications, newest first, dismissed (and in-app-off) ones left out. */
export async function listNotifications(
  db: AnyReadModels,
  input: { orgId: string; userId: string; unreadOnly: boolean; page: number; limit: number },
): Promise<InboxPage> {
  const { orgId, userId, unreadOnly, page, limit } = input;
  const [items, counts] = await Promise.all([
    sql<Row>`
      select n.*, c.dedupe_key, c.type, c.tier, c.title, c.body, c.href, c.metadata,
        e.status as email_status, e.sent_at as email_sent_at
      from notifications n
      join notification_causes c on c.cause_id = n.cause_id
      left join notification_emails e on e.notification_id = n.id
      where n.org_id = ${orgId} and n.user_id = ${userId} and n.in_app and n.dismissed_at is null
        ${unreadOnly ? sql`and n.read_at is null` : sql``}
      order by n.seq desc
      limit ${limit} offset ${(page - 1) * limit}`.execute(db),
    sql<{ total: number; unread: number }>`
      select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread
      from notifications
      where org_id = ${orgId} and user_id = ${userId} and in_app and dismissed_at is null`.execute(db),
  ]);
  const { total, unread } = counts.rows[0] ?? { total: 0, unread: 0 };
  return {
    ...toPage(
      items.rows.map((row) => notificationView(row)),
      unreadOnly ? unread : total,
      page,
      limit,
    ),
    unreadCount: unread,
  };
}

/** The member's own notification (dismissed ones too), or null: another member's or workspace's id is not found. */
export async function findNotification(
  db: AnyReadModels,
  input: { orgId: string; userId: string; notificationId: string },
): Promise<KnownNotification | null> {
  if (!uuidPattern.test(input.notificationId)) return null;
  const row = await tablesOf(db)
    .selectFrom('notifications')
    .select(['id', 'seq'])
    .where('id', '=', input.notificationId)
    .where('org_id', '=', input.orgId)
    .where('user_id', '=', input.userId)
    .where('in_app', '=', true)
    .executeTakeFirst();
  return row ? { id: row.id, seq: row.seq } : null;
}

/** The newest notification's sequence number and how many up to it are unread and undismissed (in-app). */
export async function inboxWatermark(
  db: AnyReadModels,
  input: { orgId: string; userId: string },
): Promise<{ upToSeq: number; unread: number; undismissed: number }> {
  const { rows } = await sql<{ up_to: number | null; unread: number; undismissed: number }>`
    select max(seq) as up_to,
      (count(*) filter (where in_app and read_at is null and dismissed_at is null))::int as unread,
      (count(*) filter (where in_app and dismissed_at is null))::int as undismissed
    from notifications where org_id = ${input.orgId} and user_id = ${input.userId}`.execute(db);
  const row = rows[0];
  return { upToSeq: row?.up_to ?? 0, unread: row?.unread ?? 0, undismissed: row?.undismissed ?? 0 };
}

export function preferencesView(
  orgId: string,
  userId: string,
  preferences: PreferenceValues,
  updatedAt: string | null,
): PreferencesView {
  return { orgId, userId, ...preferences, updatedAt };
}

export async function getPreferences(
  db: AnyReadModels,
  input: { orgId: string; userId: string },
): Promise<PreferencesView> {
  const row = await tablesOf(db)
    .selectFrom('notification_preferences')
    .select(['preferences', 'updated_at'])
    .where('org_id', '=', input.orgId)
    .where('user_id', '=', input.userId)
    .executeTakeFirst();
  return preferencesView(
    input.orgId,
    input.userId,
    { ...defaultPreferences, ...row?.preferences },
    row?.updated_at ?? null,
  );
}
