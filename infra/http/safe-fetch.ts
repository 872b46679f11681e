// The one fetcher for user-supplied URLs (ARCHITECTURE "Outbound HTTP"): http/https on ports 80/443 only, the
// address resolved once, checked and pinned, private ranges refused, redirects followed by hand, size/time caps.
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export class UnsafeUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

/** The body is (or says it is) longer than the fetch's `maxBytes`. */
export class ResponseTooLargeError extends UnsafeUrlError {
  constructor(readonly maxBytes: number) {
    super(`The response is larger than ${maxBytes} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

/** The overall deadline passed; named as `AbortSignal.timeout` names its reason, so callers treat both alike. */
export class FetchDeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

/**
 * What a caller is told of an outbound fetch that failed once its URL passed `checkUrl`: the same words whether
 * the host resolves to a private address, does not resolve, refuses, answers an error status or is too slow, so
 * answers draw no map of the network behind this server. The real reason (`fetchFailureReason`) is logged only.
 */
export const fetchFailedMessage = 'could not be fetched';

/** The real reason a fetch failed, for the server's log: the error's name, code and message, one line. */
export function fetchFailureReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message}`.slice(0, 500);
}

// IPv6 global unicast is allocated from 2000::/3 only; anything else (::/96 IPv4-compatible, 64:ff9b::/96 and
// 64:ff9b:1::/48 NAT64, 100::/64 discard, 5f00::/16 …) never names a public host.
const globalUnicastV6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether an address is anything but global unicast: private, loopback, link-local (cloud metadata), shared,
 * reserved, documentation, multicast, or an IPv6 form that embeds an IPv4 address (6to4, NAT64, Teredo,
 * IPv4-compatible, IPv4-translated). IPv4-mapped IPv6 is judged as the IPv4 address it maps. The ranges are
 * ipaddr.js's (RFC 6890 registries), so a new special range arrives with the library rather than by hand.
 */
export function isPrivateAddress(address: string): boolean {
  // Canonical literals only (no zone ids, no `0x7f.1`): DNS answers and URL host names are canonical already.
  const family = isIP(address);
  if (family === 0 || address.includes('%')) return true;
  // ipaddr.js reads the dotted tail of `::8.8.8.8` (IPv4-compatible) as `::ffff:8.8.8.8` (mapped); the URL
  // parser writes every IPv6 address in hex first, so each form is judged as what it is.
  let parsed = ipaddr.parse(family === 6 ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && !parsed.match(globalUnicastV6);
}

/** Resolves a host name to every address it has (the system resolver unless one is injected). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** Where a fetch may go. Production code sets none of the test seams; nothing reads them from the environment. */
export interface OutboundPolicy {
  /**
   * Servers on loopback or private addresses the fetcher may reach anyway, on any port. `true`
   * allows every one; a list allows only those origins (`http://127.0.0.1:4100`), so a test can show that
   * everything else stays refused. Set by tests, and from OUTBOUND_ALLOW_ORIGINS (a list of exact origins the
   * operator opens, never `true`).
   */
  allowPrivate?: boolean | readonly string[];
  /** Refuse plain http, redirects included (for protocols whose servers must be https). */
  requireHttps?: boolean;
  /** At most this many redirects, each checked like the first URL (default 5). */
  maxRedirects?: number;
  /** Tests: resolve host names here instead of the system resolver; the answers are checked all the same. */
  resolve?: Resolver;
}

export interface SafeFetchOptions extends OutboundPolicy {
  /** The body may be at most this long; a longer one fails while it streams (or at once, by Content-Length). */
  maxBytes: number;
  /** One deadline for everything: resolving, connecting, headers, every redirect and the whole body. */
  timeoutMs: number;
  signal?: AbortSignal;
  method?: string;
  headers?: ConstructorParameters<typeof Headers>[0];
  body?: Uint8Array;
  /** As in fetch: `follow` (checked hop by hop), `manual` (the 3xx is the answer) or `error`. */
  redirect?: 'follow' | 'manual' | 'error';
}

export interface SafeFetchResponse {
  status: number;
  statusText: string;
  headers: Headers;
  contentType: string;
  /** The URL that answered, after redirects. */
  url: string;
  redirected: boolean;
  /**
   * The body as it arrives, never more than `maxBytes` and within the deadline; it errors past either, and
   * cancelling it closes the connection. Read or cancel it: the connection stays open until one happens
   * or the deadline passes.
   */
  body: ReadableStream<Uint8Array>;
}

export interface SafeFetchResult {
  status: number;
  contentType: string;
  body: Uint8Array;
  url: string;
}

function allowsPrivate(policy: OutboundPolicy, url: URL): boolean {
  const allowed = policy.allowPrivate;
  if (allowed === true) return true;
  if (!allowed) return false;
  return allowed.some((origin) => new URL(origin).origin === url.origin);
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Throws UnsafeUrlError unless the URL may be fetched as far as it says by itself: http/https (https only when
 * required), ports 80/443, and no address literal or `localhost` name that is not public. What a host name
 * resolves to is checked when it is fetched.
 */
export function checkUrl(url: URL, policy: OutboundPolicy = {}): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UnsafeUrlError(`Only http and https URLs can be fetched (got ${url.protocol})`);
  if (policy.requireHttps && url.protocol !== 'https:')
    throw new UnsafeUrlError(`Only https URLs can be fetched here (got ${url.origin})`);
  if (url.username || url.password) throw new UnsafeUrlError('URLs with credentials are not fetched');
  if (allowsPrivate(policy, url)) return;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (port !== 80 && port !== 443) throw new UnsafeUrlError('Only ports 80 and 443 are allowed');
  const host = hostOf(url).toLowerCase();
  if (isIP(host) ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost'))
    throw new UnsafeUrlError(`${host} is a private address`);
}

async function resolveChecked(url: URL, policy: OutboundPolicy): Promise<LookupAddress[]> {
  const host = hostOf(url);
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await (policy.resolve ?? systemResolver)(host);
  if (addresses.length === 0) throw new UnsafeUrlError(`${host} does not resolve`);
  if (!allowsPrivate(policy, url) && addresses.some((a) => isPrivateAddress(a.address)))
    throw new UnsafeUrlError(`${host} resolves to a private address`);
  return addresses;
}

/**
 * Pinned: the connection goes to the addresses that were checked, whatever DNS says a moment later. Node 20+
 * connects with `autoSelectFamily`, which asks for `all: true` and expects a list; without it, one address.
 */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) return callback(null, addresses);
    const first = addresses.find((a) => !options.family || a.family === options.family) ?? addresses[0]!;
    callback(null, first.address, first.family);
  };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

interface Hop {
  url: URL;
  method: string;
  headers: Headers;
  body?: Uint8Array;
}

/** One request to pinned addresses; an abort destroys the request, and the response once it has come. */
function send(hop: Hop, addresses: LookupAddress[], signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const headers: Record<string, string> = {};
    hop.headers.forEach((value, name) => {
      if (!['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(name))
        headers[name] = value;
    });
    if (hop.body) headers['content-length'] = String(hop.body.byteLength);
    const client = hop.url.protocol === 'https:' ? https : http;
    // No shared agent: a pooled socket is keyed by host and port, not by the address that was checked.
    const request = client.request(hop.url, {
      method: hop.method,
      headers,
      agent: false,
      lookup: pinnedLookup(addresses),
    });
    let response: http.IncomingMessage | undefined;
    const onAbort = () => {
      const reason = signal.reason as Error;
      request.destroy(reason);
      response?.destroy(reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const release = () => signal.removeEventListener('abort', onAbort);
    request.once('response', (res) => {
      response = res;
      res.once('close', release);
      resolve(res);
    });
    request.once('error', (error) => {
      release();
      reject(error);
    });
    request.end(hop.body);
  });
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'dpop'];
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location'];

/** The request a redirect asks for, as fetch makes it: credentials stay with their origin. */
function nextHop(hop: Hop, status: number, url: URL): Hop {
  const headers = new Headers(hop.headers);
  if (url.origin !== hop.url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  // 303, and 301/302 after a POST, become a GET without a body; 307/308 resend the request as it was.
  if (
    (status === 303 && hop.method !== 'HEAD') ||
    ((status === 301 || status === 302) && hop.method === 'POST')
  ) {
    for (const name of BODY_HEADERS) headers.delete(name);
    return { url, method: 'GET', headers };
  }
  return { url, method: hop.method, headers, ...(hop.body ? { body: hop.body } : {}) };
}

function tooLarge(maxBytes: number): UnsafeUrlError {
  return new ResponseTooLargeError(maxBytes);
}

/** The response body as a stream that stops past `maxBytes`; `finish` runs once when it ends in any way. */
function cappedBody(
  response: http.IncomingMessage,
  maxBytes: number,
  finish: () => void,
): ReadableStream<Uint8Array> {
  let size = 0;
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const settle = (error?: unknown) => {
        if (settled) return;
        settled = true;
        finish();
        if (error === undefined) controller.close();
        else controller.error(error);
      };
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.byteLength;
        if (size > maxBytes) {
          settle(tooLarge(maxBytes));
          response.destroy();
          return;
        }
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) response.pause();
      });
      response.once('end', () => settle());
      response.once('error', (error) => settle(error));
      response.once('close', () =>
        settle(
          response.complete ? undefined : new Error('The connection closed before the body was complete'),
        ),
      );
    },
    pull() {
      response.resume();
    },
    cancel() {
      settled = true;
      finish();
      response.destroy();
    },
  });
}

