// The user's and the e-mail claim's events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event unions read off them.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const nullableString = z.string().nullable();

// Strict: the changes are spread onto the user.
const profileChanges = z.strictObject({
  name: nullableString.optional(),
  avatarUrl: nullableString.optional(),
  activeOrgId: nullableString.optional(),
  locale: nullableString.optional(),
  timezone: nullableString.optional(),
});
export type ProfileChanges = z.output<typeof profileChanges>;

/** How a person proved the address: by opening a sign-in link mailed to it, or through an identity provider. */
const emailVerification = z.enum(['email_link', 'identity_provider']);
export type EmailVerification = z.output<typeof emailVerification>;

const userSchemas = {
  UserRegistered: z.object({
    userId: z.string(),
    email: z.string(),
    name: nullableString,
    registeredAt: z.string(),
  }),
  UserProfileUpdated: z.object({
    userId: z.string(),
    changes: profileChanges,
    updatedAt: z.string(),
  }),
  UserEmailVerified: z.object({
    userId: z.string(),
    email: z.string(),
    method: emailVerification,
    verifiedAt: z.string(),
  }),
  /** An uploaded, checked image became the profile image; `avatarUrl` is its stable asset URL. */
  UserProfileImageSet: z.object({
    userId: z.string(),
    key: z.string(),
    avatarUrl: z.string(),
    setAt: z.string(),
  }),
  /** The profile image was removed, and with it the avatarUrl that showed it. */
  UserProfileImageRemoved: z.object({
    userId: z.string(),
    key: z.string(),
    avatarUrl: z.string(),
    removedAt: z.string(),
  }),
};
export type UserEvent = EventsOf<typeof userSchemas>;

const emailSchemas = {
  UserEmailClaimed: z.object({ email: z.string(), userId: z.string(), claimedAt: z.string() }),
};
export type UserEmailEvent = EventsOf<typeof emailSchemas>;

export const userEventCodec = zodEventCodec('users', userSchemas);
export const userEmailEventCodec = zodEventCodec('user-emails', emailSchemas);
