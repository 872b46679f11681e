// Brand kit routes: GET and PATCH ORG/brand/kit, GET ORG/brand/kit/website (spec part 2, "Brand").
// Reads answer from the kit's stream (one small stream per workspace); an edit answers the kit it saved.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  findBrandKitOnWebsite,
  getBrandKit,
  updateBrandKit,
  type BrandKitDeps,
} from '../../commands/brand/brand-kit-use-cases.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import {
  brandKitSchema,
  brandKitUpdateSchema,
  brandKitWebsiteQuery,
  brandKitWebsiteSchema,
  updateBrandKitBody,
} from './schemas.js';
import { brandKitInputOf } from './tools.js';

const getRouteDef = createRoute({
  ...secured({ permission: 'workspace:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/brand/kit',
  operationId: 'getBrandKit',
  tags: ['brand'],
  summary: "The workspace's brand kit: colours, fonts, logo, tagline, website, and the parts still unset",
  request: { params: orgParams },
  responses: {
    200: jsonResponse(dataOf(brandKitSchema), 'The brand kit'),
    ...errorResponses(400, 401, 403),
  },
});

const patchRouteDef = createRoute({
  ...secured({ permission: 'brand:write' }),
  method: 'patch',
  path: '/v1/orgs/{orgId}/brand/kit',
  operationId: 'updateBrandKit',
  tags: ['brand'],
  summary:
    'Edit the brand kit: omitted fields stay, null clears; every field is checked before saving (422 with one detail per bad field)',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(updateBrandKitBody) },
  responses: {
    200: jsonResponse(dataOf(brandKitUpdateSchema), 'What was saved (or, with dryRun, would be)'),
    ...errorResponses(400, 401, 402, 403, 409, 413, 422, 503),
  },
});

const websiteRouteDef = createRoute({
  ...secured({ permission: 'workspace:read' }),
  method: 'get',
  path: '/v1/orgs/{orgId}/brand/kit/website',
  operationId: 'findBrandKitOnWebsite',
  tags: ['brand'],
  summary:
    'Read a public website for brand-kit candidates (colours, logos, images, fonts) and a suggested kit; saves nothing',
  request: { params: orgParams, query: brandKitWebsiteQuery },
  responses: {
    200: jsonResponse(dataOf(brandKitWebsiteSchema), 'Candidates found on the page'),
    ...errorResponses(400, 401, 403, 503),
  },
});

export function brandRoutes(deps: BrandKitDeps & Pick<RouteServices, 'now'>) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(getRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await getBrandKit(deps, callerOf(c), { orgId }) }, 200);
    });

    app.openapi(patchRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await updateBrandKit(
        deps,
        callerOf(c),
        brandKitInputOf(orgId, body),
        writeRequest(c, deps, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(websiteRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const { url } = c.req.valid('query');
      return c.json({ data: await findBrandKitOnWebsite(deps, callerOf(c), { orgId, url }) }, 200);
    });
  };
}
