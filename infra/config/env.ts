// Service configuration: every environment variable the service reads, validated once at start.
// A bad value stops the start with a message naming the variable (see README "Configuration").
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = z.coerce.number().int().min(0).max(65535);
const url = z.string().url();
const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(url.optional());
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

export const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: port.default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    PUBLIC_BASE_URL: optionalUrl,
    DATA_DIR: z.string().min(1).default('.data'),
    DATABASE_URL: optionalUrl,
    DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(200).default(10),
    EVENT_STORE: z.enum(['postgres', 'eventstoredb']).default('postgres'),
    EVENTSTOREDB_URL: optionalString,
    NATS_URL: optionalString,
    BUS: z.enum(['in-process', 'nats']).optional(),
    /** JetStream stream and subject prefix of the work queues: deployments sharing one NATS server differ here. */
    NATS_STREAM: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be letters, digits, _ or - (a JetStream stream name)')
      .default('WORK'),
    NATS_SUBJECT_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated tokens of letters, digits, _ or -')
      .default('work'),
    OBJECT_STORAGE: z.enum(['local', 's3']).default('local'),
    S3_ENDPOINT: optionalUrl,
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_BUCKET: optionalString,
    S3_ACCESS_KEY_ID: optionalString,
    S3_SECRET_ACCESS_KEY: optionalString,
    S3_FORCE_PATH_STYLE: bool.default(true),
    UPLOAD_URL_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(900),
    AUTH_MODE: z.enum(['local', 'jwks']).default('local'),
    AUTH_SIGNING_KEY: optionalString,
    AUTH_ISSUER: z.string().min(1).optional(),
    AUTH_AUDIENCE: z.string().min(1).optional(),
    AUTH_JWKS_URL: optionalUrl,
    ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
    TOKEN_ENCRYPTION_KEY: optionalString.pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')
        .optional(),
    ),
    /** `sandbox` (default): every platform is simulated locally; `live`: the real platform APIs below. */
    PLATFORM_MODE: z.enum(['sandbox', 'live']).default('sandbox'),
    /** Platforms that stay in the sandbox when PLATFORM_MODE=live (comma-separated platform values). */
    SANDBOX_PLATFORMS: optionalString,
    X_CLIENT_ID: optionalString,
    X_CLIENT_SECRET: optionalString,
    LINKEDIN_CLIENT_ID: optionalString,
    LINKEDIN_CLIENT_SECRET: optionalString,
    /** LinkedIn's `LinkedIn-Version` header (YYYYMM); LinkedIn retires versions after a year. */
    LINKEDIN_API_VERSION: z
      .string()
      .regex(/^\d{6}$/, 'must be YYYYMM, e.g. 202611')
      .default('202611'),
    FACEBOOK_APP_ID: optionalString,
    FACEBOOK_APP_SECRET: optionalString,
    INSTAGRAM_APP_ID: optionalString,
    INSTAGRAM_APP_SECRET: optionalString,
    THREADS_APP_ID: optionalString,
    THREADS_APP_SECRET: optionalString,
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_CLIENT_SECRET: optionalString,
    TIKTOK_CLIENT_KEY: optionalString,
    TIKTOK_CLIENT_SECRET: optionalString,
    REDDIT_CLIENT_ID: optionalString,
    REDDIT_CLIENT_SECRET: optionalString,
    REDDIT_USER_AGENT: optionalString,
    /** Sandbox faults for a share of calls, e.g. `fail=0.2,timeout=0.05,pending=0.3` (also set at run time by the CLI). */
    SANDBOX_FAULTS: optionalString,
    /** How long a sandbox publish answered "pending" stays pending. */
    SANDBOX_PENDING_MS: z.coerce.number().int().min(0).max(3_600_000).default(1500),
    /** Attempts before a post fails for good (the first attempt included). */
    PUBLISH_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
    /** First retry delay; each further retry doubles it (with jitter), up to PUBLISH_RETRY_MAX_MS. */
    PUBLISH_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
    PUBLISH_RETRY_MAX_MS: z.coerce.number().int().min(10).max(86_400_000).default(1_800_000),
    /** A platform call taking longer has an unknown outcome. */
    PUBLISH_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
    /** An attempt open this long without an outcome (its worker died) is checked against the platform. */
    PUBLISH_STALE_ATTEMPT_MS: z.coerce.number().int().min(200).max(3_600_000).default(60_000),
    /** How often a post awaiting the platform is polled, and when it gives up. */
    PUBLISH_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(15_000),
    PUBLISH_PENDING_TIMEOUT_MS: z.coerce.number().int().min(100).max(86_400_000).default(3_600_000),
    /** Publish jobs one worker process runs at once. */
    PUBLISH_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /** A due post's job is enqueued again after this long if it is still due (its message may have been lost). */
    PUBLISH_REDISPATCH_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    /** How often the lease holder sweeps the posts read model for due work. */
    PUBLISH_SWEEP_INTERVAL_MS: z.coerce.number().int().min(20).max(60_000).default(200),
    /** The sweep lease: another instance takes over sweeping this long after the holder stops renewing it. */
    PUBLISH_LEASE_TTL_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
    /** How long post-now waits for the attempt's outcome before answering with the post as it is. */
    POST_NOW_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(10_000),
    /** Version of TOKEN_ENCRYPTION_KEY, written with every sealed token (bump it when rotating). */
    TOKEN_ENCRYPTION_KEY_VERSION: z.coerce.number().int().min(1).max(1_000_000).default(1),
    /** Earlier keys still readable during a rotation: `<version>:<base64 key>`, comma-separated. */
    TOKEN_ENCRYPTION_OLD_KEYS: optionalString.pipe(
      z
        .string()
        .regex(
          /^\d+:[A-Za-z0-9+/]{43}=(,\d+:[A-Za-z0-9+/]{43}=)*$/,
          'must be <version>:<base64 32-byte key>[,…]',
        )
        .optional(),
    ),
    BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(50 * 1024 * 1024)
      .default(1024 * 1024),
    READ_YOUR_WRITES_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .superRefine((env, ctx) => {
    if (env.EVENT_STORE === 'eventstoredb' && !env.EVENTSTOREDB_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['EVENTSTOREDB_URL'],
        message: 'is required when EVENT_STORE=eventstoredb',
      });
    }
    if (env.PUBLISH_STALE_ATTEMPT_MS <= env.PUBLISH_CALL_TIMEOUT_MS) {
      // A check while the call may still land could find nothing and publish a second time.
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLISH_STALE_ATTEMPT_MS'],
        message: `must be longer than PUBLISH_CALL_TIMEOUT_MS (${env.PUBLISH_CALL_TIMEOUT_MS})`,
      });
    }
    if (env.BUS === 'nats' && !env.NATS_URL) {
      ctx.addIssue({ code: 'custom', path: ['NATS_URL'], message: 'is required when BUS=nats' });
    }
    if (env.PUBLISH_LEASE_TTL_MS <= env.PUBLISH_SWEEP_INTERVAL_MS) {
      // The holder renews once per sweep, so a shorter lease would lapse between its own sweeps.
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLISH_LEASE_TTL_MS'],
        message: 'must be longer than PUBLISH_SWEEP_INTERVAL_MS',
      });
    }
    if (env.OBJECT_STORAGE === 's3' && !env.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when OBJECT_STORAGE=s3' });
    }
    if (env.AUTH_MODE === 'jwks') {
      for (const key of ['AUTH_JWKS_URL', 'AUTH_ISSUER', 'AUTH_AUDIENCE'] as const) {
        if (!env[key])
          ctx.addIssue({ code: 'custom', path: [key], message: 'is required when AUTH_MODE=jwks' });
      }
    }
  });

export type Env = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError naming each bad variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.map(String).join('.') || '(environment)';
        const value = source[name];
        const shown = value === undefined || /KEY|SECRET|PASSWORD/.test(name) ? '' : ` (got "${value}")`;
        return `${name}: ${issue.message}${shown}`;
      }),
    );
  }
  return { ...result.data, BUS: result.data.BUS ?? (result.data.NATS_URL ? 'nats' : 'in-process') };
}
