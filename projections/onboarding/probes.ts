// What each slice says about a workspace's onboarding, read from its read models when the status is asked
// for: facts are never stored, so they cannot drift from the state they describe.
//
// A slice that brings a fact (brand: brandProfileDetected and brandConfirmed; strategy: strategyReady; billing:
// paidTrialActive and subscriptionRequired) wires it in by adding one probe to `onboardingProbes`; until then
// the fact reads false and its step as not done.
import type { Kysely } from 'kysely';
import { accessOf } from '../../domain/billing/subscription.js';
import { subscriptionStateFromReadModel } from '../billing/subscriptions-projection.js';
import { noFacts, type OnboardingFacts } from '../../domain/onboarding/onboarding.js';
import type { ReadModels } from '../read-models.js';

/** The facts one slice answers for, of one workspace. */
export type OnboardingProbe = (db: Kysely<ReadModels>, orgId: string) => Promise<Partial<OnboardingFacts>>;

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

/**
 * Billing: a trial or a paid subscription running (trialing and not expired, active, pausing, past due) completes
 * the step; without a usable subscription (trial over, canceled, paused) choosing a plan becomes required. A
 * workspace whose subscription stream does not exist yet is a trial starting now.
 */
export const billingProbe: OnboardingProbe = async (db, orgId) => {
  const state = await subscriptionStateFromReadModel(db, orgId);
  if (state === null) return { paidTrialActive: true };
  const access = accessOf(state, new Date());
  return { paidTrialActive: access.usable, subscriptionRequired: !access.usable };
};

export const onboardingProbes: readonly OnboardingProbe[] = [
  socialAccountsProbe,
  firstContentProbe,
  billingProbe,
];

/** Every probe's facts; a fact is true when a probe says so. */
export async function onboardingFacts(
  db: Kysely<ReadModels>,
  orgId: string,
  probes: readonly OnboardingProbe[] = onboardingProbes,
): Promise<OnboardingFacts> {
  const answers = await Promise.all(probes.map((probe) => probe(db, orgId)));
  const facts = { ...noFacts };
  for (const answer of answers) {
    for (const [name, value] of Object.entries(answer) as [keyof OnboardingFacts, boolean][]) {
      if (value) facts[name] = true;
    }
  }
  return facts;
}
