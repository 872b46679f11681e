// The users slice's schemas: the signed-in user and the changes to their profile, and the image upload slots
// (profile image here, workspace logo in api/workspaces/operations.ts: both take the same body).
import { z } from '@hono/zod-openapi';
import { imageContentTypes, maxImageBytes } from '../../commands/shared/image-uploads.js';
import { canonicalUuid, timezoneSchema } from '../shared/params.js';

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

export const updateUserBody = z
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

export const acceptedImageTypes = Object.keys(imageContentTypes).join(', ');

/** The body of both upload-url endpoints (profile image and workspace logo). */
export const imageUploadBody = z
  .object({
    contentType: z
      .string()
      .max(255)
      .openapi({
        example: 'image/png',
        description: `One of ${acceptedImageTypes}; the upload must be sent with it and be at most ${maxImageBytes} bytes`,
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

export const setProfileImageBody = z
  .object({
    key: z.string().min(1).max(1024).openapi({ description: 'The key the upload-url answer gave' }),
  })
  .strict()
  .openapi('SetProfileImage');

export const profileImageSetSchema = z
  .object({ avatarUrl: z.string().nullable(), key: z.string() })
  .openapi('ProfileImageSet');

export const profileImageSchema = z
  .object({
    key: z.string(),
    url: z.string().openapi({ description: 'A signed download URL, valid for expiresInSeconds' }),
    expiresInSeconds: z.number().int(),
  })
  .openapi('ProfileImage');
