// S3-compatible object storage for the distributed mode (AWS S3, SeaweedFS in docker-compose, Ceph RGW):
// presigned PUT/GET URLs that the store itself enforces, plus direct put/get/head/delete. The service reaches the
// store at `endpoint`; presigned URLs name `publicEndpoint`, where clients outside the service reach it.
import { pipeline, Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  StreamSizeMismatchError,
  validateContentType,
  validateExpiresInSeconds,
  validateObjectKey,
  validateSizeBytes,
  type ObjectStorage,
  type StoredObject,
  type UploadSlot,
} from './port.js';

export interface S3ObjectStorageOptions {
  /** Absent for AWS itself; e.g. http://seaweedfs:8333 in docker-compose. */
  endpoint?: string;
  /**
   * The origin clients reach the store at (e.g. http://localhost:8333 when the service's `endpoint` is a name
   * only its own network resolves): presigned URLs are signed for this host. Absent: `endpoint`.
   */
  publicEndpoint?: string;
  region: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Most self-hosted stores (SeaweedFS, Ceph RGW) need path-style URLs (no bucket sub-domain). */
  forcePathStyle?: boolean;
  /** Signing time of presigned URLs; the store's own clock decides when they expire. */
  now?: () => number;
}

export class S3ObjectStorage implements ObjectStorage {
  readonly name = 's3' as const;
  private readonly client: S3Client;
  /** Signs presigned URLs: the client itself, or one for the public endpoint (it never sends a request). */
  private readonly presigner: S3Client;
  private readonly bucket: string;
  private readonly now: () => number;

  constructor(options: S3ObjectStorageOptions) {
    this.bucket = options.bucket;
    this.now = options.now ?? Date.now;
    const clientFor = (endpoint: string | undefined) =>
      new S3Client({
        region: options.region,
        credentials: options.credentials,
        forcePathStyle: options.forcePathStyle ?? false,
        ...(endpoint !== undefined ? { endpoint } : {}),
        // Since 3.729 the SDK adds a CRC32 of the (empty) body to presigned PUTs, which every upload then
        // fails; and older S3-compatible stores reject the new checksum headers on direct calls.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
    this.client = clientFor(options.endpoint);
    this.presigner =
      options.publicEndpoint !== undefined && options.publicEndpoint !== options.endpoint
        ? clientFor(options.publicEndpoint)
        : this.client;
  }

  async createUploadUrl(
    key: string,
    options: { contentType: string; expiresInSeconds: number; maxBytes?: number },
  ): Promise<UploadSlot> {
    validateObjectKey(key);
    const contentType = validateContentType(options.contentType);
    const expiresInSeconds = validateExpiresInSeconds(options.expiresInSeconds);
    const signingDate = new Date(this.now());
    // Content-Type stays a signed header (not hoisted into the query), so S3 refuses any other type.
    // maxBytes cannot be expressed in a presigned PUT; see the port.
    const uploadUrl = await getSignedUrl(
      this.presigner,
      new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
      { expiresIn: expiresInSeconds, signingDate, signableHeaders: new Set(['content-type']) },
    );
    const signedAtSeconds = Math.floor(signingDate.getTime() / 1000);
    return {
      uploadUrl,
      method: 'PUT',
      requiredHeaders: { 'Content-Type': contentType },
      key,
      expiresInSeconds,
      expiresAt: new Date((signedAtSeconds + expiresInSeconds) * 1000).toISOString(),
    };
  }

  async createDownloadUrl(key: string, options: { expiresInSeconds: number }): Promise<string> {
    validateObjectKey(key);
    const expiresInSeconds = validateExpiresInSeconds(options.expiresInSeconds);
    return getSignedUrl(this.presigner, new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
      expiresIn: expiresInSeconds,
      signingDate: new Date(this.now()),
    });
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<StoredObject> {
    validateObjectKey(key);
    validateContentType(contentType);
    const result = await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        ContentLength: body.byteLength,
      }),
    );
    return { key, contentType, sizeBytes: body.byteLength, ...etagOf(result.ETag) };
  }

  /**
   * One PutObject with the stream as its body and the declared length (S3 takes up to 5 GiB so). The body is
   * counted on its way: one that errors, or gives more or fewer bytes than declared, aborts the request, so
   * S3 stores nothing. The SDK never retries a streamed body.
   */
  async putStream(
    key: string,
    body: Readable,
    contentType: string,
    sizeBytes: number,
  ): Promise<StoredObject> {
    const abort = new AbortController();
    let failure: unknown;
    let counted: Readable;
    try {
      validateObjectKey(key);
      validateContentType(contentType);
      validateSizeBytes(sizeBytes);
      counted = pipeline(body, exactLength(sizeBytes), (error) => {
        if (!error) return;
        failure ??= error;
        abort.abort(error);
      });
    } catch (error) {
      body.destroy();
      throw error;
    }
    try {
      const result = await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: counted,
          ContentType: contentType,
          ContentLength: sizeBytes,
        }),
        { abortSignal: abort.signal },
      );
      return { key, contentType, sizeBytes, ...etagOf(result.ETag) };
    } catch (error) {
      // The body's own failure says what happened; the abort it caused only echoes it.
      throw failure ?? error;
    } finally {
      // Refused by S3 before the body was read: the caller's stream is not left holding its file.
      if (!counted.destroyed && !counted.readableEnded) counted.destroy();
    }
  }

  async get(key: string): Promise<{ body: Uint8Array; contentType: string } | null> {
    validateObjectKey(key);
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const body = result.Body ? await result.Body.transformToByteArray() : new Uint8Array(0);
      return { body, contentType: result.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async getStream(key: string): Promise<{ body: Readable; contentType: string; sizeBytes: number } | null> {
    validateObjectKey(key);
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      // On Node the SDK's body is the response stream itself; anything else is adapted, never buffered.
      const body =
        result.Body instanceof Readable
          ? result.Body
          : result.Body
            ? Readable.fromWeb(result.Body.transformToWebStream() as WebReadableStream<Uint8Array>)
            : Readable.from([]);
      return {
        body,
        contentType: result.ContentType ?? 'application/octet-stream',
        sizeBytes: result.ContentLength ?? 0,
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async head(key: string): Promise<StoredObject | null> {
    validateObjectKey(key);
    try {
      const result = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return {
        key,
        contentType: result.ContentType ?? 'application/octet-stream',
        sizeBytes: result.ContentLength ?? 0,
        ...etagOf(result.ETag),
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    validateObjectKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Closes the client's connection pool. */
  close(): void {
    this.client.destroy();
    if (this.presigner !== this.client) this.presigner.destroy();
  }
}

/** Passes exactly `sizeBytes` bytes through, and errors at the first byte more or at an end short of them. */
function exactLength(sizeBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.byteLength;
      if (seen > sizeBytes) callback(new StreamSizeMismatchError(sizeBytes, seen, false));
      else callback(null, chunk);
    },
    flush(callback) {
      callback(seen === sizeBytes ? null : new StreamSizeMismatchError(sizeBytes, seen, true));
    },
  });
}

function etagOf(etag: string | undefined): { etag?: string } {
  return etag ? { etag: etag.replace(/^"|"$/g, '') } : {};
}

// GET answers NoSuchKey; HEAD has no body, so only its status says 404. A missing bucket is a
// misconfiguration, never an absent object.
function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    error.name !== 'NoSuchBucket' &&
    (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)
  );
}
