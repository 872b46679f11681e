// Notifications and preferences as the API answers them (the spec's Notification and Preferences).
import type { PreferenceValues } from './inbox.js';
import type { Tier } from './rules.js';

export interface NotificationView {
  id: string;
  orgId: string;
  type: string;
  title: string;
  body: string | null;
  href: string | null;
  tier: Tier;
  /** `in_app`, and `email` when it goes out by e-mail too (at once or in the daily digest). */
  channels: string[];
  status: 'pending' | 'sent' | 'failed' | 'read';
  dedupeKey: string;
  readAt: string | null;
  dismissedAt: string | null;
  emailSentAt: string | null;
  createdAt: string;
  metadata: Record<string, unknown> | null;
}

export type PreferencesView = { orgId: string; userId: string } & PreferenceValues & {
    updatedAt: string | null;
  };
