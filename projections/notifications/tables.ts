// Kysely types of the notifications read model (public views named after the projection's tables).
import type { PreferenceValues } from '../../domain/notifications/inbox.js';

/** One per cause (workspace and dedupeKey): what it says. */
export type NotificationCausesTable = {
  cause_id: string;
  org_id: string;
  dedupe_key: string;
  type: string;
  tier: string;
  title: string;
  body: string | null;
  href: string | null;
  metadata: Record<string, unknown> | null;
  created_at: string;
};

/** One per cause and recipient: their copy's order and state. */
export type NotificationsTable = {
  id: string;
  cause_id: string;
  org_id: string;
  user_id: string;
  /** The recipient's inbox order: read-all and dismiss-all cover everything up to one. */
  seq: number;
  /** False when the member had in-app notifications off when it was created: kept (for e-mail), not listed. */
  in_app: boolean;
  /** How it goes out by e-mail: `immediate`, `digest`, or null for none. */
  email_mode: string | null;
  created_at: string;
  read_at: string | null;
  dismissed_at: string | null;
};

export type NotificationMembersTable = {
  org_id: string;
  user_id: string;
  role: string;
  active: boolean;
  last_seq: number;
};

export type NotificationPreferencesTable = {
  org_id: string;
  user_id: string;
  preferences: PreferenceValues;
  updated_at: string;
};

/** A type (not an interface), so kysely's `withTables` takes it. */
export type NotificationTables = {
  notifications: NotificationsTable;
  notification_causes: NotificationCausesTable;
  notification_members: NotificationMembersTable;
  notification_preferences: NotificationPreferencesTable;
};