/**
 * Fetches a URL nobody vouches for and answers as soon as the headers are in, with the body as a capped
 * stream. Every hop is checked (scheme, port, every resolved address) and pinned; one deadline covers all of it.
 */
export async function safeFetchStream(rawUrl: string, options: SafeFetchOptions): Promise<SafeFetchResponse> {
  let hop: Hop = {
    url: new URL(rawUrl),
    method: (options.method ?? 'GET').toUpperCase(),
    headers: new Headers(options.headers),
    ...(options.body ? { body: options.body } : {}),
  };
  const deadline = new AbortController();
  const timer = setTimeout(
    () =>
      deadline.abort(
        new FetchDeadlineError(`Fetching ${hop.url.host} took longer than ${options.timeoutMs} ms`),
      ),
    options.timeoutMs,
  );
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  const finish = () => clearTimeout(timer);
  const maxRedirects = options.maxRedirects ?? 5;
  try {
    for (let redirects = 0; ; redirects++) {
      checkUrl(hop.url, options);
      const addresses = await abortable(resolveChecked(hop.url, options), signal);
      const response = await send(hop, addresses, signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location !== undefined && options.redirect !== 'manual') {
        response.destroy();
        if (options.redirect === 'error')
          throw new UnsafeUrlError(`${hop.url.host} answered with a redirect, which this request refuses`);
        if (redirects >= maxRedirects) throw new UnsafeUrlError('Too many redirects');
        hop = nextHop(hop, status, new URL(location, hop.url));
        continue;
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy();
        throw tooLarge(options.maxBytes);
      }
      const headers = responseHeaders(response.rawHeaders);
      return {
        status,
        statusText: response.statusMessage ?? '',
        headers,
        contentType: headers.get('content-type') ?? 'application/octet-stream',
        url: hop.url.toString(),
        redirected: redirects > 0,
        body: cappedBody(response, options.maxBytes, finish),
      };
    }
  } catch (error) {
    finish();
    throw error;
  }
}

