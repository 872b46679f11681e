// Onboarding: a workspace's first-run steps, whose completion is read off the workspace's real state at read
// time (never stored), and the step a member chose to work on (stream `onboarding-<orgId>`, the only thing kept).
import { InvalidFields } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { onboardingEventCodec, type OnboardingEvent } from './event-codec.js';
import { isOnboardingStep, onboardingSteps, type OnboardingStep } from './steps.js';

export const onboardingCategory = 'onboarding';

export { isOnboardingStep, onboardingSteps, type OnboardingStep };
export type { OnboardingEvent } from './event-codec.js';

const stepLabels: Record<OnboardingStep, string> = {
  brand: 'Confirm your brand',
  social: 'Connect a social account',
  x_connection: 'Connect X',
  billing: 'Choose a plan',
  strategy: 'Activate a content strategy',
  first_content: 'Approve your first post',
};

/**
 * What the workspace's state says, as the spec's status booleans. Each slice answers for its own facts
 * (projections/onboarding/probes.ts); a fact no slice answers for yet is false.
 */
export interface OnboardingFacts {
  brandProfileDetected: boolean;
  brandConfirmed: boolean;
  socialConnected: boolean;
  xConnected: boolean;
  strategyReady: boolean;
  firstContentReady: boolean;
  paidTrialActive: boolean;
  /** Whether the workspace must choose a plan to go on; billing is a required step only then. */
  subscriptionRequired: boolean;
}

export const noFacts: OnboardingFacts = {
  brandProfileDetected: false,
  brandConfirmed: false,
  socialConnected: false,
  xConnected: false,
  strategyReady: false,
  firstContentReady: false,
  paidTrialActive: false,
  subscriptionRequired: false,
};

export interface OnboardingStepStatus {
  key: OnboardingStep;
  label: string;
  completed: boolean;
  required: boolean;
}

export interface OnboardingStatus extends OnboardingFacts {
  currentStep: OnboardingStep;
  /** Every required step is completed. */
  completed: boolean;
  steps: OnboardingStepStatus[];
}

function stepOf(key: OnboardingStep, facts: OnboardingFacts): OnboardingStepStatus {
  const [completed, required] = ((): [boolean, boolean] => {
    switch (key) {
      case 'brand':
        return [facts.brandConfirmed, true];
      case 'social':
        return [facts.socialConnected, true];
      // X is one platform among several: connecting it is offered, not demanded.
      case 'x_connection':
        return [facts.xConnected, false];
      case 'billing':
        return [facts.paidTrialActive, facts.subscriptionRequired];
      case 'strategy':
        return [facts.strategyReady, true];
      case 'first_content':
        return [facts.firstContentReady, true];
      default:
        return assertNever(key);
    }
  })();
  return { key, label: stepLabels[key], completed, required };
}

/**
 * The status from the facts and the step a member chose (null: never chose one, so the first step not completed,
 * or the last step once all are).
 */
export function onboardingStatus(facts: OnboardingFacts, chosen: OnboardingStep | null): OnboardingStatus {
  const steps = onboardingSteps.map((key) => stepOf(key, facts));
  const firstOpen = steps.find((s) => !s.completed)?.key ?? onboardingSteps[onboardingSteps.length - 1]!;
  return {
    currentStep: chosen ?? firstOpen,
    completed: steps.every((s) => s.completed || !s.required),
    steps,
    ...facts,
  };
}

export type OnboardingCommand = {
  type: 'ChooseOnboardingStep';
  orgId: string;
  step: string;
  userId: string;
  now: string;
};

export type OnboardingState = { currentStep: OnboardingStep | null };

export const onboardingDecider: Decider<OnboardingState, OnboardingCommand, OnboardingEvent> = {
  initialState: { currentStep: null },
  codec: onboardingEventCodec,
  decide(command, state) {
    switch (command.type) {
      case 'ChooseOnboardingStep': {
        if (!isOnboardingStep(command.step))
          throw new InvalidFields('Unknown onboarding step', [
            { path: 'currentStep', message: `must be one of ${onboardingSteps.join(', ')}` },
          ]);
        // Choosing the step already chosen changes nothing.
        if (state.currentStep === command.step) return [];
        return [
          {
            type: 'OnboardingStepChosen',
            data: {
              orgId: command.orgId,
              step: command.step,
              chosenBy: command.userId,
              chosenAt: command.now,
            },
          },
        ];
      }
      default:
        return assertNever(command.type);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'OnboardingStepChosen':
        return { currentStep: event.data.step };
      default:
        return assertNever(event.type);
    }
  },
};
