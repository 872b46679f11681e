// Glue between a write route and the write use cases: what the request tells the write pipeline (tracing id,
// time, the Idempotency-Key and the request it must be reused with), and the replay header on the answer.
import type { Context } from 'hono';
import { hashRequest } from '../../commands/shared/idempotency.js';
import type { CommandMetadata } from '../../commands/shared/command-handler.js';
import { writeMetadata, type WriteRequest, type Written } from '../../commands/shared/write-pipeline.js';
import { callerOf } from '../auth/caller.js';
import type { AppEnv } from '../platform/app-env.js';
import type { RouteServices } from './services.js';

/** The metadata of commands a route runs outside the write use cases (registering an external user). */
export function commandMetadata(c: Context<AppEnv>, services: Pick<RouteServices, 'now'>): CommandMetadata {
  return writeMetadata(callerOf(c), {
    correlationId: c.get('requestId'),
    now: (services.now?.() ?? new Date()).toISOString(),
  });
}

/**
 * The write request of this HTTP request: `body` is what the Idempotency-Key must be reused with (with the
 * method and path), `status` the success status the route answers with.
 */
export function writeRequest(
  c: Context<AppEnv>,
  services: Pick<RouteServices, 'now'>,
  body: unknown,
  status: 200 | 201 = 200,
): WriteRequest {
  const key = c.req.header('idempotency-key');
  return {
    correlationId: c.get('requestId'),
    now: (services.now?.() ?? new Date()).toISOString(),
    ...(key !== undefined
      ? {
          idempotency: {
            key,
            requestHash: hashRequest(c.req.method, new URL(c.req.url).pathname, body),
            status,
          },
        }
      : {}),
  };
}

/** A write's output, marking a replayed answer with `Idempotent-Replayed: true`. */
export function answered<Output>(c: Context<AppEnv>, written: Written<Output>): Output {
  if (written.replayed) c.header('Idempotent-Replayed', 'true');
  return written.output;
}
