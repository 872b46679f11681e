// Runs the object storage contract against the S3 adapter and a real S3 server: the endpoint in
// OBJECT_STORAGE_TEST_S3_ENDPOINT (e.g. SeaweedFS from docker-compose, http://localhost:8333 with the keys of
// its .env) or else a throwaway Ceph RADOS Gateway. On the gateway (127.0.0.1) presigned URLs are signed for
// `localhost` (the public endpoint) while the adapter's own calls use 127.0.0.1, so every presigned upload and
// download of the contract shows the server accepting a URL signed for the public host.
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { S3ObjectStorage } from '../../infra/object-storage/s3-object-storage.js';
import { describeObjectStorageContract } from './contract.js';
import { missingCephBinaries, startCephRgw } from './support/ceph-rgw.js';

interface S3Server {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

function configuredServer(): S3Server | undefined {
  const endpoint = process.env.OBJECT_STORAGE_TEST_S3_ENDPOINT;
  if (!endpoint) return undefined;
  return {
    endpoint,
    region: process.env.OBJECT_STORAGE_TEST_S3_REGION ?? 'us-east-1',
    accessKeyId: process.env.OBJECT_STORAGE_TEST_S3_ACCESS_KEY_ID ?? 'minioadmin',
    secretAccessKey: process.env.OBJECT_STORAGE_TEST_S3_SECRET_ACCESS_KEY ?? 'minioadmin',
    stop: async () => {},
  };
}

const configured = configuredServer();
const missing = configured ? [] : missingCephBinaries();

if (missing.length > 0) {
  console.warn(
    `S3 object storage contract skipped: no OBJECT_STORAGE_TEST_S3_ENDPOINT and no Ceph RADOS Gateway ` +
      `(missing ${missing.join(', ')}; apt-get install radosgw ceph-mon ceph-osd)`,
  );
}

describe.skipIf(missing.length > 0)('S3 adapter', () => {
  describeObjectStorageContract(
    configured ? `S3 at ${configured.endpoint}` : 'S3 on Ceph RADOS Gateway',
    async () => {
      const server = configured ?? (await startCephRgw());
      const bucket = `contract-${randomUUID()}`;
      const credentials = { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey };
      const admin = new S3Client({
        endpoint: server.endpoint,
        region: server.region,
        forcePathStyle: true,
        credentials,
      });
      try {
        await admin.send(new CreateBucketCommand({ Bucket: bucket }));
      } finally {
        admin.destroy();
      }
      let signingClock: number | undefined;
      const endpoint = new URL(server.endpoint);
      const publicEndpoint =
        endpoint.hostname === '127.0.0.1' ? server.endpoint.replace('127.0.0.1', 'localhost') : undefined;
      const storage = new S3ObjectStorage({
        endpoint: server.endpoint,
        ...(publicEndpoint ? { publicEndpoint } : {}),
        region: server.region,
        bucket,
        credentials,
        forcePathStyle: true,
        now: () => signingClock ?? Date.now(),
      });
      return {
        storage,
        setSigningClock: (nowMs) => {
          signingClock = nowMs;
        },
        close: async () => {
          storage.close();
          await server.stop();
        },
      };
    },
  );
});
