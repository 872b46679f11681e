// The media library's operations (spec part 1, "Media library"): GET ORG/marketing/media (list_media),
// POST …/media/upload-url (create_media_upload), POST …/media/{assetId}/complete (complete_media_upload) and
// POST …/media/import (import_media_from_url). Writes answer from the recorded asset; the list comes from the
// media_assets read model (caught up by the write).
import {
  completeMediaUpload,
  createMediaUpload,
  importMedia,
  listMedia,
  type ListMediaInput,
  type MediaUseCaseDeps,
} from '../../commands/media/media-use-cases.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
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
import { mediaServices } from './services.js';

const operation = operationsWith<MediaUseCaseDeps>();
const path = '/v1/orgs/{orgId}/marketing/media';
const writeHints = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

export const mediaOperations = operationGroup(
  (ctx) => ctx.use(mediaServices).deps,
  [
    operation({
      name: 'list_media',
      kind: 'read',
      method: 'get',
      path,
      tags: ['marketing'],
      summary: "The workspace's media library, newest first, with the count of each collection",
      description:
        'Tool: list_media. collection `all`, `uploads` (uploaded and imported) or `on_brand` (branded images, ' +
        'carousels, screenshots); kind `all`, `image`, `video` or `carousel`. Page size default 25, maximum 100.',
      params: orgParams,
      query: mediaListQuery.schema,
      output: mediaPageSchema,
      outputDescription: 'A page of media',
      errors: [400, 401, 403],
      access: { permission: 'posts:read', scope: 'mcp:read' },
      tool: {
        title: 'List the media library',
        description:
          "Lists the workspace's media library, newest first: uploaded and imported files and the images, " +
          'carousels and screenshots the service rendered. `collection`: `all`, `uploads` or `on_brand`; `kind`: ' +
          '`all`, `image`, `video` or `carousel`; page with `page` and `limit`. Each item has `asset`, the ' +
          'MediaAsset to put as a post’s `media`. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: (page) =>
          `${page.items.length} of ${page.total} media items (page ${page.page}${page.hasMore ? ', more follow' : ''}; ` +
          `${page.counts.all} in all, ${page.counts.uploads} uploads, ${page.counts.onBrand} on brand).`,
      },
      run: (deps, { caller }, { orgId, page, limit, extra }) =>
        listMedia(deps.readModels, caller, {
          orgId,
          page,
          limit,
          collection: extra.collection as ListMediaInput['collection'],
          kind: extra.kind as ListMediaInput['kind'],
        }),
    }),
    operation({
      name: 'create_media_upload',
      kind: 'write',
      method: 'post',
      path: `${path}/upload-url`,
      tags: ['marketing'],
      summary: 'A signed URL to PUT one image or video to; complete it afterwards',
      description:
        'Tool: create_media_upload. Images: PNG, JPEG, WebP or GIF up to 20 MiB; video: MP4 or MOV up to 512 MiB. ' +
        'Send the file with HTTP PUT to uploadUrl with exactly the requiredHeaders, then call complete.',
      params: orgParams,
      body: mediaUploadBody,
      output: mediaUploadSlotSchema,
      outputDescription: 'The upload slot',
      errors: [400, 401, 403, 413, 422, 503],
      access: { permission: 'posts:draft', scope: 'posts:write' },
      tool: {
        title: 'Get a URL to upload an image or video',
        description:
          'Gives a signed URL to upload one file to the media library: `kind` image (PNG, JPEG, WebP, GIF, up to ' +
          '20 MiB) or video (MP4, MOV, up to 512 MiB) and its `contentType`. The file must then be sent with HTTP ' +
          'PUT to `uploadUrl` with exactly `requiredHeaders`, and recorded with complete_media_upload. Nothing is ' +
          'in the library until then.',
        hints: { ...writeHints, idempotentHint: false },
        summary: (slot) =>
          `Upload slot for asset ${slot.assetId}: PUT the file to the uploadUrl, then complete it.`,
      },
      run: (deps, { caller, request }, input) => createMediaUpload(deps, caller, input, request),
    }),
    operation({
      name: 'complete_media_upload',
      kind: 'write',
      method: 'post',
      path: `${path}/{assetId}/complete`,
      tags: ['marketing'],
      summary: 'Record an uploaded file as an asset of the workspace, once it is checked',
      description:
        'Tool: complete_media_upload. The object must exist (404 object_not_found) and be what was declared, by its ' +
        'bytes too, within the size limit (422; a refused object is deleted). Image width and height, and the ' +
        'length and frame size of MP4 and MOV video, are read from the file. Completing again answers the same asset.',
      params: mediaParams,
      body: completeMediaUploadBody,
      output: mediaAssetAnswer,
      outputDescription: 'The asset',
      errors: [400, 401, 403, 404, 413, 422, 503],
      access: { permission: 'posts:draft', scope: 'posts:write' },
      tool: {
        title: 'Record an uploaded file in the media library',
        description:
          'Records a file uploaded through create_media_upload as an asset of the workspace, after checking it: ' +
          'it must be there, be what was declared (by its bytes too) and within the size limit, or it is refused ' +
          'and deleted. Image size and the length and frame size of MP4 and MOV video are read from the file. ' +
          'Answers the MediaAsset to use as a post’s `media`; completing again answers the same asset.',
        hints: { ...writeHints, idempotentHint: true },
        describe: { assetId: 'The asset of the upload slot' },
        summary: ({ asset }) =>
          `Stored ${asset.kind} asset ${'assetId' in asset ? asset.assetId : ''}.`.trim(),
      },
      run: (deps, { caller, request }, input) => completeMediaUpload(deps, caller, input, request),
    }),
    operation({
      name: 'import_media_from_url',
      kind: 'write',
      method: 'post',
      path: `${path}/import`,
      tags: ['marketing'],
      summary: 'Import an image or video from a public https link',
      description:
        'Tool: import_media_from_url. Public addresses only (private, loopback, link-local and metadata addresses ' +
        'are refused, redirects included); the type is read from the bytes; images up to 20 MiB, video up to 512 MiB.',
      params: orgParams,
      body: importMediaBody,
      output: mediaAssetAnswer,
      outputDescription: 'The asset',
      errors: [400, 401, 403, 413, 422, 503],
      access: { permission: 'posts:draft', scope: 'posts:write' },
      tool: {
        title: 'Import an image or video from a link',
        description:
          'Downloads an image or video from a public https link into the media library (PNG, JPEG, WebP, GIF up ' +
          'to 20 MiB; MP4, MOV up to 512 MiB; the type is read from the file). Links to private or internal ' +
          'addresses are refused. Answers the MediaAsset to use as a post’s `media`.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
        summary: ({ asset }) =>
          `Imported ${asset.kind} asset ${'assetId' in asset ? asset.assetId : ''}.`.trim(),
      },
      run: (deps, { caller, request }, input) => importMedia(deps, caller, input, request),
    }),
  ],
);
