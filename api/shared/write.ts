// Glue between a write route and the command path: command metadata from the request, and the
// Idempotency-Key header handled the same way on every write endpoint.
import type { Context } from 'hono';
import { hashRequest, parseIdempotencyKey, type StoredResponse } from '../../commands/shared/idempotency.js';
import { runIdempotent, type RecordResponse } from '../../commands/shared/idempotent.js';
import type { CommandMetadata } from '../../commands/shared/command-handler.js';
import type { AppEnv } from '../platform/app-env.js';
import type { RouteServices } from './services.js';

export function commandMetadata(c: Context<AppEnv>, services: RouteServices): CommandMetadata {
  const principal = c.get('principal');
  return {
    orgId: principal.orgId,
    actor: principal.userId,
    correlationId: c.get('requestId'),
    causationId: null,
    now: (services.now?.() ?? new Date()).toISOString(),
  };
}

export interface WriteContext {
  /** Stores the response with the append; pass it to the command's sideWrite. */
  record: RecordResponse | undefined;
  /** Seed for ids derived from the key, so a retried request creates the same resources. */
  idempotencySeed: string | undefined;
}

/** Runs a write once per Idempotency-Key and answers with the (first) response. */
export async function idempotentWrite(
  c: Context<AppEnv>,
  services: RouteServices,
  body: unknown,
  execute: (ctx: WriteContext) => Promise<{ response: StoredResponse; appended: boolean }>,
): Promise<Response> {
  const key = parseIdempotencyKey(c.req.header('idempotency-key'));
  const principal = c.get('principal');
  const request = key
    ? {
        scope: principal.userId,
        key,
        requestHash: hashRequest(c.req.method, new URL(c.req.url).pathname, body),
      }
    : undefined;
  const result = await runIdempotent(services.idempotency, request, (record) =>
    execute({ record, idempotencySeed: request ? `${request.scope}:${request.key}` : undefined }),
  );
  if (result.replayed) c.header('Idempotent-Replayed', 'true');
  return c.json(result.body as object, result.status as 200);
}
