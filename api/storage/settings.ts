// The storage slice's environment variables (api/storage/slice.ts): object storage and the workspace quota.
import { z } from 'zod';
import {
  defineSettings,
  bool,
  optionalString,
  optionalUrl,
  type SettingsOf,
} from '../../infra/config/env.js';

/** Object storage (the storage slice, api/storage/slice.ts). */
export const storageSettings = defineSettings(
  {
    OBJECT_STORAGE: z.enum(['local', 's3']).default('local'),
    S3_ENDPOINT: optionalUrl,
    /**
     * The S3 endpoint as clients outside the service reach it (browsers, apps, platforms fetching media):
     * presigned upload and download URLs are signed for this origin. Unset: S3_ENDPOINT (or AWS itself).
     */
    S3_PUBLIC_ENDPOINT: optionalString.pipe(
      z
        .string()
        .refine(
          (value) => {
            const url = URL.canParse(value) ? new URL(value) : null;
            return (
              url !== null &&
              /^https?:$/.test(url.protocol) &&
              url.pathname === '/' &&
              !url.search &&
              !url.hash &&
              !url.username &&
              !url.password
            );
          },
          {
            message:
              'must be an http(s) origin without a path, e.g. https://s3.example.org or http://localhost:8333',
          },
        )
        .optional(),
    ),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_BUCKET: optionalString,
    S3_ACCESS_KEY_ID: optionalString,
    S3_SECRET_ACCESS_KEY: optionalString,
    S3_FORCE_PATH_STYLE: bool.default(true),
    UPLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(900),
    /** Bytes of media one workspace may keep (uploads, imports, renders): 5 GiB; beyond, 413 storage_quota_exceeded. */
    WORKSPACE_STORAGE_QUOTA_BYTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(5 * 1024 ** 3),
    /** How often uploads never completed are swept, once their URL's hour is over (local object storage). */
    PENDING_UPLOAD_SWEEP_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  },
  (env, ctx) => {
    if (env.OBJECT_STORAGE === 's3' && !env.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when OBJECT_STORAGE=s3' });
    }
  },
);

export type StorageEnv = SettingsOf<typeof storageSettings>;
