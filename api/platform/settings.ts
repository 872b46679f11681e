// The platform slice's environment variables (api/platform/slice.ts): the process, database, event store, bus,
// token encryption, request limits, logging and rate limits. Every slice's context has these (api/shared/slice-context.ts).
import { z } from 'zod';
import {
  defineSettings,
  bool,
  optionalString,
  optionalUrl,
  originList,
  port,
  type SettingsOf,
} from '../../infra/config/env.js';
import { isKurrentConnectionString } from '../../infra/event-store/eventstoredb/connection-string.js';
import { parseTrustedProxyList } from '../../infra/http/trusted-proxies.js';

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
    /**
     * Origins on loopback or private addresses that the readers of user-supplied addresses (websites, logo links,
     * media imports) may reach anyway, exactly these (scheme, host and port): an intranet site of the operator's own.
     * Unset (the default), every private and loopback address is refused.
     */
    OUTBOUND_ALLOW_ORIGINS: originList,
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

export type PlatformEnv = SettingsOf<typeof platformSettings>;

export type RateLimitEnv = SettingsOf<typeof rateLimitSettings>;
