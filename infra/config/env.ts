// Service configuration: every environment variable the service reads, validated once at start.
// A bad value stops the start with a message naming the variable (see README "Configuration").
import { z } from 'zod';
import { parseTrustedProxyList } from '../http/trusted-proxies.js';
import { isKurrentConnectionString } from '../event-store/eventstoredb/connection-string.js';

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
/** Comma-separated http(s) origins (scheme, host and port; no path), normalised as `URL.origin` writes them. */
const originList = z
  .string()
  .optional()
  .transform((value, ctx) => {
    const origins: string[] = [];
    for (const item of (value ?? '').split(',').map((s) => s.trim())) {
      if (item === '') continue;
      const url = URL.canParse(item) ? new URL(item) : null;
      const bare = url && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
      if (!url || !bare || !/^https?:$/.test(url.protocol)) {
        ctx.addIssue({
          code: 'custom',
          message: 'must be comma-separated http(s) origins without a path, e.g. https://app.example.org',
        });
        return z.NEVER;
      }
      origins.push(url.origin);
    }
    return origins;
  });

/**
 * A slice's own environment variables: a zod object fragment, and checks across them that run once every
 * variable of the environment has parsed. `envSchema` below merges the fragments into one object.
 */
export interface Settings<Shape extends z.ZodRawShape = z.ZodRawShape> {
  shape: Shape;
  check?(env: z.output<z.ZodObject<Shape>>, ctx: z.RefinementCtx): void;
}

export function defineSettings<Shape extends z.ZodRawShape>(
  shape: Shape,
  check?: (env: z.output<z.ZodObject<Shape>>, ctx: z.RefinementCtx) => void,
): Settings<Shape> {
  return check ? { shape, check } : { shape };
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** The fragments' shapes as one object type. */
type MergedShape<U> = { [K in keyof Intersection<U>]: Intersection<U>[K] };

/** One object of every fragment's variables (a variable declared twice stops the start) and all their checks. */
export function composeSettings<const F extends readonly Settings[]>(fragments: F) {
  const shape: Record<string, z.core.$ZodType> = {};
  for (const fragment of fragments) {
    for (const [name, schema] of Object.entries(fragment.shape)) {
      if (name in shape) throw new Error(`${name} is declared by two settings fragments`);
      shape[name] = schema;
    }
  }
  return z.object(shape as MergedShape<F[number]['shape']>).superRefine((env, ctx) => {
    for (const fragment of fragments) fragment.check?.(env, ctx);
  });
}

/**
 * The platform's own variables (api/platform/slice.ts): the process, database, event store, bus, token
 * encryption, request limits and logging.
 */
export const platformSettings = defineSettings(
  {
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: port.default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    PUBLIC_BASE_URL: optionalUrl,
    /** Origins of the web apps: oauth/start accepts a redirectUri there (or under PUBLIC_BASE_URL) only. */
    APP_ORIGINS: originList,
    DATA_DIR: z.string().min(1).default('.data'),
    /** Bearer token `/metrics` requires; unset, only unforwarded loopback callers may scrape it. */
    METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    DATABASE_URL: optionalUrl,
    DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(200).default(10),
    EVENT_STORE: z.enum(['postgres', 'eventstoredb']).default('postgres'),
    /** KurrentDB (EventStoreDB) connection string: kurrentdb://host:2113?tls=false; esdb:// is still accepted. */
    EVENTSTOREDB_URL: optionalString.pipe(
      z
        .string()
        .refine(isKurrentConnectionString, {
          message:
            'must be a KurrentDB connection string: kurrentdb://host:2113?tls=false (kurrentdb+discover:// for a cluster; esdb:// is still accepted)',
        })
        .optional(),
    ),
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
    TOKEN_ENCRYPTION_KEY: optionalString.pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')
        .optional(),
    ),
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
    /**
     * The reverse proxies in front of the service (comma-separated addresses or CIDR ranges): X-Forwarded-For
     * and X-Forwarded-Proto are believed from these only. Unset: the socket peer is the client.
     */
    TRUSTED_PROXIES: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const parsed = parseTrustedProxyList(value);
        if ('ranges' in parsed) return parsed.ranges;
        ctx.addIssue({
          code: 'custom',
          message: `must be comma-separated IP addresses or CIDR ranges: ${parsed.problem}`,
        });
        return z.NEVER;
      }),
  },
  (env, ctx) => {
    if (env.EVENT_STORE === 'eventstoredb' && !env.EVENTSTOREDB_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['EVENTSTOREDB_URL'],
        message: 'is required when EVENT_STORE=eventstoredb',
      });
    }
    if (env.BUS === 'nats' && !env.NATS_URL) {
      ctx.addIssue({ code: 'custom', path: ['NATS_URL'], message: 'is required when BUS=nats' });
    }
    // A key version names one key: the cipher looks keys up by the version written with each sealed token.
    const versions = new Set([env.TOKEN_ENCRYPTION_KEY_VERSION]);
    for (const entry of (env.TOKEN_ENCRYPTION_OLD_KEYS ?? '').split(',').filter(Boolean)) {
      const version = Number(entry.split(':')[0]);
      const problem =
        version < 1
          ? `key versions are integers from 1 (got version ${version})`
          : version === env.TOKEN_ENCRYPTION_KEY_VERSION
            ? `has a key with version ${version}, the current key's (TOKEN_ENCRYPTION_KEY_VERSION); give each key its own version`
            : versions.has(version)
              ? `has version ${version} more than once; give each key its own version`
              : undefined;
      if (problem) ctx.addIssue({ code: 'custom', path: ['TOKEN_ENCRYPTION_OLD_KEYS'], message: problem });
      versions.add(version);
    }
  },
);

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

