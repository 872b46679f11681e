// The onboarding steps of the spec, in the order a workspace is set up (apart from the decider, so the event
// codec can name them without importing the decider that imports it).
export const onboardingSteps = [
  'brand',
  'social',
  'x_connection',
  'billing',
  'strategy',
  'first_content',
] as const;
export type OnboardingStep = (typeof onboardingSteps)[number];

export function isOnboardingStep(value: string): value is OnboardingStep {
  return (onboardingSteps as readonly string[]).includes(value);
}
