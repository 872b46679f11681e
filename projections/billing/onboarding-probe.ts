// The billing slice's onboarding facts (paidTrialActive, subscriptionRequired), read from the subscriptions read
// model when the status is asked for; contributed to the onboarding slice by api/billing/slice.ts.
import { accessOf } from '../../domain/billing/subscription.js';
import type { OnboardingProbe } from '../onboarding/probes.js';
import { subscriptionStateFromReadModel } from './subscriptions-projection.js';

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
