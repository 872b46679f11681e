// Onboarding: the chosen step (the only thing recorded) and the status derived from the workspace's facts.
import { describe, expect, test } from 'vitest';
import { InvalidFields } from '../../domain/shared/errors.js';
import {
  noFacts,
  onboardingDecider,
  onboardingStatus,
  type OnboardingEvent,
} from '../../domain/onboarding/onboarding.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const userId = '00000000-0000-4000-8000-0000000000aa';
const now = '2026-11-22T10:00:00.000Z';
const spec = deciderSpec(onboardingDecider);
const chosen = (step: 'social' | 'brand'): OnboardingEvent => ({
  type: 'OnboardingStepChosen',
  data: { orgId, step, chosenBy: userId, chosenAt: now },
});
const choose = (step: string) => ({ type: 'ChooseOnboardingStep' as const, orgId, step, userId, now });

describe('onboarding decider', () => {
  test('choosing a step records it; the same step again decides nothing; another replaces it', () => {
    spec
      .given([])
      .when(choose('social'))
      .then([chosen('social')]);
    spec
      .given([chosen('social')])
      .when(choose('social'))
      .then([]);
    spec
      .given([chosen('social')])
      .when(choose('brand'))
      .then([chosen('brand')]);
  });

  test('an unknown step is refused, naming currentStep', () => {
    spec
      .given([])
      .when(choose('launch'))
      .thenThrows(InvalidFields, /Unknown onboarding step/);
  });
});

describe('onboarding status', () => {
  const all = {
    ...noFacts,
    brandConfirmed: true,
    socialConnected: true,
    xConnected: true,
    strategyReady: true,
    firstContentReady: true,
    paidTrialActive: true,
  };

  test('with nothing done the first step is current; a chosen step wins', () => {
    expect(onboardingStatus(noFacts, null)).toMatchObject({ currentStep: 'brand', completed: false });
    expect(onboardingStatus(noFacts, 'strategy').currentStep).toBe('strategy');
    expect(onboardingStatus({ ...noFacts, brandConfirmed: true }, null).currentStep).toBe('social');
  });

  test('completed once every required step is done; optional X does not hold it back', () => {
    const required = { ...all, xConnected: false, paidTrialActive: false };
    expect(onboardingStatus(required, null)).toMatchObject({ completed: true, currentStep: 'x_connection' });
    expect(onboardingStatus({ ...required, firstContentReady: false }, null).completed).toBe(false);
    // All done: the last step stays current.
    expect(onboardingStatus(all, null)).toMatchObject({ completed: true, currentStep: 'first_content' });
  });

  test('billing is required only when a subscription is', () => {
    const required = { ...all, paidTrialActive: false };
    expect(onboardingStatus(required, null).completed).toBe(true);
    const billing = onboardingStatus({ ...required, subscriptionRequired: true }, null);
    expect(billing.completed).toBe(false);
    expect(billing.steps.find((s) => s.key === 'billing')).toMatchObject({
      required: true,
      completed: false,
    });
  });

  test('the event codec reads back what the decider writes, and refuses an unknown step', () => {
    const codec = onboardingDecider.codec;
    const [event] = onboardingDecider.decide(choose('social'), onboardingDecider.initialState);
    const stored = {
      streamName: `onboarding-${orgId}`,
      revision: 0,
      type: event!.type,
      data: JSON.parse(JSON.stringify(event!.data)) as unknown,
      metadata: { schemaVersion: codec.schemaVersion(event!.type) },
    };
    expect(codec.decode(stored)).toEqual(event);
    expect(() => codec.decode({ ...stored, data: { ...event!.data, step: 'launch' } })).toThrow(/data\.step/);
  });
});
