// The social accounts slice's onboarding facts (socialConnected, xConnected), read from its read model when the
// status is asked for; contributed to the onboarding slice by api/social-accounts/slice.ts.
import type { OnboardingProbe } from '../onboarding/probes.js';

/** Social accounts: any account connected now (not disconnected, in error or deleted), and an X account. */
export const socialAccountsProbe: OnboardingProbe = async (db, orgId) => {
  const platforms = await db
    .selectFrom('social_accounts')
    .select('platform')
    .distinct()
    .where('org_id', '=', orgId)
    .where('deleted', '=', false)
    .where('status', '=', 'connected')
    .execute();
  return { socialConnected: platforms.length > 0, xConnected: platforms.some((p) => p.platform === 'x') };
};
