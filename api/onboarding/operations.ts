// The onboarding slice's operations: GET and PATCH /v1/orgs/{orgId}/onboarding. Completion is derived at read
// time from the workspace's state (projections/onboarding/probes.ts); PATCH only records the step a member chose.
import { z } from '@hono/zod-openapi';
import { updateOnboarding } from '../../commands/onboarding/onboarding-use-cases.js';
import { onboardingSteps } from '../../domain/onboarding/steps.js';
import { getOnboardingStatus } from '../../projections/onboarding/queries.js';
import type { OnboardingProbe } from '../../projections/onboarding/probes.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { onboardingProbes } from './probes.js';
import { orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';

const stepSchema = z.enum(onboardingSteps).openapi('OnboardingStep');

export const onboardingStatusSchema = z
  .object({
    currentStep: stepSchema,
    completed: z.boolean().openapi({ description: 'Every required step is completed' }),
    steps: z.array(
      z.object({
        key: stepSchema,
        label: z.string(),
        completed: z.boolean(),
        required: z.boolean(),
      }),
    ),
    brandProfileDetected: z.boolean(),
    brandConfirmed: z.boolean(),
    socialConnected: z.boolean(),
    xConnected: z.boolean(),
    strategyReady: z.boolean(),
    firstContentReady: z.boolean(),
    paidTrialActive: z.boolean(),
    subscriptionRequired: z.boolean(),
  })
  .openapi('OnboardingStatus');

const updateBody = z
  .object({
    currentStep: stepSchema.optional().openapi({
      description: 'The step to work on; completion is never set here, it follows the workspace',
    }),
  })
  .strict()
  .openapi('UpdateOnboarding');

/** The route services and every slice's onboarding probe. */
type OnboardingDeps = RouteServices & { probes: readonly OnboardingProbe[] };

const operation = operationsWith<OnboardingDeps>();
const path = '/v1/orgs/{orgId}/onboarding';

export const onboardingOperations = operationGroup(
  (ctx): OnboardingDeps => ({ ...ctx.services, probes: ctx.contributions(onboardingProbes) }),
  [
    operation({
      name: 'getOnboardingStatus',
      kind: 'read',
      method: 'get',
      path,
      tags: ['onboarding'],
      summary: "The workspace's onboarding status, each step's completion read from its current state",
      params: orgParams,
      output: onboardingStatusSchema,
      outputDescription: 'The onboarding status',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read' },
      run: (services, { caller }, { orgId }) => getOnboardingStatus(services, caller, orgId),
    }),
    operation({
      name: 'updateOnboarding',
      kind: 'write',
      method: 'patch',
      path,
      tags: ['onboarding'],
      summary: 'Choose the onboarding step to work on (owners and admins)',
      params: orgParams,
      body: updateBody,
      output: onboardingStatusSchema,
      outputDescription: 'The onboarding status',
      errors: [400, 401, 403, 413, 422, 503],
      access: { permission: 'workspace:manage' },
      run: (services, { caller, request }, input) => updateOnboarding(services, caller, input, request),
    }),
  ],
);
