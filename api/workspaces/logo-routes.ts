// POST /v1/orgs/{orgId}/logo/upload-url: a slot to upload a workspace logo (owners and admins). The logo is
// shown once PATCH /v1/orgs/{orgId} sets avatarUrl to the slot's assetUrl.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  createLogoUploadUrl,
  imageContentTypes,
  maxImageBytes,
} from '../../commands/shared/image-uploads.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import { imageUploadBody, logoUploadSlotSchema } from '../users/profile-image-routes.js';

const uploadUrlRoute = createRoute({
  ...secured({ permission: 'workspace:manage' }),
  method: 'post',
  path: '/v1/orgs/{orgId}/logo/upload-url',
  operationId: 'createWorkspaceLogoUploadUrl',
  tags: ['orgs'],
  summary: `A slot to upload the workspace logo (${Object.keys(imageContentTypes).join(', ')}, at most ${maxImageBytes} bytes); owners and admins`,
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(imageUploadBody) },
  responses: {
    200: jsonResponse(dataOf(logoUploadSlotSchema), 'The upload slot'),
    ...errorResponses(400, 401, 403, 413, 422),
  },
});

export function logoRoutes(services: RouteServices & { storage: ObjectStorage }) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(uploadUrlRoute, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await createLogoUploadUrl(
        services,
        callerOf(c),
        { orgId, contentType: body.contentType },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
