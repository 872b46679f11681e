// The social account's events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { platforms } from '../shared/platforms.js';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { SocialAccountEvent } from './social-account.js';

const nullableString = z.string().nullable();
const platform = z.enum(platforms);

const profile = {
  accountName: nullableString,
  accountHandle: nullableString,
  profileImageUrl: nullableString,
  profileUrl: nullableString,
  accountBio: nullableString,
  xSubscription: z.enum(['none', 'basic', 'premium', 'premium_plus']).nullable(),
};
const account = { accountId: z.string(), orgId: z.string() };
const notice = { ...account, platform, accountHandle: nullableString };

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
const exact: SchemasMatch<SocialAccountEvent, typeof schemas> = true;
void exact;

export const socialAccountEventCodec = defineEventCodec<SocialAccountEvent>(
  'social-accounts',
  zodSpecs(schemas),
);
