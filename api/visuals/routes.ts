// Branded-visuals routes (spec part 1, "Branded visuals"): POST ORG/marketing/visuals/image, carousel,
// screenshot and preview, and GET ORG/marketing/visuals/options. Renders run in the renderer's worker pool and
// are stored as workspace assets; a preview is answered inline and stores nothing.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  previewVisual,
  renderCarouselVisual,
  renderImageVisual,
  renderScreenshotVisual,
  type VisualsDeps,
} from '../../commands/visuals/visuals-use-cases.js';
import { visualOptions } from '../../commands/visuals/visual-options.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import {
  carouselVisualBody,
  carouselVisualResult,
  imageVisualBody,
  imageVisualResult,
  optionsQuery,
  previewBody,
  previewResult,
  screenshotVisualBody,
  screenshotVisualResult,
  visualOptionsResult,
} from './schemas.js';

const base = '/v1/orgs/{orgId}/marketing/visuals';
const renderErrors = errorResponses(400, 401, 402, 403, 404, 413, 422, 429, 503);

const imageRoute = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/image`,
  operationId: 'createBrandedImage',
  tags: ['marketing'],
  summary: 'Render a branded image (template, format and more formats), stored in the media library',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(imageVisualBody) },
  responses: { 200: jsonResponse(dataOf(imageVisualResult), 'The stored images'), ...renderErrors },
});

const carouselRoute = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/carousel`,
  operationId: 'createCarousel',
  tags: ['marketing'],
  summary: 'Render 2 to 15 slides as PNG images and one PDF document, stored in the media library',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(carouselVisualBody) },
  responses: {
    200: jsonResponse(dataOf(carouselVisualResult), 'The stored slides and PDF'),
    ...renderErrors,
  },
});

const screenshotRoute = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/screenshot`,
  operationId: 'createAppScreenshot',
  tags: ['marketing'],
  summary: 'Frame a screenshot in a browser-style window on a branded canvas, stored in the media library',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(screenshotVisualBody) },
  responses: { 200: jsonResponse(dataOf(screenshotVisualResult), 'The stored images'), ...renderErrors },
});

const previewRoute = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/preview`,
  operationId: 'previewVisual',
  tags: ['marketing'],
  summary: 'A small PNG preview (data URI) of an image, carousel or screenshot render; stores nothing',
  request: { params: orgParams, body: jsonBody(previewBody) },
  responses: {
    200: jsonResponse(dataOf(previewResult), 'The preview'),
    ...errorResponses(400, 401, 403, 404, 413, 422, 429, 503),
  },
});

const optionsRoute = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: `${base}/options`,
  operationId: 'listVisualOptions',
  tags: ['marketing'],
  summary: 'Formats, templates, themes, layouts, AI background models and the brand renders use',
  request: { params: orgParams, query: optionsQuery },
  responses: {
    200: jsonResponse(dataOf(visualOptionsResult), 'The options'),
    ...errorResponses(400, 401, 403),
  },
});

export function visualRoutes(services: RouteServices, deps: VisualsDeps) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(imageRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await renderImageVisual(
        deps,
        callerOf(c),
        orgId,
        body,
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(carouselRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await renderCarouselVisual(
        deps,
        callerOf(c),
        orgId,
        body,
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(screenshotRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await renderScreenshotVisual(
        deps,
        callerOf(c),
        orgId,
        body,
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(previewRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await previewVisual(deps, callerOf(c), orgId, c.req.valid('json')) }, 200);
    });

    app.openapi(optionsRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      return c.json({ data: await visualOptions(deps, callerOf(c), orgId, c.req.valid('query')) }, 200);
    });
  };
}