/** Reads a whole body (already capped by the fetcher) into one array. */
export async function readBody(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** `safeFetchStream` with the body read into memory, for small answers (metadata, documents, images). */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeFetchResult> {
  const response = await safeFetchStream(rawUrl, options);
  return {
    status: response.status,
    contentType: response.contentType,
    body: await readBody(response.body),
    url: response.url,
  };
}

/** Statuses whose responses have no body in fetch (`new Response` refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for libraries that fetch URLs taken from what others publish (AT Protocol DID documents, OAuth
 * metadata): every call goes through `safeFetchStream` under this policy. Request bodies are buffered (they are
 * ours and small), redirects follow the request's own `redirect` mode, each hop checked.
 */
export function createSafeFetch(
  policy: OutboundPolicy & { timeoutMs: number; maxBytes: number },
): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const result = await safeFetchStream(request.url, {
      ...policy,
      method: request.method,
      headers: request.headers,
      redirect: request.redirect,
      signal: request.signal,
      ...(body ? { body } : {}),
    });
    const empty = request.method === 'HEAD' || NULL_BODY_STATUSES.has(result.status);
    if (empty) await result.body.cancel();
    const response = new Response(empty ? null : result.body, {
      status: result.status,
      statusText: result.statusText,
      headers: result.headers,
    });
    Object.defineProperties(response, {
      url: { value: result.url },
      redirected: { value: result.redirected },
    });
    return response;
  };
}
