// The user's and the e-mail claim's events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { UserEmailEvent, UserEvent } from './user.js';

const nullableString = z.string().nullable();

const userSchemas = {
  UserRegistered: z.object({
    userId: z.string(),
    email: z.string(),
    name: nullableString,
    registeredAt: z.string(),
  }),
  UserProfileUpdated: z.object({
    userId: z.string(),
    // Strict: the changes are spread onto the user.
    changes: z.strictObject({
      name: nullableString.optional(),
      avatarUrl: nullableString.optional(),
      activeOrgId: nullableString.optional(),
      locale: nullableString.optional(),
      timezone: nullableString.optional(),
    }),
    updatedAt: z.string(),
  }),
  UserEmailVerified: z.object({
    userId: z.string(),
    email: z.string(),
    method: z.enum(['email_link', 'identity_provider']),
    verifiedAt: z.string(),
  }),
  UserProfileImageSet: z.object({
    userId: z.string(),
    key: z.string(),
    avatarUrl: z.string(),
    setAt: z.string(),
  }),
  UserProfileImageRemoved: z.object({
    userId: z.string(),
    key: z.string(),
    avatarUrl: z.string(),
    removedAt: z.string(),
  }),
};
const userExact: SchemasMatch<UserEvent, typeof userSchemas> = true;

const emailSchemas = {
  UserEmailClaimed: z.object({ email: z.string(), userId: z.string(), claimedAt: z.string() }),
};
const emailExact: SchemasMatch<UserEmailEvent, typeof emailSchemas> = true;
void [userExact, emailExact];

export const userEventCodec = defineEventCodec<UserEvent>('users', zodSpecs(userSchemas));
export const userEmailEventCodec = defineEventCodec<UserEmailEvent>('user-emails', zodSpecs(emailSchemas));
