// The notification inbox's events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { InboxEvent } from './inbox.js';

const who = { orgId: z.string(), userId: z.string() };

const schemas = {
  NotificationRead: z.object({ ...who, notificationId: z.string(), readAt: z.string() }),
  NotificationDismissed: z.object({ ...who, notificationId: z.string(), dismissedAt: z.string() }),
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
const exact: SchemasMatch<InboxEvent, typeof schemas> = true;
void exact;

export const inboxEventCodec = defineEventCodec<InboxEvent>('notifications', zodSpecs(schemas));
export const inboxEventTypes = Object.keys(schemas) as InboxEvent['type'][];
