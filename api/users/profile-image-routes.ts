// The signed-in user's profile image: upload slot, set from an upload, read with a download URL, remove.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  createProfileImageUploadUrl,
  getProfileImage,
  removeProfileImage,
  setProfileImage,
  type ProfileImageDeps,
} from '../../commands/users/profile-image-use-cases.js';
import { imageContentTypes, maxImageBytes } from '../../commands/shared/image-uploads.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { ensureKnownUser } from '../shared/known-user.js';
import { idempotencyHeaders } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';

const acceptedTypes = Object.keys(imageContentTypes).join(', ');

/** The body of both upload-url endpoints (profile image and workspace logo). */
export const imageUploadBody = z
  .object({
    contentType: z
      .string()
      .max(255)
      .openapi({
        example: 'image/png',
        description: `One of ${acceptedTypes}; the upload must be sent with it and be at most ${maxImageBytes} bytes`,
      }),
  })
  .strict()
  .openapi('ImageUploadRequest');

const uploadSlotFields = {
  uploadUrl: z.string().openapi({ description: 'PUT the bytes here before it expires' }),
  key: z.string(),
  expiresInSeconds: z.number().int(),
  method: z.literal('PUT'),
  requiredHeaders: z
    .record(z.string(), z.string())
    .openapi({ description: 'Headers the upload must carry exactly as given (Content-Type)' }),
};

export const profileImageUploadSlotSchema = z
  .object({
    ...uploadSlotFields,
    url: z.string().openapi({ description: 'The stable URL the image will be shown at once set' }),
  })
  .openapi('ProfileImageUploadSlot');

/** The workspace logo's slot: `assetUrl` is what PATCH /v1/orgs/{orgId} takes as avatarUrl. */
export const logoUploadSlotSchema = z
  .object({
    ...uploadSlotFields,
    assetUrl: z.string().openapi({ description: 'The stable URL the logo will be shown at' }),
  })
  .openapi('LogoUploadSlot');

const setBody = z
  .object({
    key: z.string().min(1).max(1024).openapi({ description: 'The key the upload-url answer gave' }),
  })
  .strict()
  .openapi('SetProfileImage');

const profileImageSet = z
  .object({ avatarUrl: z.string().nullable(), key: z.string() })
  .openapi('ProfileImageSet');

const profileImage = z
  .object({
    key: z.string(),
    url: z.string().openapi({ description: 'A signed download URL, valid for expiresInSeconds' }),
    expiresInSeconds: z.number().int(),
  })
  .openapi('ProfileImage');

const common = { ...secured({ workspace: false }), tags: ['users'] };

const uploadUrlRoute = createRoute({
  ...common,
  method: 'post',
  path: '/v1/users/me/profile-image/upload-url',
  operationId: 'createProfileImageUploadUrl',
  summary: `A slot to upload a profile image (${acceptedTypes}, at most ${maxImageBytes} bytes)`,
  request: { headers: idempotencyHeaders, body: jsonBody(imageUploadBody) },
  responses: {
    200: jsonResponse(dataOf(profileImageUploadSlotSchema), 'The upload slot'),
    ...errorResponses(400, 401, 403, 413, 422),
  },
});

const setRoute = createRoute({
  ...common,
  method: 'post',
  path: '/v1/users/me/profile-image',
  operationId: 'setProfileImage',
  summary: 'Make an uploaded image the profile image; avatarUrl becomes its stable URL',
  request: { headers: idempotencyHeaders, body: jsonBody(setBody) },
  responses: {
    200: jsonResponse(dataOf(profileImageSet), 'The profile image and avatarUrl'),
    ...errorResponses(400, 401, 403, 404, 413, 422, 503),
  },
});

const getRoute = createRoute({
  ...common,
  method: 'get',
  path: '/v1/users/me/profile-image',
  operationId: 'getProfileImage',
  summary: 'The profile image with a fresh download URL',
  responses: {
    200: jsonResponse(dataOf(profileImage), 'The profile image'),
    ...errorResponses(401, 403, 404),
  },
});

const deleteRoute = createRoute({
  ...common,
  method: 'delete',
  path: '/v1/users/me/profile-image',
  operationId: 'deleteProfileImage',
  summary: 'Remove the profile image (avatarUrl cleared); removing none is not an error',
  request: { headers: idempotencyHeaders },
  responses: {
    200: { description: 'Removed (no body)' },
    ...errorResponses(401, 403, 422, 503),
  },
});

export function profileImageRoutes(services: RouteServices & ProfileImageDeps) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(uploadUrlRoute, async (c) => {
      const body = c.req.valid('json');
      await ensureKnownUser(c, services);
      const written = await createProfileImageUploadUrl(
        services,
        callerOf(c),
        body,
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(setRoute, async (c) => {
      const body = c.req.valid('json');
      await ensureKnownUser(c, services);
      const written = await setProfileImage(services, callerOf(c), body, writeRequest(c, services, body));
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(getRoute, async (c) => {
      await ensureKnownUser(c, services);
      return c.json({ data: await getProfileImage(services, callerOf(c)) }, 200);
    });

    app.openapi(deleteRoute, async (c) => {
      await ensureKnownUser(c, services);
      const written = await removeProfileImage(services, callerOf(c), writeRequest(c, services, undefined));
      answered(c, written);
      return c.body(null, 200);
    });
  };
}
