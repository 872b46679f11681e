// The onboarding status of a workspace: the facts its slices' read models show now, and the step a member
// chose (read from the workspace's onboarding stream, which holds nothing else).
import type { Kysely } from 'kysely';
import { loadAggregate, type CommandDeps } from '../../commands/shared/command-handler.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  onboardingCategory,
  onboardingDecider,
  onboardingStatus,
  type OnboardingStatus,
} from '../../domain/onboarding/onboarding.js';
import { streamName } from '../../infra/event-store/port.js';
import type { ReadModels } from '../read-models.js';
import { onboardingFacts, type OnboardingProbe } from './probes.js';

export const onboardingStream = (orgId: string) => streamName(onboardingCategory, orgId);

/** Every member may read it (an assistant with mcp:read too). */
export async function getOnboardingStatus(
  deps: {
    readModels: Kysely<ReadModels>;
    commands: Pick<CommandDeps, 'eventStore'>;
    /** Every slice's probe (api/onboarding/probes.ts). */
    probes: readonly OnboardingProbe[];
  },
  caller: Caller,
  orgId: string,
): Promise<OnboardingStatus> {
  authorize(caller, { orgId, permission: 'workspace:read', scope: 'mcp:read' });
  const [facts, { state }] = await Promise.all([
    onboardingFacts(deps.readModels, orgId, deps.probes),
    loadAggregate(deps.commands.eventStore, onboardingStream(orgId), onboardingDecider),
  ]);
  return onboardingStatus(facts, state.currentStep);
}