/** Tokens and identity providers (the auth slice, api/auth/slice.ts). */
export const authSettings = defineSettings(
  {
    AUTH_MODE: z.enum(['local', 'jwks']).default('local'),
    AUTH_SIGNING_KEY: optionalString,
    AUTH_ISSUER: z.string().min(1).optional(),
    AUTH_AUDIENCE: z.string().min(1).optional(),
    AUTH_JWKS_URL: optionalUrl,
    ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
    /** A session (a sign-in and every token exchanged from it) ends this long after it began: 24 hours. */
    SESSION_MAX_AGE_SECONDS: z.coerce.number().int().min(300).max(2_592_000).default(86_400),
  },
  (env, ctx) => {
    if (env.AUTH_MODE === 'jwks') {
      for (const key of ['AUTH_JWKS_URL', 'AUTH_ISSUER', 'AUTH_AUDIENCE'] as const) {
        if (!env[key])
          ctx.addIssue({ code: 'custom', path: [key], message: 'is required when AUTH_MODE=jwks' });
      }
    }
  },
);

/**
 * Platform connectors, their credentials and the sandbox (the social accounts slice,
 * api/social-accounts/slice.ts).
 */
export const socialAccountSettings = defineSettings({
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
});

/**
 * The publishing pipeline and how long post-now waits for it (the publishing slice,
 * api/publishing/slice.ts).
 */
export const publishingSettings = defineSettings(
  {
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
  },
  (env, ctx) => {
    if (env.PUBLISH_STALE_ATTEMPT_MS <= env.PUBLISH_CALL_TIMEOUT_MS) {
      // A check while the call may still land could find nothing and publish a second time.
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLISH_STALE_ATTEMPT_MS'],
        message: `must be longer than PUBLISH_CALL_TIMEOUT_MS (${env.PUBLISH_CALL_TIMEOUT_MS})`,
      });
    }
    if (env.PUBLISH_LEASE_TTL_MS <= env.PUBLISH_SWEEP_INTERVAL_MS) {
      // The holder renews once per sweep, so a shorter lease would lapse between its own sweeps.
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLISH_LEASE_TTL_MS'],
        message: 'must be longer than PUBLISH_SWEEP_INTERVAL_MS',
      });
    }
  },
);

/**
 * Signing in at the service in a browser (the sign-in slice, api/sign-in/slice.ts): how sign-in links are mailed,
 * and the external identity provider the sign-in page may offer.
 */
export const signInSettings = defineSettings(
  {
    /** `smtp://user:pass@host:587` or `smtps://…:465`; unset: mail goes to the local mailbox (`cli mail last`). */
    SMTP_URL: optionalString.pipe(
      z
        .string()
        .regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL')
        .optional(),
    ),
    /** The From address of the service's mail, e.g. `Social Publishing <no-reply@example.org>`. */
    MAIL_FROM: optionalString,
    /** An OpenID Connect issuer the sign-in page offers ("Sign in with …"); needs OIDC_CLIENT_ID. */
    OIDC_ISSUER: optionalUrl,
    OIDC_CLIENT_ID: optionalString,
    OIDC_CLIENT_SECRET: optionalString,
    /** The provider's name on the sign-in button; default: the issuer's host name. */
    OIDC_PROVIDER_NAME: optionalString,
  },
  (env, ctx) => {
    if (env.SMTP_URL && !env.MAIL_FROM)
      ctx.addIssue({ code: 'custom', path: ['MAIL_FROM'], message: 'is required when SMTP_URL is set' });
    if (env.OIDC_ISSUER && !env.OIDC_CLIENT_ID)
      ctx.addIssue({
        code: 'custom',
        path: ['OIDC_CLIENT_ID'],
        message: 'is required when OIDC_ISSUER is set',
      });
  },
);

