// The social account's events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';
import { platforms } from '../shared/platforms.js';

const nullableString = z.string().nullable();
const platform = z.enum(platforms);

const xSubscription = z.enum(['none', 'basic', 'premium', 'premium_plus']);
export type XSubscription = z.output<typeof xSubscription>;

/** What the platform tells us about the account at connection time. */
const platformProfile = z.object({
  accountName: nullableString,
  accountHandle: nullableString,
  profileImageUrl: nullableString,
  profileUrl: nullableString,
  accountBio: nullableString,
  xSubscription: xSubscription.nullable(),
});
export type PlatformProfile = z.output<typeof platformProfile>;
const profile = platformProfile.shape;

const account = { accountId: z.string(), orgId: z.string() };
/** Notifications pick up the events that carry this, so they name the account without the read model. */
const accountNotice = z.object({ ...account, platform, accountHandle: nullableString });
export type AccountNotice = z.output<typeof accountNotice>;
const notice = accountNotice.shape;

const schemas = {
  SocialAccountConnected: z.object({
    ...profile,
    ...account,
    platform,
    accountExternalId: z.string(),
    scopes: z.array(z.string()),
    tokenExpiresAt: nullableString,
    connectedAt: z.string(),
  }),
  SocialAccountReconnected: z.object({
    ...profile,
    ...account,
    scopes: z.array(z.string()),
    tokenExpiresAt: nullableString,
    reconnectedAt: z.string(),
  }),
  SocialAccountProfileUrlSet: z.object({ ...account, profileUrl: nullableString, updatedAt: z.string() }),
  SocialAccountTokensRefreshed: z.object({
    ...account,
    tokenExpiresAt: nullableString,
    refreshedAt: z.string(),
  }),
  SocialAccountRefreshFailed: z.object({ ...notice, reason: z.string(), failedAt: z.string() }),
  SocialAccountTokenExpiring: z.object({ ...notice, tokenExpiresAt: z.string(), warnedAt: z.string() }),
  SocialAccountDisconnected: z.object({ ...notice, reason: z.string(), disconnectedAt: z.string() }),
  SocialAccountDeleted: z.object({ ...account, deletedAt: z.string() }),
};
export type SocialAccountEvent = EventsOf<typeof schemas>;

export const socialAccountEventCodec = zodEventCodec('social-accounts', schemas);
