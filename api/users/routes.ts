// The signed-in user: GET and PATCH /v1/users/me.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { loadUser, updateProfile, type RegisteredUser } from '../../commands/users/user-commands.js';
import { NotFound } from '../../domain/shared/errors.js';
import { getUser } from '../../projections/users/queries.js';
import { findMembershipRole } from '../../projections/workspaces/queries.js';
import type { UsersTable } from '../../projections/read-models.js';
import { authenticate } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import type { RouteServices } from '../shared/services.js';
import { commandMetadata, idempotentWrite } from '../shared/write.js';
import { ensureKnownUser } from '../shared/known-user.js';
import { idempotencyHeaders, timezoneSchema } from '../shared/params.js';

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
    activeOrgId: z.uuid().nullable().optional(),
    locale: z.string().refine(isLocale, 'must be a BCP 47 language tag, e.g. en-GB').nullable().optional(),
    timezone: timezoneSchema.nullable().optional(),
  })
  .strict()
  .openapi('UpdateUser');

type UserBody = z.infer<typeof userSchema>;

function fromAggregate(u: RegisteredUser): UserBody {
  return {
    id: u.userId,
    email: u.email,
    emailVerified: null,
    name: u.name,
    avatarUrl: u.avatarUrl,
    activeOrgId: u.activeOrgId,
    featureFlags: [],
    createdAt: u.createdAt,
    updatedAt: u.updatedAt,
  };
}

function fromReadModel(u: UsersTable): UserBody {
  return {
    id: u.id,
    email: u.email,
    emailVerified: u.email_verified,
    name: u.name,
    avatarUrl: u.avatar_url,
    activeOrgId: u.active_org_id,
    featureFlags: u.feature_flags,
    createdAt: u.created_at,
    updatedAt: u.updated_at,
  };
}

const getMe = createRoute({
  method: 'get',
  path: '/v1/users/me',
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

export function userRoutes(services: RouteServices) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(getMe, async (c) => {
      await ensureKnownUser(c, services);
      const userId = c.get('principal').userId;
      const row = await getUser(services.readModels, userId);
      // The read model may not have caught up with a user made by the CLI a moment ago; the stream is the truth.
      const data = row ? fromReadModel(row) : fromAggregate(await loadUser(services.commands, userId));
      return c.json({ data }, 200);
    });

    app.openapi(patchMe, async (c) => {
      const body = c.req.valid('json');
      await ensureKnownUser(c, services);
      const userId = c.get('principal').userId;
      if (body.activeOrgId && !(await findMembershipRole(services.readModels, userId, body.activeOrgId))) {
        throw new NotFound('Workspace not found');
      }
      return idempotentWrite(c, services, body, async ({ record }) => {
        let response = { status: 200, body: {} as unknown };
        const { user, appended } = await updateProfile(
          services.commands,
          userId,
          body,
          commandMetadata(c, services),
          {
            sideWrite: async (trx, u) => {
              response = { status: 200, body: { data: fromAggregate(u) } };
              await record?.(trx, response);
            },
          },
        );
        if (!appended) {
          // Nothing changed: the read model (which also carries emailVerified and featureFlags) is current.
          const row = await getUser(services.readModels, userId);
          response = { status: 200, body: { data: row ? fromReadModel(row) : fromAggregate(user) } };
        }
        return { response, appended };
      }) as never;
    });
  };
}
