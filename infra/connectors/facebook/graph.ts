// Calls to Meta's Graph APIs (Facebook Pages, Instagram, Threads) and the mapping of Graph error bodies to
// ConnectorError kinds, shared by the three Meta connectors so a code 190 or a rate-limit code means one thing.
import {
  platformCall,
  retryAfterMs,
  type LiveConnectorOptions,
  type PlatformRequest,
  type PlatformResponse,
} from '../http.js';
import { ConnectorError } from '../port.js';

interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  is_transient?: boolean;
}

/** Graph answers almost every refusal with 400 and says what it was in `error.code`, so all 4xx are read here. */
const clientErrorStatuses = Array.from({ length: 100 }, (_, i) => 400 + i);

/** Application, user, page and business-use-case throttling (Graph "Rate Limiting" and error-code references). */
const rateLimitCodes = new Set([
  4, 17, 32, 341, 613, 80001, 80002, 80003, 80004, 80005, 80006, 80008, 80009, 80014,
]);
/** 190: invalid or expired token; 102: session expired; 463/467 are 190's subcodes but arrive alone on old versions. */
const authCodes = new Set([102, 190, 463, 467]);

function graphErrorOf(body: unknown): GraphErrorBody | null {
  if (body && typeof body === 'object' && 'error' in body) {
    const error = body.error;
    if (error && typeof error === 'object') return error;
  }
  return null;
}

/** Graph's usage headers say, in minutes, when a throttled app or page may call again. */
function usageRetryMs(headers: Headers): number | undefined {
  for (const name of ['x-business-use-case-usage', 'x-page-usage', 'x-app-usage']) {
    const raw = headers.get(name);
    if (!raw) continue;
    try {
      const minutes: number[] = [];
      const collect = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(collect);
        else if (value && typeof value === 'object') {
          const m = (value as Record<string, unknown>).estimated_time_to_regain_access;
          if (typeof m === 'number') minutes.push(m);
          Object.values(value).forEach(collect);
        }
      };
      collect(JSON.parse(raw));
      const longest = Math.max(0, ...minutes);
      if (longest > 0) return longest * 60_000;
    } catch {
      // a malformed usage header only loses the hint
    }
  }
  return undefined;
}

/** Whether a Graph refusal says the object does not exist (deleted, or never was). */
export function isGraphNotFound(error: unknown): boolean {
  return (
    error instanceof ConnectorError &&
    error.kind === 'permanent' &&
    (error.details.status === 404 || error.details.platformCode === '100:33')
  );
}

/**
 * Whether a Graph refusal says the token lacks a permission: code 10 ("Application does not have permission for
 * this action") or 200–299 (permissions errors), per Graph's error-code reference.
 */
export function isGraphPermissionError(error: unknown): error is ConnectorError {
  if (!(error instanceof ConnectorError) || error.kind !== 'permanent') return false;
  const code = Number((error.details.platformCode ?? '').split(':')[0]);
  return code === 10 || (code >= 200 && code <= 299);
}

/** A follower-count read refused for a permission the grant lacks (the reader records it as needs_permission). */
export function audiencePermissionError(
  platform: string,
  permission: string,
  error: ConnectorError,
): ConnectorError {
  return new ConnectorError(
    'permanent',
    `${platform}: reading follower counts needs the ${permission} permission; reconnect the account to grant it (${error.message})`,
    {
      ...(error.details.status !== undefined ? { status: error.details.status } : {}),
      platformCode: 'needs_permission',
    },
  );
}

export function graphError(
  platform: string,
  response: PlatformResponse,
  effect: PlatformRequest['effect'],
  now: Date,
): ConnectorError {
  const { status, headers, body } = response;
  const error = graphErrorOf(body);
  const code = error?.code;
  const subcode = error?.error_subcode;
  const text = error?.message ?? (typeof body === 'string' && body ? body.slice(0, 300) : `HTTP ${status}`);
  const codeText = code === undefined ? '' : `code ${code}${subcode ? `/${subcode}` : ''}, `;
  const message = `${platform}: ${text} (${codeText}HTTP ${status})`;
  const platformCode = code === undefined ? undefined : subcode ? `${code}:${subcode}` : String(code);
  const details = { status, ...(platformCode ? { platformCode } : {}) };
  if (status === 429 || (code !== undefined && rateLimitCodes.has(code))) {
    const wait = retryAfterMs(headers, now.getTime()) ?? usageRetryMs(headers);
    return new ConnectorError('rate_limited', message, {
      ...details,
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    });
  }
  if (status === 401 || (code !== undefined && authCodes.has(code)))
    return new ConnectorError('auth', message, details);
  // Codes 1 and 2 are Graph's "try again" answers: nothing was refused, but a create may have happened.
  if (error?.is_transient || code === 1 || code === 2)
    return new ConnectorError(effect === 'create' ? 'unknown_outcome' : 'retryable', message, details);
  return new ConnectorError('permanent', message, details);
}

