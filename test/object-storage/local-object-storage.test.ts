// Runs the object storage contract against the local-folder adapter, with its signed URLs served over
// real HTTP by the storage routes on a loopback port.
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createStorageRoutes } from '../../api/storage/routes.js';
import { LocalObjectStorage } from '../../infra/object-storage/local-object-storage.js';
import { describeObjectStorageContract } from './contract.js';
import { withErrorMapping } from './support/error-mapping.js';

describeObjectStorageContract('local folder', async () => {
  const rootDir = await mkdtemp(path.join(os.tmpdir(), 'local-object-storage-'));
  let signingClock: number | undefined;
  let app: Hono | undefined = undefined;
  // The storage needs the server's URL and the server needs the storage's routes: start the server first
  // and hand it the app once the port is known.
  const server = serve({ fetch: (request) => app!.fetch(request), hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const storage = new LocalObjectStorage({
    rootDir,
    publicBaseUrl: `http://127.0.0.1:${port}`,
    signingSecret: randomBytes(32),
    // One clock signs and verifies here; the contract only moves it while signing.
    now: () => signingClock ?? Date.now(),
  });
  app = withErrorMapping(createStorageRoutes(storage, { maxUploadBytes: 1024 * 1024 }));
  return {
    storage,
    setSigningClock: (nowMs) => {
      signingClock = nowMs;
    },
    close: async () => {
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
      await rm(rootDir, { recursive: true, force: true });
    },
  };
});
