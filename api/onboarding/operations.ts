// The onboarding slice's operations: GET and PATCH /v1/orgs/{orgId}/onboarding. Completion is derived at read
// time from the workspace's state (projections/onboarding/probes.ts); PATCH only records the step a member chose.
import { z } from '@hono/zod-openapi';
import {
  onboardFromWebsite,
  type OnboardingFromWebsiteDeps,
} from '../../commands/onboarding/from-website.js';
import { updateOnboarding } from '../../commands/onboarding/onboarding-use-cases.js';
import { brandProfileSchema } from '../brand-profile/schemas.js';
import { brandProfileServices } from '../brand-profile/services.js';
import { strategySchema } from '../strategy/schemas.js';
import { strategyDraftsService } from '../strategy/services.js';
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

const fromWebsiteBody = z
  .object({
    websiteUrl: z.string().min(1).max(2048).openapi({ example: 'https://example.com' }),
    notes: z
      .string()
      .max(2000)
      .optional()
      .openapi({ description: "What the workspace wants from social media: the draft strategy's goal" }),
  })
  .strict()
  .openapi('OnboardingFromWebsite');

const fromWebsiteOutput = z
  .object({
    brand: z.object({ profile: brandProfileSchema, source: z.enum(['ai', 'heuristic']) }),
    strategy: strategySchema,
  })
  .openapi('OnboardingFromWebsiteResult');

const withProfile = operationsWith<OnboardingFromWebsiteDeps>();

/** POST ORG/onboarding/from-website: the brand profile and a draft strategy from a website, neither confirmed. */
export const onboardingFromWebsiteOperations = operationGroup(
  (ctx): OnboardingFromWebsiteDeps => ({
    brandProfile: ctx.use(brandProfileServices),
    strategies: ctx.use(strategyDraftsService),
  }),
  [
    withProfile({
      name: 'onboardFromWebsite',
      kind: 'write',
      method: 'post',
      path: `${path}/from-website`,
      tags: ['onboarding'],
      summary:
        'Infer the brand profile from a website and draft a content strategy from it (and the notes as its goal); confirms and activates neither',
      params: orgParams,
      body: fromWebsiteBody,
      output: fromWebsiteOutput,
      outputDescription: 'The saved, unconfirmed brand profile with its source, and the draft strategy',
      errors: [400, 401, 402, 403, 409, 422, 503],
      access: { permission: 'workspace:manage', billing: 'paid' },
      run: (deps, { caller, request }, { orgId, websiteUrl, notes }) =>
        onboardFromWebsite(deps, caller, { orgId, websiteUrl, notes }, request),
    }),
  ],
);
