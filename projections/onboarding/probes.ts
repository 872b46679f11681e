// What each slice says about a workspace's onboarding, read from its read models when the status is asked
// for: facts are never stored, so they cannot drift from the state they describe.
//
// A slice that brings a fact adds its probe to the onboarding slice's extension point (api/onboarding/probes.ts,
// `contributes: [contribute(onboardingProbes, probe)]` in its slice module): social accounts, post groups, billing
// and the brand profile do; a fact no probe answers (strategyReady, until the strategy slice's) reads false and its
// step as not done.
import type { Kysely } from 'kysely';
import { noFacts, type OnboardingFacts } from '../../domain/onboarding/onboarding.js';
import type { ReadModels } from '../read-models.js';

/** The facts one slice answers for, of one workspace. */
export type OnboardingProbe = (db: Kysely<ReadModels>, orgId: string) => Promise<Partial<OnboardingFacts>>;

/** Every probe's facts; a fact is true when a probe says so. */
export async function onboardingFacts(
  db: Kysely<ReadModels>,
  orgId: string,
  probes: readonly OnboardingProbe[],
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
