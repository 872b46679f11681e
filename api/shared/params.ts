// Request parts many routes share: the workspace path parameter, the Idempotency-Key header and the time-zone
// field, defined once so validation and the OpenAPI document say the same everywhere.
import { z } from '@hono/zod-openapi';

export const orgParams = z.object({ orgId: z.uuid().openapi({ param: { name: 'orgId', in: 'path' } }) });

export const idempotencyHeaders = z.object({
  'idempotency-key': z.string().optional().openapi({ description: 'Retry-safe key (1–255 characters)' }),
});

export function isTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const timezoneSchema = z
  .string()
  .refine(isTimezone, 'must be an IANA time zone, e.g. Europe/Berlin')
  .openapi({ example: 'Europe/Berlin' });
