// Stable URLs of the images people show as themselves (profile images, workspace logos) and of media library
// assets: no token, since an <img> sends none (keys carry unguessable uuids); each request is redirected to a
// fresh short-lived signed download URL of the object.
// Like the storage routes, these are URLs for browsers to follow, not API operations: not in the OpenAPI document.
import type { OpenAPIHono } from '@hono/zod-openapi';
import {
  assetsPath,
  imageDownloadExpirySeconds,
  isPublicImageKey,
  publicObjectProblem,
} from '../../commands/shared/image-uploads.js';
import { NotFound } from '../../domain/shared/errors.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import type { AppEnv } from '../platform/app-env.js';

/** How long a browser may reuse the redirect; well inside the target URL's validity. */
const redirectMaxAgeSeconds = 300;

export function assetRoutes(storage: ObjectStorage) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.get(`${assetsPath}*`, async (c) => {
      const key = new URL(c.req.url).pathname.slice(assetsPath.length);
      // Only keys upload slots and the media library hand out, and only objects that pass the checks made when
      // they were set: the route never serves another object of the store, nor an oversized upload or one of
      // another type than its key says (S3 lets those in).
      const object = isPublicImageKey(key) ? await storage.head(key) : null;
      if (!object || publicObjectProblem(key, object))
        throw new NotFound('Asset not found', 'asset_not_found');
      const url = await storage.createDownloadUrl(key, { expiresInSeconds: imageDownloadExpirySeconds });
      c.header('Cache-Control', `public, max-age=${redirectMaxAgeSeconds}`);
      return c.redirect(url, 302);
    });
  };
}
