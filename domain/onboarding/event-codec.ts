// Onboarding events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { OnboardingEvent } from './onboarding.js';
import { onboardingSteps } from './steps.js';

const schemas = {
  OnboardingStepChosen: z.object({
    orgId: z.string(),
    step: z.enum(onboardingSteps),
    chosenBy: z.string(),
    chosenAt: z.string(),
  }),
};
const exact: SchemasMatch<OnboardingEvent, typeof schemas> = true;
void exact;

export const onboardingEventCodec = defineEventCodec<OnboardingEvent>('onboarding', zodSpecs(schemas));
