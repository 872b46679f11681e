// The post-group slice's onboarding fact (firstContentReady), read from its read models when the status is asked
// for; contributed to the onboarding slice by api/post-groups/slice.ts.
import type { OnboardingProbe } from '../onboarding/probes.js';

/** Post groups: a post approved, scheduled or (being) published, or a group approved or scheduled. */
export const firstContentProbe: OnboardingProbe = async (db, orgId) => {
  const approvedPost = await db
    .selectFrom('posts')
    .select('id')
    .where('org_id', '=', orgId)
    .where('status', 'in', ['approved', 'scheduled', 'publishing', 'awaiting_platform', 'published'])
    .limit(1)
    .executeTakeFirst();
  if (approvedPost) return { firstContentReady: true };
  // A group whose failed posts still carry a current approval reads `approved` (deriveGroupStatus).
  const approvedGroup = await db
    .selectFrom('post_groups')
    .select('id')
    .where('org_id', '=', orgId)
    .where('status', 'in', ['approved', 'scheduled'])
    .limit(1)
    .executeTakeFirst();
  return { firstContentReady: approvedGroup !== undefined };
};
