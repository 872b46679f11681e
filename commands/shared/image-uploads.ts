// Uploads of images people show as themselves (profile images, workspace logos): the accepted types and size,
// the upload slot, the check of an uploaded object before it is used, the stable URL it is served at, and the
// logo's upload-url use case (profile images: commands/users/profile-image-use-cases.ts).
import { randomBytes } from 'node:crypto';
import { InvalidFields, NotFound, Unprocessable } from '../../domain/shared/errors.js';
import {
  workspaceObjectPrefix,
  type ObjectStorage,
  type StoredObject,
  type UploadSlot,
} from '../../infra/object-storage/port.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { DEFAULT_MEDIA_LIMITS } from '../../infra/connectors/media-file.js';
import { imageDimensions, imageSizeProblem, sniffContentType } from '../media/media-files.js';
import { deterministicUuid } from './ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from './write-pipeline.js';

/** Raster types browsers show in an <img>; SVG is left out (it can carry script). Extension per type. */
export const imageContentTypes = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
} as const;
export type ImageContentType = keyof typeof imageContentTypes;
const extensions = Object.values(imageContentTypes);

/** 5 MiB: enough for a sharp square avatar or logo, small enough to serve on every page. */
export const maxImageBytes = 5 * 1024 * 1024;
/** How long an upload slot may be used. */
export const imageUploadExpirySeconds = 15 * 60;
/** How long a download URL handed out for an image (or an asset redirect's target) stays valid. */
export const imageDownloadExpirySeconds = 60 * 60;

/** Where the stable URLs of images are served (api/users/asset-routes.ts). */
export const assetsPath = '/v1/assets/';

const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const file = `[0-9a-f]{32}\\.(?:${extensions.join('|')})`;
// Keys of profile images and logos: what upload slots of this module hand out.
const profileOrLogoKey = new RegExp(`^(?:users/${uuid}/profile-image|orgs/${uuid}/logo)/${file}$`);
// Keys of media library assets (commands/media/media-commands.ts `mediaKeyOf`): the asset id is a uuid.
const mediaExtensions = ['png', 'jpg', 'webp', 'gif', 'mp4', 'mov', 'pdf'] as const;
const mediaKey = new RegExp(`^orgs/${uuid}/media/${uuid}\\.(?:${mediaExtensions.join('|')})$`);
/** The content type a media key's extension stands for. */
const mediaTypeByExtension: Record<(typeof mediaExtensions)[number], string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  pdf: 'application/pdf',
};

export const profileImagePrefix = (userId: string) => `users/${userId}/profile-image/`;
export const logoPrefix = (orgId: string) => `${workspaceObjectPrefix(orgId)}logo/`;

/**
 * Whether the unauthenticated asset route serves this key: a profile image or a logo as slots of this module make
 * them, or an asset of a workspace's media library.
 */
export function isPublicImageKey(key: string): boolean {
  return profileOrLogoKey.test(key) || mediaKey.test(key);
}

/** Whether a key names an asset of a workspace's media library. */
export function isMediaKey(key: string): boolean {
  return mediaKey.test(key);
}

/**
 * Why the asset route may not serve a stored object, or null when it may: profile images and logos pass
 * `imageProblem`; a media object must be of the type its extension names and within its kind's limit.
 */
export function publicObjectProblem(
  key: string,
  object: StoredObject,
): { code: string; message: string } | null {
  if (!isMediaKey(key)) return imageProblem(key, object);
  const extension = key.slice(key.lastIndexOf('.') + 1) as (typeof mediaExtensions)[number];
  const type = mediaTypeByExtension[extension];
  if (object.contentType.toLowerCase() !== type)
    return { code: 'unsupported_content_type', message: `The object is ${object.contentType}, not ${type}` };
  const kind = type.startsWith('image/') ? 'image' : type.startsWith('video/') ? 'video' : 'document';
  if (object.sizeBytes === 0 || object.sizeBytes > DEFAULT_MEDIA_LIMITS[kind])
    return { code: 'file_too_large', message: `The object is ${object.sizeBytes} bytes` };
  return null;
}

