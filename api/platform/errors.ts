// One mapping from thrown errors to the spec's error body and status: routes throw, app.onError answers.
// Also the OpenAPI schemas of that body, so a route declares its error responses in one line.
import { z, type Hook } from '@hono/zod-openapi';
import type { Context, ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import {
  AppError,
  InvalidFields,
  TooManyRequests,
  ValidationError,
  type ErrorDetail,
} from '../../domain/shared/errors.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { AppEnv } from './app-env.js';

export const errorDetailSchema = z
  .object({
    path: z.string().openapi({ example: 'body.name' }),
    message: z.string(),
  })
  .openapi('ErrorDetail');

export const errorBodySchema = z
  .object({
    error: z.string().openapi({ description: 'Human-readable message' }),
    code: z.string().optional().openapi({ description: 'Stable code, present where a client should branch' }),
    details: z.array(errorDetailSchema).optional().openapi({ description: 'One entry per problem' }),
  })
  .openapi('Error');

export const rateLimitErrorBodySchema = z
  .object({
    error: z.string(),
    code: z.literal('rate_limit_exceeded'),
    retryAfterSeconds: z.number().int().min(0),
  })
  .openapi('RateLimitError');

export type ErrorBody = z.infer<typeof errorBodySchema>;

const errorDescriptions = {
  400: 'Body, query or path failed validation',
  401: 'Token missing, invalid or expired',
  402: 'The plan does not allow the action now',
  403: 'Role or workspace does not allow it',
  404: 'Resource not in this workspace',
  409: 'Conflicts with the current state',
  410: 'Deleted for good (e.g. a deleted workspace)',
  413: 'Request body too large',
  415: 'Unsupported media type',
  422: 'Refused; one detail per bad field',
  429: 'Too many requests',
  500: 'Internal error',
  503: 'Service unavailable',
} as const;

export type ErrorStatus = keyof typeof errorDescriptions;

interface ErrorResponseConfig {
  description: string;
  headers?: Record<string, { description: string; schema: { type: 'string' | 'integer' } }>;
  content: { 'application/json': { schema: typeof errorBodySchema | typeof rateLimitErrorBodySchema } };
}

/** Error responses for createRoute: `responses: { 200: …, ...errorResponses(400, 401, 403, 404) }`. */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]): Record<S, ErrorResponseConfig> {
  const out = {} as Record<S, ErrorResponseConfig>;
  for (const status of statuses) {
    const config: ErrorResponseConfig = {
      description: errorDescriptions[status],
      content: {
        'application/json': { schema: status === 429 ? rateLimitErrorBodySchema : errorBodySchema },
      },
    };
    if (status === 401) {
      config.headers = {
        'WWW-Authenticate': { description: 'Bearer challenge (RFC 6750)', schema: { type: 'string' } },
      };
    }
    if (status === 429) {
      config.headers = { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } };
    }
    out[status] = config;
  }
  return out;
}

/** Turns zod issues into the spec's `details`, each path prefixed by where the input came from. */
export function zodDetails(error: Pick<ZodError, 'issues'>, prefix: string): ErrorDetail[] {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String);
      let message = issue.message;
      // zod reports a missing field as a type mismatch against undefined; "Required" is what a client means.
      if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) message = 'Required';
      // Unknown keys come as one issue on the parent naming them all; split so each path is a field.
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => ({
          path: [prefix, ...path, key].join('.'),
          message: 'Unknown field',
        }));
      }
      return [{ path: [prefix, ...path].join('.'), message }];
    })
    .flat();
}

const targetPrefix: Record<string, string> = {
  json: 'body',
  form: 'body',
  query: 'query',
  param: 'param',
  header: 'header',
  cookie: 'cookie',
};

/**
 * The one validation hook for every OpenAPIHono route: a failed zod parse becomes a ValidationError,
 * which app.onError renders as 400 with `details`.
 */
export const defaultHook: Hook<unknown, AppEnv, string, undefined> = (result) => {
  if (result.success) return undefined;
  throw new ValidationError(
    'Invalid request',
    undefined,
    zodDetails(result.error, targetPrefix[result.target] ?? result.target),
  );
};

