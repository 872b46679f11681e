// The storage slice: signed upload and download URLs of the local object store (S3 serves its own), and the sweep
// of uploads never completed. The object storage adapter is built by the runtime, since publishing reads media
// from it too.
import { pendingUploadsPrefix, refusedMediaWrite } from '../../commands/media/media-commands.js';
import { mediaUploadExpirySeconds } from '../../commands/media/media-files.js';
import { Rounds } from '../../infra/async/rounds.js';
import { storageSettings } from './settings.js';
import { LocalObjectStorage } from '../../infra/object-storage/local-object-storage.js';
import { defineSlice } from '../shared/slice.js';
import { createStorageRoutes } from './routes.js';

export const PENDING_UPLOAD_SWEEPER = 'pending-upload-sweeper';

/** An upload is swept this long after its last write: its URL's hour, and ten minutes to complete it. */
export const pendingUploadLifetimeMs = (mediaUploadExpirySeconds + 10 * 60) * 1000;

export const storageSlice = defineSlice({
  name: 'storage',
  settings: [storageSettings],
  routes: ({ storage }) =>
    storage instanceof LocalObjectStorage
      ? [
          (app) =>
            void app.route(
              '/',
              createStorageRoutes(storage, {
                maxUploadBytes: 512 * 1024 * 1024,
                refuseWrite: (key) => refusedMediaWrite(storage, key),
                unserved: (key) => key.startsWith(pendingUploadsPrefix),
              }),
            ),
        ]
      : [],
  workers: [
    {
      // S3 buckets expire `uploads/` with a lifecycle rule instead (docs/operations.md).
      name: PENDING_UPLOAD_SWEEPER,
      async start(ctx) {
        const storage = ctx.storage;
        if (!(storage instanceof LocalObjectStorage)) return undefined;
        // Wall-clock time, as the files' modification times are (not the service's clock, which tests move).
        const now = () => Date.now();
        const rounds = new Rounds(
          async () => {
            const swept = await storage.deleteStale(pendingUploadsPrefix, now() - pendingUploadLifetimeMs);
            if (swept > 0) ctx.logger.info({ swept }, 'uploads never completed swept');
          },
          ctx.env.PENDING_UPLOAD_SWEEP_SECONDS * 1000,
          (error) => ctx.logger.error({ err: error }, 'pending upload sweep failed'),
        );
        rounds.start();
        return Promise.resolve(rounds);
      },
    },
  ],
});
