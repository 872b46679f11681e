// The spec's SocialAccount and TikTok creator-info shapes and the account endpoints' bodies and params, typed
// once in zod: requests are validated and the OpenAPI document generated from these (the OAuth routes share them).
import { z } from '@hono/zod-openapi';
import type { SocialAccountView } from '../../domain/social-accounts/social-account.js';
import { platformSchema } from '../post-groups/schemas.js';
import { orgParams } from '../shared/params.js';

export const socialAccountStatusSchema = z.enum(['connected', 'disconnected', 'error']);
export const xSubscriptionSchema = z.enum(['none', 'basic', 'premium', 'premium_plus']);

export const socialAccountSchema = z
  .object({
    id: z.uuid(),
    orgId: z.uuid(),
    platform: platformSchema,
    accountExternalId: z.string(),
    accountName: z.string().nullable(),
    accountHandle: z.string().nullable(),
    status: socialAccountStatusSchema,
    scopes: z.array(z.string()),
    tokenExpiresAt: z.string().nullable(),
    lastRefreshedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    profileImageUrl: z.string().nullable(),
    profileUrl: z.string().nullable(),
    accountBio: z.string().nullable(),
    xPremium: z.boolean().nullable().openapi({ description: 'X only: true for premium and premium_plus' }),
    xSubscription: xSubscriptionSchema.nullable(),
  })
  .openapi('SocialAccount');

// The schema and the view the commands answer with must describe the same object.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _viewMatchesSchema: Same<z.infer<typeof socialAccountSchema>, SocialAccountView> = true;
void _viewMatchesSchema;

export const accountParams = orgParams.extend({
  accountId: z.uuid().openapi({ param: { name: 'accountId', in: 'path' } }),
});

export const updateSocialAccountBody = z
  .object({
    profileUrl: z
      .url({ protocol: /^https?$/, message: 'an absolute http or https URL, or null' })
      .max(2048)
      .nullable()
      .openapi({ example: 'https://x.com/acme', description: 'null clears it' }),
  })
  .strict()
  .openapi('UpdateSocialAccount');

export const tiktokCreatorInfoSchema = z
  .object({
    creatorAvatarUrl: z.string().nullable(),
    creatorUsername: z.string().nullable(),
    creatorNickname: z.string().nullable(),
    privacyLevelOptions: z.array(z.string()),
    commentDisabled: z.boolean(),
    duetDisabled: z.boolean(),
    stitchDisabled: z.boolean(),
    maxVideoPostDurationSec: z.number().nullable(),
    directPostEnabled: z.boolean(),
  })
  .openapi('TikTokCreatorInfo');
