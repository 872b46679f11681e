// Onboarding use cases: an owner or admin chooses the step the workspace works on; the answer is the status.
import type { Kysely } from 'kysely';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  onboardingDecider,
  onboardingStatus,
  type OnboardingStatus,
} from '../../domain/onboarding/onboarding.js';
import type { ReadModels } from '../../projections/read-models.js';
import { onboardingFacts, type OnboardingProbe } from '../../projections/onboarding/probes.js';
import { getOnboardingStatus, onboardingStream } from '../../projections/onboarding/queries.js';
import { handleCommand } from '../shared/command-handler.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';

/** Omitted `currentStep` changes nothing (the status is answered); an unknown step is a 400. */
export async function updateOnboarding(
  deps: WriteDeps & { readModels: Kysely<ReadModels>; probes: readonly OnboardingProbe[] },
  caller: Caller,
  input: { orgId: string; currentStep?: string },
  request: WriteRequest,
): Promise<Written<OnboardingStatus>> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:manage', scope: null });
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const step = input.currentStep;
    if (step === undefined) return getOnboardingStatus(deps, caller, input.orgId);
    const facts = await onboardingFacts(deps.readModels, input.orgId, deps.probes);
    const outcome = await handleCommand(deps.commands, {
      stream: onboardingStream(input.orgId),
      decider: onboardingDecider,
      command: {
        type: 'ChooseOnboardingStep',
        orgId: input.orgId,
        step,
        userId: caller.userId,
        now: metadata.now,
      },
      metadata,
      sideWrite: record ? (trx, o) => record(trx, onboardingStatus(facts, o.state.currentStep)) : undefined,
    });
    return onboardingStatus(facts, outcome.state.currentStep);
  });
}
