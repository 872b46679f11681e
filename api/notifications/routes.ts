// Notification routes for the signed-in member: GET ORG/notifications, POST …/{id}/read, …/{id}/dismiss, …/read-all,
// …/dismiss-all, and GET / PUT …/notifications/preferences. Each member sees and changes only their own.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  authorizeInboxRead,
  dismissAllNotifications,
  dismissNotification,
  readAllNotifications,
  readNotification,
  updateNotificationPreferences,
  type NotificationDeps,
} from '../../commands/notifications/notification-use-cases.js';
import { preferenceToggles } from '../../domain/notifications/inbox.js';
import { tiers } from '../../domain/notifications/rules.js';
import { getPreferences, listNotifications } from '../../projections/notifications/queries.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { pageShape } from '../platform/paging.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { canonicalUuid, idempotencyHeaders, orgParams } from '../shared/params.js';
import { answered, writeRequest } from '../shared/write.js';

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
    page: z.coerce
      .number()
      .int()
      .min(1)
      .default(1)
      .openapi({ type: 'integer', minimum: 1, default: 1, description: 'Page number, 1-based' }),
    limit: z.coerce.number().int().min(1).max(100).default(20).openapi({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
      description: 'Page size (default 20, maximum 100)',
    }),
  })
  .strict();

const notificationParams = orgParams.extend({
  notificationId: canonicalUuid().openapi({ param: { name: 'notificationId', in: 'path' } }),
});

const common = { ...secured({ permission: 'workspace:read' }), tags: ['notifications'] };

const listRouteDef = createRoute({
  ...common,
  method: 'get',
  path: '/v1/orgs/{orgId}/notifications',
  operationId: 'listNotifications',
  summary: 'Your notifications in this workspace, newest first; dismissed ones are left out',
  request: { params: orgParams, query: listQuery },
  responses: {
    200: jsonResponse(dataOf(inboxSchema), 'A page of notifications with the unread count'),
    ...errorResponses(400, 401, 403),
  },
});

const readRouteDef = createRoute({
  ...common,
  method: 'post',
  path: '/v1/orgs/{orgId}/notifications/{notificationId}/read',
  operationId: 'readNotification',
  summary: 'Mark one of your notifications read (again: no change)',
  request: { params: notificationParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(
      dataOf(z.object({ id: z.uuid(), readAt: z.string(), status: z.literal('read') })),
      'The notification, read',
    ),
    ...errorResponses(400, 401, 403, 404, 409, 422, 503),
  },
});

const dismissRouteDef = createRoute({
  ...common,
  method: 'post',
  path: '/v1/orgs/{orgId}/notifications/{notificationId}/dismiss',
  operationId: 'dismissNotification',
  summary: 'Dismiss one of your notifications: it leaves the list (not the same as read)',
  request: { params: notificationParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(
      dataOf(z.object({ id: z.uuid(), dismissedAt: z.string() })),
      'The notification, dismissed',
    ),
    ...errorResponses(400, 401, 403, 404, 409, 422, 503),
  },
});

const readAllRouteDef = createRoute({
  ...common,
  method: 'post',
  path: '/v1/orgs/{orgId}/notifications/read-all',
  operationId: 'readAllNotifications',
  summary: 'Mark every notification you have now read',
  request: { params: orgParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(dataOf(z.object({ markedCount: z.number().int().min(0) })), 'How many were marked'),
    ...errorResponses(400, 401, 403, 409, 422, 503),
  },
});

const dismissAllRouteDef = createRoute({
  ...common,
  method: 'post',
  path: '/v1/orgs/{orgId}/notifications/dismiss-all',
  operationId: 'dismissAllNotifications',
  summary: 'Dismiss every notification you have now',
  request: { params: orgParams, headers: idempotencyHeaders },
  responses: {
    200: jsonResponse(
      dataOf(z.object({ dismissedCount: z.number().int().min(0) })),
      'How many were dismissed',
    ),
    ...errorResponses(400, 401, 403, 409, 422, 503),
  },
});

const getPreferencesRouteDef = createRoute({
  ...common,
  method: 'get',
  path: '/v1/orgs/{orgId}/notifications/preferences',
  operationId: 'getNotificationPreferences',
  summary: 'Your notification preferences in this workspace (defaults until you change one)',
  request: { params: orgParams },
  responses: {
    200: jsonResponse(dataOf(preferencesSchema), 'Preferences'),
    ...errorResponses(400, 401, 403),
  },
});

const putPreferencesRouteDef = createRoute({
  ...common,
  method: 'put',
  path: '/v1/orgs/{orgId}/notifications/preferences',
  operationId: 'updateNotificationPreferences',
  summary: 'Change any of your notification toggles; omitted ones stay',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(updatePreferencesBody) },
  responses: {
    200: jsonResponse(dataOf(preferencesSchema), 'Preferences'),
    ...errorResponses(400, 401, 403, 409, 413, 422, 503),
  },
});

export function notificationRoutes(services: NotificationDeps & { now?: () => Date }) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const { unreadOnly, page, limit } = c.req.valid('query');
      const caller = callerOf(c);
      authorizeInboxRead(caller, orgId);
      const inbox = await listNotifications(services.readModels, {
        orgId,
        userId: caller.userId,
        unreadOnly: unreadOnly === 'true',
        page,
        limit,
      });
      return c.json({ data: inbox }, 200);
    });

    app.openapi(readAllRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const written = await readAllNotifications(
        services,
        callerOf(c),
        { orgId },
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(dismissAllRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const written = await dismissAllNotifications(
        services,
        callerOf(c),
        { orgId },
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(getPreferencesRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const caller = callerOf(c);
      authorizeInboxRead(caller, orgId);
      return c.json(
        { data: await getPreferences(services.readModels, { orgId, userId: caller.userId }) },
        200,
      );
    });

    app.openapi(putPreferencesRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await updateNotificationPreferences(
        services,
        callerOf(c),
        { orgId, changes: body },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(readRouteDef, async (c) => {
      const { orgId, notificationId } = c.req.valid('param');
      const written = await readNotification(
        services,
        callerOf(c),
        { orgId, notificationId },
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(dismissRouteDef, async (c) => {
      const { orgId, notificationId } = c.req.valid('param');
      const written = await dismissNotification(
        services,
        callerOf(c),
        { orgId, notificationId },
        writeRequest(c, services, undefined),
      );
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
