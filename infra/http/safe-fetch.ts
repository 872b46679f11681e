// The one fetcher for user-supplied URLs (ARCHITECTURE "Outbound HTTP"): http/https on ports 80/443 only, the
// address resolved once, checked and pinned, private ranges refused, redirects followed by hand, size/time caps.
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';

export class UnsafeUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** Whether an address is private, loopback, link-local, metadata or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface SafeFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Tests only: allow loopback and private addresses (never the default). */
  allowPrivate?: boolean;
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface SafeFetchResult {
  status: number;
  contentType: string;
  body: Uint8Array;
  url: string;
}

async function resolveChecked(url: URL, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UnsafeUrlError(`Only http and https URLs can be fetched (got ${url.protocol})`);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!allowPrivate && port !== 80 && port !== 443)
    throw new UnsafeUrlError('Only ports 80 and 443 are allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true });
  const first = addresses[0];
  if (!first) throw new UnsafeUrlError(`${host} does not resolve`);
  if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address)))
    throw new UnsafeUrlError(`${host} resolves to a private address`);
  return first;
}

function requestOnce(
  url: URL,
  pinned: { address: string; family: number },
  options: SafeFetchOptions,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Uint8Array }> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.get(
      url,
      {
        // Pinned: the connection goes to the address that was checked, whatever DNS says a moment later.
        lookup: (_host, _opts, callback) => callback(null, pinned.address, pinned.family),
        timeout: options.timeoutMs,
        signal: options.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let failed = false;
        const fail = (error: Error) => {
          if (failed) return;
          failed = true;
          res.destroy();
          req.destroy();
          reject(error);
        };
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes)
            fail(new UnsafeUrlError(`The file is larger than ${options.maxBytes} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          if (failed) return;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: new Uint8Array(Buffer.concat(chunks)),
          });
        });
        res.on('error', fail);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`Fetching ${url.host} timed out`)));
    req.on('error', reject);
  });
}

export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<SafeFetchResult> {
  let url = new URL(rawUrl);
  for (let hop = 0; hop <= (options.maxRedirects ?? 5); hop++) {
    const pinned = await resolveChecked(url, options.allowPrivate === true);
    const res = await requestOnce(url, pinned, options);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url);
      continue;
    }
    return {
      status: res.status,
      contentType: String(res.headers['content-type'] ?? 'application/octet-stream'),
      body: res.body,
      url: url.toString(),
    };
  }
  throw new UnsafeUrlError('Too many redirects');
}
