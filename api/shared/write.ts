// Glue between a write route and the command path: command metadata from the request, and the
// Idempotency-Key header handled the same way on every write endpoint.
import type { Context } from 'hono';
import {
  hashRequest,
  parseIdempotencyKey,
  type IdempotencyRequest,
  type StoredResponse,
} from '../../commands/shared/idempotency.js';
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

function idempotencyRequest(c: Context<AppEnv>, body: unknown): IdempotencyRequest | undefined {
  const key = parseIdempotencyKey(c.req.header('idempotency-key'));
  if (!key) return undefined;
  return {
    scope: c.get('principal').userId,
    key,
    requestHash: hashRequest(c.req.method, new URL(c.req.url).pathname, body),
  };
}

/** The answer a keyed write finally gave (after a wait that followed its append) becomes the one replayed. */
export async function amendIdempotentResponse(
  c: Context<AppEnv>,
  services: RouteServices,
  body: unknown,
  response: StoredResponse,
): Promise<void> {
  const request = idempotencyRequest(c, body);
  if (request) await services.idempotency.amend(request, response);
}

/** Runs a write once per Idempotency-Key and answers with the (first) response. */
export async function idempotentWrite(
  c: Context<AppEnv>,
  services: RouteServices,
  body: unknown,
  execute: (ctx: WriteContext) => Promise<{ response: StoredResponse; appended: boolean }>,
): Promise<Response> {
  const request = idempotencyRequest(c, body);
  const result = await runIdempotent(services.idempotency, request, (record) =>
    execute({ record, idempotencySeed: request ? `${request.scope}:${request.key}` : undefined }),
  );
  if (result.replayed) c.header('Idempotent-Replayed', 'true');
  return c.json(result.body as object, result.status as 200);
}