/** The stable URL an image is shown at: it redirects to a fresh signed download URL on every request. */
export function assetUrlOf(publicBaseUrl: string, key: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${assetsPath}${key}`;
}

/** The key an asset URL of this service names, or null for any other URL. */
export function assetKeyOf(publicBaseUrl: string, url: string): string | null {
  const prefix = assetUrlOf(publicBaseUrl, '');
  if (!url.startsWith(prefix)) return null;
  const key = url.slice(prefix.length);
  // Profile images and logos only: a media library asset is not an avatar upload.
  return profileOrLogoKey.test(key) ? key : null;
}

/** Refused input named by field; `code` lets a client branch. */
class ImageRefused extends InvalidFields {
  override readonly code: string;
  constructor(message: string, code: string, path: string, detail: string) {
    super(message, [{ path, message: detail }]);
    this.code = code;
  }
}

const typeList = Object.keys(imageContentTypes).join(', ');

/** The accepted type, lower-cased (media types are case-insensitive), or 400 naming `contentType`. */
export function acceptedImageType(contentType: string): ImageContentType {
  const lowered = contentType.trim().toLowerCase();
  if (!(lowered in imageContentTypes))
    throw new ImageRefused(
      `Images must be one of ${typeList}`,
      'unsupported_content_type',
      'contentType',
      `must be one of ${typeList}`,
    );
  return lowered as ImageContentType;
}

/**
 * A slot to upload one image under `prefix`: a new random key each time (derived from the Idempotency-Key when
 * there is one, so a retried request answers the same slot), capped at `maxImageBytes` where the store can cap it.
 */
export async function createImageUploadSlot(
  storage: ObjectStorage,
  prefix: string,
  contentType: string,
  seed?: string,
): Promise<UploadSlot> {
  const type = acceptedImageType(contentType);
  const name = seed
    ? deterministicUuid(seed, 'image-upload').replace(/-/g, '')
    : randomBytes(16).toString('hex');
  return storage.createUploadUrl(`${prefix}${name}.${imageContentTypes[type]}`, {
    contentType: type,
    expiresInSeconds: imageUploadExpirySeconds,
    maxBytes: maxImageBytes,
  });
}

/**
 * The uploaded image a request names by `key`, checked before it is used: a key a slot under `prefix` handed out
 * (400 otherwise), an object that exists (404), of an accepted type matching its extension and its bytes, within
 * the size limit (S3 cannot cap a presigned upload, so the size is checked here) and the pixel caps (422). A
 * refused object is deleted.
 */
export async function checkUploadedImage(
  storage: ObjectStorage,
  prefix: string,
  key: string,
): Promise<StoredObject> {
  if (!key.startsWith(prefix) || !profileOrLogoKey.test(key))
    throw new ImageRefused(
      'This key does not name an image uploaded here',
      'invalid_image_key',
      'key',
      'must be the key an upload-url answer of this endpoint gave',
    );
  const object = await storage.head(key);
  if (!object)
    throw new NotFound('Nothing was uploaded under this key (or the upload expired)', 'object_not_found');
  const problem = imageProblem(key, object) ?? (await pixelProblem(storage, key, object));
  if (problem) {
    await storage.delete(key);
    throw new Unprocessable(problem.message, problem.code, [{ path: 'key', message: problem.message }]);
  }
  return object;
}

/**
 * Why the image's bytes may not be shown: not the type stored, not a readable image, or more pixels than any
 * image may have (read from its header in the probe thread, never decoded; commands/media/media-files.ts).
 */
async function pixelProblem(
  storage: ObjectStorage,
  key: string,
  object: StoredObject,
): Promise<{ code: string; message: string } | null> {
  const stored = await storage.get(key);
  if (!stored) throw new NotFound('The uploaded image is gone', 'object_not_found');
  const sniffed = await sniffContentType(stored.body);
  if (sniffed !== object.contentType.toLowerCase())
    return {
      code: 'content_type_mismatch',
      message: `The uploaded image's bytes are ${sniffed ?? 'not a recognised image'}, not ${object.contentType}`,
    };
  const size = await imageDimensions(stored.body);
  if (!size) return { code: 'unreadable_image', message: 'The uploaded image cannot be read' };
  if ('refused' in size) return size.refused;
  const tooLarge = imageSizeProblem(size);
  return tooLarge ? { code: 'image_dimensions_too_large', message: tooLarge } : null;
}

/** Why a stored object may not be shown as an image, or null when it may. */
export function imageProblem(key: string, object: StoredObject): { code: string; message: string } | null {
  const type = object.contentType.toLowerCase() as ImageContentType;
  if (!(type in imageContentTypes) || !key.endsWith(`.${imageContentTypes[type]}`))
    return {
      code: 'unsupported_content_type',
      message: `The uploaded object is ${object.contentType}; images must be one of ${typeList}`,
    };
  if (object.sizeBytes === 0) return { code: 'empty_image', message: 'The uploaded image is empty' };
  if (object.sizeBytes > maxImageBytes)
    return {
      code: 'image_too_large',
      message: `The uploaded image is ${object.sizeBytes} bytes; at most ${maxImageBytes} are allowed`,
    };
  return null;
}

/** The spec's upload slot for a workspace logo: `assetUrl` is where the logo will be shown. */
export interface LogoUploadSlot {
  uploadUrl: string;
  key: string;
  assetUrl: string;
  expiresInSeconds: number;
  method: 'PUT';
  requiredHeaders: Record<string, string>;
}

/**
 * A slot to upload a workspace logo (owners and admins). Nothing is recorded: the logo becomes the workspace's
 * avatar when PATCH /v1/orgs/{orgId} sets avatarUrl to `assetUrl`, and the asset route serves only what passes
 * the checks of `imageProblem`.
 */
export async function createLogoUploadUrl(
  deps: WriteDeps & { storage: ObjectStorage; publicBaseUrl: string },
  caller: Caller,
  input: { orgId: string; contentType: string },
  request: WriteRequest,
): Promise<Written<LogoUploadSlot>> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:manage', scope: null });
  acceptedImageType(input.contentType);
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    const slot = await createImageUploadSlot(
      deps.storage,
      logoPrefix(input.orgId),
      input.contentType,
      idempotencySeed,
    );
    return {
      uploadUrl: slot.uploadUrl,
      key: slot.key,
      assetUrl: assetUrlOf(deps.publicBaseUrl, slot.key),
      expiresInSeconds: slot.expiresInSeconds,
      method: slot.method,
      requiredHeaders: slot.requiredHeaders,
    };
  });
}