/**
 * Billing (the billing slice, api/billing/slice.ts): where plans, packs and credit costs are configured, and
 * which payment provider takes payments.
 */
export const billingSettings = defineSettings(
  {
    /** The plans, credit packs, credit costs, trial and grace lengths (JSON); default: config/billing.json. */
    BILLING_CONFIG_FILE: optionalString,
    /** `sandbox` (the embedded default: payments simulated locally) or `paddle` (Paddle Billing). */
    BILLING_PROVIDER: z.enum(['sandbox', 'paddle']).default('sandbox'),
    /** Paddle Billing API key (`pdl_…`); required when BILLING_PROVIDER is paddle. */
    PADDLE_API_KEY: optionalString,
    /** The secret of the Paddle notification destination, for webhook signatures; required with paddle. */
    PADDLE_WEBHOOK_SECRET: optionalString,
    /** `sandbox` or `production` (Paddle's own environments). */
    PADDLE_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
    /** Overrides Paddle's API base URL (tests serve Paddle's documented responses locally). */
    PADDLE_API_URL: optionalUrl,
  },
  (env, ctx) => {
    if (env.BILLING_PROVIDER === 'paddle') {
      for (const name of ['PADDLE_API_KEY', 'PADDLE_WEBHOOK_SECRET'] as const)
        if (!env[name])
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: 'is required when BILLING_PROVIDER is paddle',
          });
    }
  },
);

/**
 * Request rate limits per token and per workspace, by route group (api/platform/rate-limits.ts). Counters
 * live in PostgreSQL so every instance shares them.
 */
export const rateLimitSettings = defineSettings({
  /** `false` turns rate limiting off (e.g. for load tests of a single tenant). */
  RATE_LIMITS_ENABLED: bool.default(true),
  /**
   * Overrides per route group as JSON, e.g. `{"write":{"perToken":60,"perWorkspace":300,"windowSeconds":60}}`;
   * groups and defaults are listed in docs/operations.md.
   */
  RATE_LIMITS: optionalString,
});

/**
 * The image-generation provider of branded visuals' `aiBackground` (api/visuals): an OpenAI-compatible images
 * API. Without a URL and key there is none: options say `available: false` and such renders get a 400.
 */
export const imageGenerationSettings = defineSettings(
  {
    /** Base URL of an OpenAI-compatible images API, e.g. https://api.openai.com/v1 (`/images/generations` is added). */
    IMAGE_GENERATION_URL: optionalUrl,
    /** Its API key (sent as a Bearer token); required with IMAGE_GENERATION_URL. */
    IMAGE_GENERATION_API_KEY: optionalString,
    /** The model used when a render names none (default `gpt-image-1`). */
    IMAGE_GENERATION_MODEL: optionalString,
    /**
     * Threads of the branded-visuals render pool. Default: the machine's cores less one (at least one), so
     * requests keep a core while renders run (docs/performance.md, "Branded visuals").
     */
    RENDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
    /** Renders (queued or running) one workspace may have at once; one more is a 429 (docs/security.md). */
    RENDER_QUEUE_PER_WORKSPACE: z.coerce.number().int().min(1).max(1000).default(4),
    /** Renders (queued or running) the service takes at once over every workspace; one more is a 503. */
    RENDER_QUEUE_TOTAL: z.coerce.number().int().min(1).max(10_000).default(32),
    /** How long one render task (an image, a slide, a logo) may run before its thread is ended (seconds). */
    RENDER_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(20),
  },
  (env, ctx) => {
    if (env.IMAGE_GENERATION_URL && !env.IMAGE_GENERATION_API_KEY)
      ctx.addIssue({
        code: 'custom',
        path: ['IMAGE_GENERATION_API_KEY'],
        message: 'is required when IMAGE_GENERATION_URL is set',
      });
    if (env.IMAGE_GENERATION_API_KEY && !env.IMAGE_GENERATION_URL)
      ctx.addIssue({
        code: 'custom',
        path: ['IMAGE_GENERATION_URL'],
        message: 'is required when IMAGE_GENERATION_API_KEY is set (e.g. https://api.openai.com/v1)',
      });
  },
);

/**
 * Every fragment the environment is made of, platform first. A slice's `settings` must be one of these (the
 * runtime refuses to start otherwise): the environment is parsed before anything else is built, so its schema
 * is composed here, statically, and the adapters share its type.
 */
export const settingsFragments = [
  platformSettings,
  storageSettings,
  authSettings,
  socialAccountSettings,
  publishingSettings,
  signInSettings,
  billingSettings,
  rateLimitSettings,
  imageGenerationSettings,
] as const;

export const envSchema = composeSettings(settingsFragments);

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
