// Media bytes for connectors that upload: files in our own storage are read from it; other URLs go through
// the SSRF-safe fetcher. A media file that cannot be read is a permanent failure of the attempt.
import { ConnectorError, type MediaFetcher } from '../../infra/connectors/port.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import { STORAGE_OBJECTS_PATH } from '../../infra/object-storage/local-object-storage.js';
import { safeFetch } from '../../infra/http/safe-fetch.js';

export function createMediaFetcher(options: {
  storage: ObjectStorage;
  publicBaseUrl: string;
  maxBytes?: number;
  timeoutMs?: number;
  allowPrivate?: boolean;
}): MediaFetcher {
  const ownPrefix = `${options.publicBaseUrl.replace(/\/$/, '')}${STORAGE_OBJECTS_PATH}`;
  return async (item) => {
    if (item.url.startsWith(ownPrefix)) {
      const key = decodeURIComponent(new URL(item.url).pathname.slice(STORAGE_OBJECTS_PATH.length));
      const object = await options.storage.get(key);
      if (!object) throw new ConnectorError('permanent', `Media ${item.assetId} is no longer in storage`);
      return { data: object.body, contentType: object.contentType };
    }
    try {
      const result = await safeFetch(item.url, {
        maxBytes: options.maxBytes ?? 512 * 1024 * 1024,
        timeoutMs: options.timeoutMs ?? 60_000,
        allowPrivate: options.allowPrivate === true,
      });
      if (result.status !== 200)
        throw new ConnectorError(
          'permanent',
          `Media ${item.assetId} could not be read (HTTP ${result.status})`,
        );
      return { data: result.body, contentType: item.contentType || result.contentType };
    } catch (error) {
      if (error instanceof ConnectorError) throw error;
      throw new ConnectorError(
        'permanent',
        `Media ${item.assetId} could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
}