/**
 * Where a request carries a field the domain names (InvalidFields): every write takes the domain's fields in its
 * JSON body under the same names, except the settings a post PATCH takes at the top level, which the domain
 * names as the command's payload patch (`payloadPatch.poll.options` arrived as `body.poll.options`).
 */
export function requestPathOf(domainPath: string): string {
  return `body.${inputPathOf(domainPath)}`;
}

/** The input field a domain field arrived as (the post PATCH's payload settings at the input's top level). */
export function inputPathOf(domainPath: string): string {
  return domainPath.replace(/^payloadPatch\./, '');
}

function detailsOf(error: AppError): ErrorDetail[] | undefined {
  if (!(error instanceof InvalidFields) || error.details === undefined) return error.details;
  return error.details.map((d) => ({ path: requestPathOf(d.path), message: d.message }));
}

/** Maps an error the platform does not know (e.g. WrongExpectedVersion) to an AppError, or passes. */
export type ErrorMapper = (error: unknown) => AppError | undefined;

interface Rendered {
  status: ContentfulStatusCode;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** The HTTP answer an error gets (status, the spec's error body, headers); undefined for an unexpected one (a 500). */
export function renderError(error: unknown, mappers: readonly ErrorMapper[] = []): Rendered | undefined {
  return render(error, mappers);
}

function render(error: unknown, mappers: readonly ErrorMapper[]): Rendered | undefined {
  for (const mapper of mappers) {
    const mapped = mapper(error);
    if (mapped) return render(mapped, []);
  }
  if (error instanceof AppError) {
    const body: Record<string, unknown> = { error: error.message };
    if (error.code !== undefined) body.code = error.code;
    const details = detailsOf(error);
    if (details !== undefined && details.length > 0) body.details = details;
    const headers: Record<string, string> = {};
    if (error instanceof TooManyRequests) {
      const seconds = Math.max(0, Math.ceil(error.retryAfterSeconds));
      body.retryAfterSeconds = seconds;
      headers['Retry-After'] = String(seconds);
    }
    if (error.status === 401) headers['WWW-Authenticate'] = challengeOf(error);
    return { status: error.status, body, headers };
  }
  if (error instanceof HTTPException) {
    // hono's JSON validator throws this when the body does not parse; the spec's wording is ours to choose.
    if (error.status === 400 && /^Malformed JSON/.test(error.message)) {
      return { status: 400, body: { error: 'Malformed JSON body' }, headers: {} };
    }
    if (error.status >= 500) return undefined;
    const headers: Record<string, string> = {};
    if (error.status === 401) headers['WWW-Authenticate'] = 'Bearer';
    const status = error.status;
    return { status, body: { error: error.message || defaultMessage(status) }, headers };
  }
  return undefined;
}

function defaultMessage(status: number): string {
  return status in errorDescriptions ? errorDescriptions[status as ErrorStatus] : 'Request failed';
}

/** Errors that know their own RFC 6750 challenge (e.g. `Bearer error="invalid_token"`) carry it here. */
function challengeOf(error: AppError): string {
  const challenge = (error as { challenge?: unknown }).challenge;
  return typeof challenge === 'string' ? challenge : 'Bearer';
}

/** Builds the response for any thrown value; unknown errors become a logged 500 without internals. */
export function errorResponse(
  c: Context<AppEnv>,
  error: unknown,
  options: { mappers?: readonly ErrorMapper[]; logger?: Logger } = {},
): Response {
  const rendered = render(error, options.mappers ?? []);
  if (!rendered) {
    // The request logger may not be on the context yet if the failure came before it.
    const logger = (c.get('logger') as Logger | undefined) ?? options.logger;
    logger?.error({ err: error, reqId: c.get('requestId') }, 'unhandled error');
    return c.json({ error: 'Internal error' }, 500);
  }
  for (const [name, value] of Object.entries(rendered.headers)) c.header(name, value);
  return c.json(rendered.body, rendered.status);
}

/** The app.onError handler; `mappers` let other layers (event store conflicts, billing) join the mapping. */
export function createErrorHandler(
  options: { mappers?: readonly ErrorMapper[]; logger?: Logger } = {},
): ErrorHandler<AppEnv> {
  return (error, c) => errorResponse(c, error, options);
}
