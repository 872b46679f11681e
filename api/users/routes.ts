// The signed-in user: GET and PATCH /v1/users/me.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { updateCurrentUser } from '../../commands/users/user-use-cases.js';
import { getCurrentUser } from '../../projections/users/queries.js';
import { callerOf } from '../auth/caller.js';
import { authenticate } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import { ensureKnownUser } from '../shared/known-user.js';
import { canonicalUuid, idempotencyHeaders, timezoneSchema } from '../shared/params.js';

export const userSchema = z
  .object({
    id: z.uuid(),
    email: z.email(),
    emailVerified: z.boolean().nullable(),
    name: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    activeOrgId: z.uuid().nullable(),
    featureFlags: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string().nullable(),
  })
  .openapi('User');

const isLocale = (locale: string) => {
  try {
    return Intl.getCanonicalLocales(locale).length === 1;
  } catch {
    return false;
  }
};

const updateUserBody = z
  .object({
    name: z.string().trim().min(1).max(200).nullable().optional(),
    avatarUrl: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .nullable()
      .optional(),
    activeOrgId: canonicalUuid().nullable().optional(),
    locale: z.string().refine(isLocale, 'must be a BCP 47 language tag, e.g. en-GB').nullable().optional(),
    timezone: timezoneSchema.nullable().optional(),
  })
  .strict()
  .openapi('UpdateUser');

const getMe = createRoute({
  method: 'get',
  path: '/v1/users/me',
  operationId: 'getCurrentUser',
  tags: ['users'],
  summary: 'The signed-in user',
  security: [{ bearerAuth: [] }],
  middleware: [authenticate()] as const,
  responses: {
    200: {
      description: 'The user',
      content: { 'application/json': { schema: z.object({ data: userSchema }) } },
    },
    ...errorResponses(401, 404),
  },
});

const patchMe = createRoute({
  method: 'patch',
  path: '/v1/users/me',
  operationId: 'updateCurrentUser',
  tags: ['users'],
  summary: "Update the signed-in user's profile; omitted fields stay, null clears",
  security: [{ bearerAuth: [] }],
  middleware: [authenticate()] as const,
  request: {
    headers: idempotencyHeaders,
    body: { required: true, content: { 'application/json': { schema: updateUserBody } } },
  },
  responses: {
    200: {
      description: 'The user',
      content: { 'application/json': { schema: z.object({ data: userSchema }) } },
    },
    ...errorResponses(400, 401, 404, 413, 422, 503),
  },
});

export function userRoutes(services: RouteServices & { storage?: ObjectStorage }) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(getMe, async (c) => {
      await ensureKnownUser(c, services);
      return c.json({ data: await getCurrentUser(services, callerOf(c)) }, 200);
    });

    app.openapi(patchMe, async (c) => {
      const body = c.req.valid('json');
      await ensureKnownUser(c, services);
      const written = await updateCurrentUser(services, callerOf(c), body, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
