// The notification inbox's events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const who = { orgId: z.string(), userId: z.string() };

const schemas = {
  NotificationRead: z.object({ ...who, notificationId: z.string(), readAt: z.string() }),
  NotificationDismissed: z.object({ ...who, notificationId: z.string(), dismissedAt: z.string() }),
  /** Every notification up to `upToSeq` not read or dismissed yet becomes read; `markedCount` of them. */
  NotificationsAllRead: z.object({
    ...who,
    upToSeq: z.number(),
    markedCount: z.number(),
    readAt: z.string(),
  }),
  NotificationsAllDismissed: z.object({
    ...who,
    upToSeq: z.number(),
    dismissedCount: z.number(),
    dismissedAt: z.string(),
  }),
  NotificationPreferencesChanged: z.object({
    ...who,
    /** The preferences as they are after the change (all toggles, inbox.ts `preferenceToggles`). */
    preferences: z.object({
      emailEnabled: z.boolean(),
      inAppEnabled: z.boolean(),
      actionRequiredEmail: z.boolean(),
      meaningfulWinEmail: z.boolean(),
      routineEmail: z.boolean(),
      digestEnabled: z.boolean(),
      approvalRemindersEmail: z.boolean(),
    }),
    updatedAt: z.string(),
  }),
};
export type InboxEvent = EventsOf<typeof schemas>;

export const inboxEventCodec = zodEventCodec('notifications', schemas);
export const inboxEventTypes = Object.keys(schemas) as InboxEvent['type'][];
