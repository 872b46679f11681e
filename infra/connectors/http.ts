// One HTTP call helper for live connectors: timeouts, JSON, and the mapping of failures to ConnectorError
// kinds, so every connector classifies a 401, a 429 or a lost answer the same way.
import { sanitizeErrorText } from '../logging/redact.js';
import { ConnectorError } from './port.js';

export interface LiveConnectorOptions {
  /** Replaced in tests by a locally served platform. */
  fetch?: typeof fetch;
  /** Per call; a create call that runs out of time has an unknown outcome. */
  timeoutMs?: number;
  now?: () => Date;
}

export interface PlatformRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** JSON-encoded unless it is already a string, URLSearchParams, FormData or bytes. */
  body?: unknown;
  /**
   * `create` calls make something on the platform: a lost answer or a 5xx means the outcome is unknown.
   * `read` calls (and creates the platform de-duplicates) can simply be tried again.
   */
  effect: 'create' | 'read';
  signal?: AbortSignal;
  /** Statuses returned to the caller instead of thrown (e.g. 404 on delete or on a status lookup). */
  passStatuses?: number[];
}

export interface PlatformResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** Retry-After (seconds or an HTTP date) or a reset epoch header (X's `x-rate-limit-reset`), in ms from now. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const retryAfter = headers.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  const reset = headers.get('x-rate-limit-reset') ?? headers.get('x-ratelimit-reset');
  if (reset) {
    const value = Number(reset);
    // Reddit sends seconds until reset; X sends an epoch in seconds.
    if (Number.isFinite(value)) return value > 1e9 ? Math.max(0, value * 1000 - now) : value * 1000;
  }
  return undefined;
}

function encodeBody(body: unknown, headers: Record<string, string>): RequestInit['body'] {
  if (body === undefined) return undefined;
  if (
    typeof body === 'string' ||
    body instanceof URLSearchParams ||
    body instanceof FormData ||
    body instanceof Uint8Array ||
    body instanceof Blob
  )
    return body as RequestInit['body'];
  headers['content-type'] ??= 'application/json';
  return JSON.stringify(body);
}

/** What the platform said went wrong: one line, at most 400 characters, tokens redacted. */
function platformMessage(body: unknown, fallback: string): string {
  return sanitizeErrorText(rawPlatformMessage(body) || fallback, 400) || fallback;
}

function rawPlatformMessage(body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    for (const key of ['detail', 'message', 'error_description', 'title', 'error']) {
      const value = b[key];
      if (typeof value === 'string' && value) return value;
      if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string')
        return (value as { message: string }).message;
    }
  }
  return typeof body === 'string' ? body.slice(0, 4000) : '';
}

/**
 * Calls a platform and returns its parsed answer, or throws ConnectorError:
 * 401 → auth; 429 → rate_limited (with the platform's retry time); other 4xx → permanent;
 * 5xx and lost answers → unknown_outcome for creates, retryable for reads; failures to connect → retryable.
 */
export async function platformCall<T = unknown>(
  platform: string,
  request: PlatformRequest,
  options: LiveConnectorOptions = {},
): Promise<PlatformResponse<T>> {
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await doFetch(request.url, {
      method: request.method ?? 'GET',
      headers,
      body: encodeBody(request.body, headers),
      signal,
    });
  } catch (error) {
    const cause = error as { name?: string; cause?: { code?: string } };
    const refused = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(cause.cause?.code ?? '');
    const kind = refused || request.effect === 'read' ? 'retryable' : 'unknown_outcome';
    const what =
      cause.name === 'TimeoutError' ? 'timed out' : `failed (${cause.cause?.code ?? String(error)})`;
    throw new ConnectorError(
      kind,
      `${platform}: ${request.method ?? 'GET'} ${new URL(request.url).pathname} ${what}`,
    );
  }
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  if (text && (response.headers.get('content-type') ?? '').includes('json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (response.ok || request.passStatuses?.includes(response.status))
    return { status: response.status, headers: response.headers, body: body as T };
  const message = `${platform}: ${platformMessage(body, `HTTP ${response.status}`)} (HTTP ${response.status})`;
  const status = response.status;
  if (status === 401) throw new ConnectorError('auth', message, { status });
  if (status === 429) {
    const wait = retryAfterMs(response.headers, (options.now?.() ?? new Date()).getTime());
    throw new ConnectorError('rate_limited', message, {
      status,
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    });
  }
  if (status >= 500)
    throw new ConnectorError(request.effect === 'create' ? 'unknown_outcome' : 'retryable', message, {
      status,
    });
  throw new ConnectorError('permanent', message, { status });
}