/**
 * platformCall for a Graph API: 5xx and lost answers are classified by platformCall; 4xx bodies are read here.
 * Statuses in `passStatuses` still come back to the caller.
 */
export async function graphCall<T = unknown>(
  platform: string,
  request: PlatformRequest,
  options: LiveConnectorOptions,
): Promise<PlatformResponse<T>> {
  const response = await platformCall<T>(
    platform,
    { ...request, passStatuses: clientErrorStatuses },
    options,
  );
  if (response.status < 400 || request.passStatuses?.includes(response.status)) return response;
  throw graphError(platform, response, request.effect, options.now?.() ?? new Date());
}

export function bearer(accessToken: string): Record<string, string> {
  return { authorization: `Bearer ${accessToken}` };
}

/** `expires_in` seconds from now as an ISO time; null when the platform did not say. */
export function expiresAt(now: Date, expiresIn: unknown): string | null {
  const seconds = typeof expiresIn === 'number' ? expiresIn : Number(expiresIn);
  return Number.isFinite(seconds) && seconds > 0
    ? new Date(now.getTime() + seconds * 1000).toISOString()
    : null;
}

/** A form body; undefined values are left out. */
export function form(fields: Record<string, string | number | boolean | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) params.set(key, String(value));
  return params;
}

/** The callback's code, or the platform's refusal as a permanent error (the user denied, or the app is misconfigured). */
export function authorizationCode(platform: string, params: Record<string, string>): string {
  if (params.error)
    throw new ConnectorError(
      'permanent',
      `${platform}: authorization was not granted (${params.error_description ?? params.error_reason ?? params.error})`,
    );
  if (!params.code)
    throw new ConnectorError('permanent', `${platform}: the callback carried no authorization code`);
  return params.code;
}

/** The newest item with exactly this text created at or after `since` (a post whose publish answer was lost). */
export function findByText<T extends { text: string | null; createdAt: Date | null }>(
  items: T[],
  contentText: string,
  since: Date,
): T | undefined {
  const wanted = contentText.trim();
  return items.find(
    (item) =>
      item.text !== null &&
      item.text.trim() === wanted &&
      (item.createdAt === null || item.createdAt.getTime() >= since.getTime()),
  );
}

/** Graph timestamps look like `2024-05-01T10:00:00+0000`, which Date.parse reads only with a colon in the offset. */
export function graphTime(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const normalised = value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const time = Date.parse(normalised);
  return Number.isFinite(time) ? new Date(time) : null;
}

/** A Graph insights answer (`/<id>/insights?metric=…`): per metric its lifetime value(s). */
export interface InsightsBody {
  data?: Array<{ name?: string; values?: Array<{ value?: unknown }>; total_value?: { value?: unknown } }>;
}

/** A lifetime metric's value out of an insights answer (`values[]` or `total_value`), or null when absent. */
export function insightValue(body: InsightsBody, name: string): number | null {
  const metric = body.data?.find((m) => m.name === name);
  const value = metric?.values?.[metric.values.length - 1]?.value ?? metric?.total_value?.value;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The calls a Meta connector makes on one Graph API (`<base>/<version>`), with a user or page token. */
export interface GraphClient {
  get: <T>(path: string, token: string, query?: Record<string, string>, signal?: AbortSignal) => Promise<T>;
  post: <T>(
    path: string,
    token: string,
    body: URLSearchParams,
    effect: PlatformRequest['effect'],
    signal?: AbortSignal,
  ) => Promise<T>;
  /** Deletes an object; `not_found` when Graph says it is already gone. */
  remove: (
    path: string,
    token: string,
    signal?: AbortSignal,
  ) => Promise<{ kind: 'deleted' } | { kind: 'not_found' }>;
}

export function graphClient(platform: string, api: string, options: LiveConnectorOptions): GraphClient {
  const withSignal = (signal: AbortSignal | undefined) => (signal ? { signal } : {});
  return {
    async get<T>(path: string, token: string, query: Record<string, string> = {}, signal?: AbortSignal) {
      const url = new URL(`${api}/${path}`);
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
      const response = await graphCall<T>(
        platform,
        { url: url.toString(), headers: bearer(token), effect: 'read', ...withSignal(signal) },
        options,
      );
      return response.body;
    },
    async post<T>(
      path: string,
      token: string,
      body: URLSearchParams,
      effect: PlatformRequest['effect'],
      signal?: AbortSignal,
    ) {
      const response = await graphCall<T>(
        platform,
        {
          method: 'POST',
          url: `${api}/${path}`,
          headers: bearer(token),
          body,
          effect,
          ...withSignal(signal),
        },
        options,
      );
      return response.body;
    },
    async remove(path, token, signal) {
      try {
        await graphCall(
          platform,
          {
            method: 'DELETE',
            url: `${api}/${path}`,
            headers: bearer(token),
            effect: 'read',
            ...withSignal(signal),
          },
          options,
        );
        return { kind: 'deleted' };
      } catch (error) {
        if (isGraphNotFound(error)) return { kind: 'not_found' };
        throw error;
      }
    },
  };
}
