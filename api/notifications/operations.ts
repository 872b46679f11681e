// The notifications slice's operations, for the signed-in member: GET ORG/notifications, POST …/read-all,
// …/dismiss-all, GET / PUT …/notifications/preferences, POST …/{notificationId}/read and …/dismiss. Each member
// sees and changes only their own, and they stay writable in a read-only workspace (`billing: null`).
import { z } from '@hono/zod-openapi';
import {
  dismissAllNotifications,
  dismissNotification,
  readAllNotifications,
  readNotification,
  updateNotificationPreferences,
} from '../../commands/notifications/notification-use-cases.js';
import { preferenceToggles } from '../../domain/notifications/inbox.js';
import { tiers } from '../../domain/notifications/rules.js';
import { getPreferences, listNotifications } from '../../projections/notifications/queries.js';
import { pageShape, pageParams } from '../platform/paging.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { canonicalUuid, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';

const notificationSchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid().nullable(),
    type: z.string().openapi({ example: 'approval_requested' }),
    title: z.string(),
    body: z.string().nullable(),
    href: z.string().nullable().openapi({ description: 'The API path of what it is about' }),
    tier: z.enum(tiers),
    channels: z.array(z.string()).openapi({ example: ['in_app', 'email'] }),
    status: z.enum(['pending', 'sent', 'failed', 'read']),
    dedupeKey: z.string(),
    readAt: z.string().nullable(),
    dismissedAt: z.string().nullable(),
    emailSentAt: z.string().nullable(),
    createdAt: z.string(),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .openapi('Notification');

// The page's fields with the unread count, in the order the document has always listed them.
const inboxPage = pageShape(notificationSchema);
const inboxSchema = z
  .object({
    items: inboxPage.items,
    total: inboxPage.total,
    unreadCount: z.number().int().min(0),
    page: inboxPage.page,
    limit: inboxPage.limit,
    hasMore: inboxPage.hasMore,
  })
  .openapi('NotificationPage');

const preferencesShape = Object.fromEntries(preferenceToggles.map((t) => [t, z.boolean()])) as Record<
  (typeof preferenceToggles)[number],
  z.ZodBoolean
>;

const preferencesSchema = z
  .object({ orgId: z.uuid(), userId: z.uuid(), ...preferencesShape, updatedAt: z.string().nullable() })
  .openapi('NotificationPreferences');

const updatePreferencesBody = z
  .object(
    Object.fromEntries(preferenceToggles.map((t) => [t, z.boolean().optional()])) as Record<
      (typeof preferenceToggles)[number],
      z.ZodOptional<z.ZodBoolean>
    >,
  )
  .strict()
  .openapi('UpdateNotificationPreferences');

const listQuery = z
  .object({
    unreadOnly: z
      .enum(['true', 'false'])
      .openapi({ description: 'true: only unread notifications; false: read ones too' }),
    ...pageParams(20, 100),
  })
  .strict();

const notificationParams = orgParams.extend({
  notificationId: canonicalUuid().openapi({ param: { name: 'notificationId', in: 'path' } }),
});

const operation = operationsWith<RouteServices>();
const path = '/v1/orgs/{orgId}/notifications';
/** Any member, for their own notifications; exempt from the 402, as everything under ORG/notifications is. */
const own = { permission: 'workspace:read', billing: null } as const;
const tags = ['notifications'];

export const notificationOperations = operationGroup(
  (ctx) => ctx.services,
  [
    operation({
      name: 'listNotifications',
      kind: 'read',
      method: 'get',
      path,
      tags,
      summary: 'Your notifications in this workspace, newest first; dismissed ones are left out',
      params: orgParams,
      query: listQuery,
      output: inboxSchema,
      outputDescription: 'A page of notifications with the unread count',
      errors: [400, 401, 403],
      access: own,
      run: async (services, { caller }, { orgId, unreadOnly, page, limit }) => {
        return listNotifications(services.readModels, {
          orgId,
          userId: caller.userId,
          unreadOnly: unreadOnly === 'true',
          page,
          limit,
        });
      },
    }),
    operation({
      name: 'readAllNotifications',
      kind: 'write',
      method: 'post',
      path: `${path}/read-all`,
      tags,
      summary: 'Mark every notification you have now read',
      params: orgParams,
      output: z.object({ markedCount: z.number().int().min(0) }),
      outputDescription: 'How many were marked',
      errors: [400, 401, 403, 409, 422, 503],
      access: own,
      run: (services, { caller, request }, { orgId }) =>
        readAllNotifications(services, caller, { orgId }, request),
    }),
    operation({
      name: 'dismissAllNotifications',
      kind: 'write',
      method: 'post',
      path: `${path}/dismiss-all`,
      tags,
      summary: 'Dismiss every notification you have now',
      params: orgParams,
      output: z.object({ dismissedCount: z.number().int().min(0) }),
      outputDescription: 'How many were dismissed',
      errors: [400, 401, 403, 409, 422, 503],
      access: own,
      run: (services, { caller, request }, { orgId }) =>
        dismissAllNotifications(services, caller, { orgId }, request),
    }),
    operation({
      name: 'getNotificationPreferences',
      kind: 'read',
      method: 'get',
      path: `${path}/preferences`,
      tags,
      summary: 'Your notification preferences in this workspace (defaults until you change one)',
      params: orgParams,
      output: preferencesSchema,
      outputDescription: 'Preferences',
      errors: [400, 401, 403],
      access: own,
      run: (services, { caller }, { orgId }) =>
        getPreferences(services.readModels, { orgId, userId: caller.userId }),
    }),
    operation({
      name: 'updateNotificationPreferences',
      kind: 'write',
      method: 'put',
      path: `${path}/preferences`,
      tags,
      summary: 'Change any of your notification toggles; omitted ones stay',
      params: orgParams,
      body: updatePreferencesBody,
      output: preferencesSchema,
      outputDescription: 'Preferences',
      errors: [400, 401, 403, 409, 413, 422, 503],
      access: own,
      run: (services, { caller, request }, { orgId, ...changes }) =>
        updateNotificationPreferences(services, caller, { orgId, changes }, request),
    }),
    operation({
      name: 'readNotification',
      kind: 'write',
      method: 'post',
      path: `${path}/{notificationId}/read`,
      tags,
      summary: 'Mark one of your notifications read (again: no change)',
      params: notificationParams,
      output: z.object({ id: z.uuid(), readAt: z.string(), status: z.literal('read') }),
      outputDescription: 'The notification, read',
      errors: [400, 401, 403, 404, 409, 422, 503],
      access: own,
      run: (services, { caller, request }, { orgId, notificationId }) =>
        readNotification(services, caller, { orgId, notificationId }, request),
    }),
    operation({
      name: 'dismissNotification',
      kind: 'write',
      method: 'post',
      path: `${path}/{notificationId}/dismiss`,
      tags,
      summary: 'Dismiss one of your notifications: it leaves the list (not the same as read)',
      params: notificationParams,
      output: z.object({ id: z.uuid(), dismissedAt: z.string() }),
      outputDescription: 'The notification, dismissed',
      errors: [400, 401, 403, 404, 409, 422, 503],
      access: own,
      run: (services, { caller, request }, { orgId, notificationId }) =>
        dismissNotification(services, caller, { orgId, notificationId }, request),
    }),
  ],
);
