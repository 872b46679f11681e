// Request parts many routes share: ids in their canonical spelling, the workspace path parameter, the
// Idempotency-Key header and the time-zone field, defined once so validation and the OpenAPI document say the
// same everywhere.
import { z } from '@hono/zod-openapi';
import { isIanaTimezone } from '../../domain/scheduling/time.js';

/**
 * A UUID as we spell it: any case accepted, lower case kept. Ids name streams and per-workspace rules, so a
 * second spelling of an id must never reach them as a second id.
 */
export const canonicalUuid = () => z.uuid().toLowerCase();

export const orgParams = z.object({
  orgId: canonicalUuid().openapi({ param: { name: 'orgId', in: 'path' } }),
});

const uuidSegment =
  /(?<=\/)[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?=\/|$)/g;

/**
 * The request path with every UUID segment of a workspace route (`/v1/orgs/…`) in lower case, so path
 * parameters (`{orgId}`, `{groupId}`, …) reach middleware and handlers canonical, whichever route declares them.
 */
export function canonicalIdsPath(path: string): string {
  return path.startsWith('/v1/orgs/') && /[A-F]/.test(path)
    ? path.replace(uuidSegment, (id) => id.toLowerCase())
    : path;
}

export const idempotencyHeaders = z.object({
  'idempotency-key': z.string().optional().openapi({ description: 'Retry-safe key (1–255 characters)' }),
});

export const timezoneSchema = z
  .string()
  // IANA names only (`Europe/Berlin`, `UTC`); offsets such as `+02:00` are not zones.
  .refine(isIanaTimezone, 'must be an IANA time zone, e.g. Europe/Berlin')
  .openapi({ example: 'Europe/Berlin' });
