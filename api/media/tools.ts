// The media slice's assistant tools (spec: Tool: list_media, create_media_upload, complete_media_upload,
// import_media_from_url), each on the use case its route calls, with the route's own input schemas.
import {
  completeMediaUpload,
  createMediaUpload,
  importMedia,
  listMedia,
} from '../../commands/media/media-use-cases.js';
import type { SliceContext } from '../shared/slice.js';
import { canonicalUuid } from '../shared/params.js';
import { defineTool, type AnyTool } from '../shared/tools.js';
import { mediaListInput } from './routes.js';
import { completeMediaUploadBody, importMediaBody, mediaListQuery, mediaUploadBody } from './schemas.js';
import { mediaServicesOf } from './services.js';

const writeHints = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

export function mediaTools(ctx: SliceContext): readonly AnyTool[] {
  const { deps } = mediaServicesOf(ctx);
  return [
    defineTool({
      name: 'list_media',
      title: 'List the media library',
      description:
        "Lists the workspace's media library, newest first: uploaded and imported files and the images, " +
        'carousels and screenshots the service rendered. `collection`: `all`, `uploads` or `on_brand`; `kind`: ' +
        '`all`, `image`, `video` or `carousel`; page with `page` and `limit`. Each item has `asset`, the ' +
        'MediaAsset to put as a post’s `media`. Read-only.',
      scope: 'mcp:read',
      input: mediaListQuery.schema,
      hints: { readOnlyHint: true, openWorldHint: false },
      run: ({ caller, orgId }, query) => listMedia(ctx.readModels, caller, mediaListInput(orgId, query)),
      summary: (page) =>
        `${page.items.length} of ${page.total} media items (page ${page.page}${page.hasMore ? ', more follow' : ''}; ` +
        `${page.counts.all} in all, ${page.counts.uploads} uploads, ${page.counts.onBrand} on brand).`,
    }),
    defineTool({
      name: 'create_media_upload',
      title: 'Get a URL to upload an image or video',
      description:
        'Gives a signed URL to upload one file to the media library: `kind` image (PNG, JPEG, WebP, GIF, up to ' +
        '20 MiB) or video (MP4, MOV, up to 512 MiB) and its `contentType`. The file must then be sent with HTTP ' +
        'PUT to `uploadUrl` with exactly `requiredHeaders`, and recorded with complete_media_upload. Nothing is ' +
        'in the library until then.',
      scope: 'posts:write',
      input: mediaUploadBody,
      hints: { ...writeHints, idempotentHint: false },
      run: async ({ caller, orgId, request }, body) =>
        (await createMediaUpload(deps, caller, { orgId, ...body }, request)).output,
      summary: (slot) =>
        `Upload slot for asset ${slot.assetId}: PUT the file to the uploadUrl, then complete it.`,
    }),
    defineTool({
      name: 'complete_media_upload',
      title: 'Record an uploaded file in the media library',
      description:
        'Records a file uploaded through create_media_upload as an asset of the workspace, after checking it: ' +
        'it must be there, be what was declared (by its bytes too) and within the size limit, or it is refused ' +
        'and deleted. Image size and the length and frame size of MP4 and MOV video are read from the file. ' +
        'Answers the MediaAsset to use as a post’s `media`; completing again answers the same asset.',
      scope: 'posts:write',
      input: completeMediaUploadBody.extend({
        assetId: canonicalUuid().describe('The asset of the upload slot'),
      }),
      hints: { ...writeHints, idempotentHint: true },
      run: async ({ caller, orgId, request }, { assetId, ...body }) =>
        (await completeMediaUpload(deps, caller, { orgId, assetId, ...body }, request)).output,
      summary: ({ asset }) => `Stored ${asset.kind} asset ${'assetId' in asset ? asset.assetId : ''}.`.trim(),
    }),
    defineTool({
      name: 'import_media_from_url',
      title: 'Import an image or video from a link',
      description:
        'Downloads an image or video from a public https link into the media library (PNG, JPEG, WebP, GIF up ' +
        'to 20 MiB; MP4, MOV up to 512 MiB; the type is read from the file). Links to private or internal ' +
        'addresses are refused. Answers the MediaAsset to use as a post’s `media`.',
      scope: 'posts:write',
      input: importMediaBody,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: async ({ caller, orgId, request }, body) =>
        (await importMedia(deps, caller, { orgId, ...body }, request)).output,
      summary: ({ asset }) =>
        `Imported ${asset.kind} asset ${'assetId' in asset ? asset.assetId : ''}.`.trim(),
    }),
  ];
}
