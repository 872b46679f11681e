// The storage slice: signed upload and download URLs of the local object store (S3 serves its own). The
// object storage adapter is built by the runtime, since publishing reads media from it too.
import { pendingUploadsPrefix, refusedMediaWrite } from '../../commands/media/media-commands.js';
import { storageSettings } from '../../infra/config/env.js';
import { LocalObjectStorage } from '../../infra/object-storage/local-object-storage.js';
import type { Slice } from '../shared/slice.js';
import { createStorageRoutes } from './routes.js';

export const storageSlice: Slice = {
  name: 'storage',
  settings: storageSettings,
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
};
