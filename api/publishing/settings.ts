// The publishing slice's environment variables (api/publishing/slice.ts).
import { z } from 'zod';
import { defineSettings, type SettingsOf } from '../../infra/config/env.js';

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

export type PublishingEnv = SettingsOf<typeof publishingSettings>;
