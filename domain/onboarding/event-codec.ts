// Onboarding events, declared once: each type's schema of its data as stored (domain/shared/event-codec.ts) and
// the event union read off them.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';
import { onboardingSteps } from './steps.js';

const schemas = {
  OnboardingStepChosen: z.object({
    orgId: z.string(),
    step: z.enum(onboardingSteps),
    chosenBy: z.string(),
    chosenAt: z.string(),
  }),
};
export type OnboardingEvent = EventsOf<typeof schemas>;

export const onboardingEventCodec = zodEventCodec('onboarding', schemas);
