// The media slice: the workspace's media library (uploads, imports, and what other slices store in it).
import { mediaProjection } from '../../projections/media/media-projection.js';
import { defineSlice } from '../shared/slice.js';
import { storageSettings } from '../storage/settings.js';
import { provide } from '../shared/provider.js';
import { mediaOperations } from './operations.js';
import { buildMediaServices, mediaServices } from './services.js';

export const mediaSlice = defineSlice({
  name: 'media',
  // The workspace quota (WORKSPACE_STORAGE_QUOTA_BYTES) is the storage slice's setting.
  settings: [storageSettings],
  projections: [mediaProjection],
  provides: [provide(mediaServices, { build: buildMediaServices })],
  operations: [mediaOperations],
});
