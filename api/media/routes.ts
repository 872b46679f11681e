// Media library routes (spec part 1, "Media library"): GET ORG/marketing/media, POST …/media/upload-url,
// POST …/media/{assetId}/complete and POST …/media/import. Writes answer from the recorded asset; the list comes
// from the media_assets read model (caught up by the write).
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import {
  completeMediaUpload,
  createMediaUpload,
  importMedia,
  listMedia,
  type ListMediaInput,
  type MediaUseCaseDeps,
} from '../../commands/media/media-use-cases.js';
import { callerOf } from '../auth/caller.js';
import { secured } from '../auth/middleware.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import type { ParsedListQuery } from '../platform/paging.js';
import { dataOf, jsonBody, jsonResponse } from '../platform/responses.js';
import { idempotencyHeaders, orgParams } from '../shared/params.js';
import type { RouteServices } from '../shared/services.js';
import { answered, writeRequest } from '../shared/write.js';
import {
  completeMediaUploadBody,
  importMediaBody,
  mediaAssetAnswer,
  mediaListQuery,
  mediaPageSchema,
  mediaParams,
  mediaUploadBody,
  mediaUploadSlotSchema,
} from './schemas.js';

const base = '/v1/orgs/{orgId}/marketing/media';

/** The list use case's input from the parsed query. */
export function mediaListInput(orgId: string, query: ParsedListQuery<string, string>): ListMediaInput {
  return {
    orgId,
    page: query.page,
    limit: query.limit,
    collection: query.extra.collection as ListMediaInput['collection'],
    kind: query.extra.kind as ListMediaInput['kind'],
  };
}

const listRouteDef = createRoute({
  ...secured({ permission: 'posts:read' }),
  method: 'get',
  path: base,
  operationId: 'listMedia',
  tags: ['marketing'],
  summary: "The workspace's media library, newest first, with the count of each collection",
  description:
    'Tool: list_media. collection `all`, `uploads` (uploaded and imported) or `on_brand` (branded images, ' +
    'carousels, screenshots); kind `all`, `image`, `video` or `carousel`. Page size default 25, maximum 100.',
  request: { params: orgParams, query: mediaListQuery.schema },
  responses: {
    200: jsonResponse(dataOf(mediaPageSchema), 'A page of media'),
    ...errorResponses(400, 401, 403),
  },
});

const uploadRouteDef = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/upload-url`,
  operationId: 'createMediaUpload',
  tags: ['marketing'],
  summary: 'A signed URL to PUT one image or video to; complete it afterwards',
  description:
    'Tool: create_media_upload. Images: PNG, JPEG, WebP or GIF up to 20 MiB; video: MP4 or MOV up to 512 MiB. ' +
    'Send the file with HTTP PUT to uploadUrl with exactly the requiredHeaders, then call complete.',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(mediaUploadBody) },
  responses: {
    200: jsonResponse(dataOf(mediaUploadSlotSchema), 'The upload slot'),
    ...errorResponses(400, 401, 403, 413, 422, 503),
  },
});

const completeRouteDef = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/{assetId}/complete`,
  operationId: 'completeMediaUpload',
  tags: ['marketing'],
  summary: 'Record an uploaded file as an asset of the workspace, once it is checked',
  description:
    'Tool: complete_media_upload. The object must exist (404 object_not_found) and be what was declared, by its ' +
    'bytes too, within the size limit (422; a refused object is deleted). Image width and height, and the ' +
    'length and frame size of MP4 and MOV video, are read from the file. Completing again answers the same asset.',
  request: { params: mediaParams, headers: idempotencyHeaders, body: jsonBody(completeMediaUploadBody) },
  responses: {
    200: jsonResponse(dataOf(mediaAssetAnswer), 'The asset'),
    ...errorResponses(400, 401, 403, 404, 413, 422, 503),
  },
});

const importRouteDef = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: `${base}/import`,
  operationId: 'importMediaFromUrl',
  tags: ['marketing'],
  summary: 'Import an image or video from a public https link',
  description:
    'Tool: import_media_from_url. Public addresses only (private, loopback, link-local and metadata addresses ' +
    'are refused, redirects included); the type is read from the bytes; images up to 20 MiB, video up to 512 MiB.',
  request: { params: orgParams, headers: idempotencyHeaders, body: jsonBody(importMediaBody) },
  responses: {
    200: jsonResponse(dataOf(mediaAssetAnswer), 'The asset'),
    ...errorResponses(400, 401, 403, 413, 422, 503),
  },
});

export function mediaRoutes(services: RouteServices, deps: MediaUseCaseDeps) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(listRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const query = c.req.valid('query');
      return c.json(
        { data: await listMedia(services.readModels, callerOf(c), mediaListInput(orgId, query)) },
        200,
      );
    });

    app.openapi(uploadRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await createMediaUpload(
        deps,
        callerOf(c),
        { orgId, ...body },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(completeRouteDef, async (c) => {
      const { orgId, assetId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await completeMediaUpload(
        deps,
        callerOf(c),
        { orgId, assetId, ...body },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });

    app.openapi(importRouteDef, async (c) => {
      const { orgId } = c.req.valid('param');
      const body = c.req.valid('json');
      const written = await importMedia(
        deps,
        callerOf(c),
        { orgId, ...body },
        writeRequest(c, services, body),
      );
      return c.json({ data: answered(c, written) }, 200);
    });
  };
}
