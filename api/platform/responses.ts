// Success-response helpers for createRoute: the spec's `{ data: … }` envelope and JSON content blocks,
// so a route declares `200: jsonResponse(dataOf(Workspace), 'The workspace')` in one line; and typed answers
// of JSON written already (stored JSON passed on as it is).
import { z } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';
import { asJsonText, type JsonText } from '../../domain/shared/json-text.js';
import type { Page } from '../../domain/shared/page.js';

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

/**
 * `{ data: page }` written around items that are JSON text already (stored JSON passed on as it is), as c.json
 * would write it: the items first, then where the page is.
 */
export function dataPageJson<T>(page: Page<JsonText<T>>): JsonText<{ data: Page<T> }> {
  const { items, ...where } = page;
  return asJsonText(`{"data":{"items":[${items.join(',')}],${JSON.stringify(where).slice(1)}}`);
}

/**
 * An answer whose JSON is already written, typed as the value it encodes: a route's handler returns it like
 * c.json's answer, so the route's declared schema checks it the same way.
 */
export function jsonTextResponse<T, S extends ContentfulStatusCode>(
  c: Context,
  text: JsonText<T>,
  status: S,
): Response & TypedResponse<JSONParsed<T>, S, 'json'> {
  const response: Response = c.body(text, status, { 'Content-Type': 'application/json' });
  // The text is the JSON of a T (JsonText says so); only its declared format differs from c.json's.
  return response as Response & TypedResponse<JSONParsed<T>, S, 'json'>;
}
