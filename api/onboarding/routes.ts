// Onboarding status: GET and PATCH /v1/orgs/{orgId}/onboarding. Completion is derived at read time from the
// workspace's state (projections/onboarding/probes.ts); PATCH only records the step a member chose.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { updateOnboarding } from '../../commands/onboarding/onboarding-use-cases.js';
import { onboardingSteps } from '../../domain/onboarding/steps.js';
import { getOnboardingStatus } from '../../projections/onboarding/queries.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';

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

const getRouteDef = createRoute({
  ...secured({ permission: 'workspace:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/onboarding',
  operationId: 'getOnboardingStatus',
  tags: ['onboarding'],
  summary: "The workspace's onboarding status, each step's completion read from its current state",
  request: { params: orgParams },
  responses: {
    200: jsonResponse(dataOf(onboardingStatusSchema), 'The onboarding status'),
    ...errorResponses(400, 401, 403),
  },
});

const patchRouteDef = createRoute({
  ...secured({ permission: 'workspace:manage' }),
  method: 'patch',
  path: '/v1/orgs/{orgId}/onboarding',
  operationId: 'updateOnboarding',
  tags: ['onboarding'],
  summary: 'Choose the onboarding step to work on (owners and admins)',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(updateBody) },
  responses: {
    200: jsonResponse(dataOf(onboardingStatusSchema), 'The onboarding status'),
    ...errorResponses(400, 401, 403, 413, 422, 503),
  },
});

export function onboardingRoutes(services: RouteServices) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(getRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await getOnboardingStatus(services, callerOf(c), orgId) }, 200);
    });

    app.openapi(patchRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await updateOnboarding(
        services,
        callerOf(c),
        { orgId, ...body },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
