// Success-response helpers for createRoute: the spec's `{ data: … }` envelope and JSON content blocks,
// so a route declares `200: jsonResponse(dataOf(Workspace), 'The workspace')` in one line.
import { z } from '@hono/zod-openapi';

/** The success body `{ data: T }`. */
export function dataOf<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

/** A JSON response entry for createRoute's `responses`. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

/** A required JSON request body for createRoute's `request.body`. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return {
    required: true,
    ...(description !== undefined ? { description } : {}),
    content: { 'application/json': { schema } },
  } as const;
}
