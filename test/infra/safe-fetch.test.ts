// The fetcher for user-supplied URLs: private and loopback addresses refused (IPv4-mapped IPv6 included),
// ports other than 80/443 and other schemes refused, redirects followed by hand, size capped while the body
// streams, one deadline for the whole fetch; loopback only when allowed (every hop goes through the same check,
// so a redirect to a private address is refused alike).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  createSafeFetch,
  isPrivateAddress,
  readBody,
  safeFetch,
  safeFetchStream,
  UnsafeUrlError,
} from '../../infra/http/safe-fetch.js';

let server: Server;
let base = '';
let port = 0;
/** Connections the server saw closed, by path (a fetch that gives up must hang up). */
const closed: string[] = [];
/** Lets `/held` finish its body when the test says so. */
let release: () => void = () => undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes one byte every `everyMs` until the body is done or the client hangs up. */
function drip(res: ServerResponse, bytes: number, everyMs: number, chunk = 1) {
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || sent >= bytes) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write('x'.repeat(chunk));
    sent += chunk;
  }, everyMs);
}

async function route(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://x');
  res.once('close', () => closed.push(url.pathname));
  switch (url.pathname) {
    case '/big':
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(Buffer.alloc(2048));
    case '/hop':
      res.writeHead(301, { location: '/image' });
      return res.end();
    case '/drip': // headers at once, then one byte every 100 ms for 12 s: never idle, never done
      res.writeHead(200, { 'content-type': 'text/plain' });
      return drip(res, 120, 100);
    case '/slow-hop': {
      // Each hop waits 400 ms before redirecting to the next; n hops, then the image.
      const n = Number(url.searchParams.get('n'));
      await sleep(400);
      res.writeHead(302, { location: n > 1 ? `/slow-hop?n=${n - 1}` : '/image' });
      return res.end();
    }
    case '/endless': // chunked, no length: only the cap can stop it
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      // Chunks, so the cap is reached in milliseconds however loaded the machine is (not the deadline).
      return drip(res, Number.MAX_SAFE_INTEGER, 1, 256);
    case '/declared-big': // says how large it is up front, then would send it slowly
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      return drip(res, 10 * 1024 * 1024, 50);
    case '/held':
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first ');
      release = () => res.end('second');
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' });
      return res.end();
    case '/to-metadata':
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      return res.end();
    case '/to-localhost': // same server, another origin
      res.writeHead(307, { location: `http://localhost:${port}/echo` });
      return res.end();
    case '/echo': {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          method: req.method,
          authorization: req.headers.authorization ?? null,
          contentType: req.headers['content-type'] ?? null,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    }
    default:
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(Buffer.from([1, 2, 3]));
  }
}

beforeAll(async () => {
  server = createServer((req, res) => void route(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  closed.length = 0;
});

/** Waits until the server saw the connection for `path` closed (or fails after a second). */
async function expectHungUp(path: string) {
  for (let i = 0; i < 100 && !closed.includes(path); i++) await sleep(10);
  expect(closed).toContain(path);
}

describe('isPrivateAddress: only global unicast is public', () => {
  test.each([
    // IPv4: private, loopback, link-local (cloud metadata), shared, reserved, documentation, multicast
    ['0.0.0.0', true],
    ['0.1.2.3', true],
    ['10.1.2.3', true],
    ['100.64.0.1', true],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['169.254.169.254', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.0.0.8', true],
    ['192.0.2.1', true],
    ['192.88.99.1', true],
    ['192.168.1.1', true],
    ['198.18.0.1', true],
    ['198.51.100.7', true],
    ['203.0.113.9', true],
    ['224.0.0.1', true],
    ['240.0.0.1', true],
    ['255.255.255.255', true],
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['172.32.0.1', false],
    // IPv6: unspecified, loopback, IPv4-compatible (::/96), link-local, unique local, site-local, multicast
    ['::', true],
    ['::1', true],
    ['::7f00:1', true],
    ['::a00:1', true],
    ['::8.8.8.8', true],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['fd00::1', true],
    ['fec0::1', true],
    ['ff02::1', true],
    ['100::1', true],
    // IPv4-mapped (::ffff:0:0/96) judged as the IPv4 address; IPv4-translated (::ffff:0:0:0/96) refused
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['::ffff:169.254.169.254', true],
    ['::ffff:8.8.8.8', false],
    ['::ffff:0:7f00:1', true],
    ['::ffff:0:808:808', true],
    // Embedding IPv4 (6to4, NAT64 well-known and local-use, Teredo): refused whatever they embed
    ['2002:7f00:1::1', true],
    ['2002:a00:1::1', true],
    ['2002:808:808::1', true],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b::808:808', true],
    ['64:ff9b:1::a00:1', true],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true],
    // Documentation, benchmarking, ORCHID, segment routing
    ['2001:db8::1', true],
    ['2001:2::1', true],
    ['2001:20::1', true],
    ['3fff::1', true],
    ['5f00::1', true],
    ['2606:4700:4700::1111', false],
    ['2a00:1450:4001:80b::200e', false],
    ['not an address', true],
    ['', true],
    ['localhost', true],
  ])('%s → private: %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('safeFetch', () => {
  const options = { maxBytes: 1024, timeoutMs: 5000 };

  test('loopback is refused by default, and so are other ports and schemes', async () => {
    await expect(safeFetch(`${base}/image`, options)).rejects.toThrow(UnsafeUrlError);
    await expect(safeFetch('http://127.0.0.1/image', options)).rejects.toThrow(/private address/);
    await expect(safeFetch('http://[::ffff:127.0.0.1]/x', options)).rejects.toThrow(/private address/);
    await expect(safeFetch('file:///etc/passwd', options)).rejects.toThrow(/Only http and https/);
    await expect(safeFetch('http://example.com:8080/x', options)).rejects.toThrow(/ports 80 and 443/);
  });

  test('allowed explicitly (tests), it fetches and follows redirects by hand', async () => {
    const result = await safeFetch(`${base}/hop`, { ...options, allowPrivate: true });
    expect(result.status).toBe(200);
    expect(result.contentType).toBe('image/png');
    expect([...result.body]).toEqual([1, 2, 3]);
    expect(result.url).toBe(`${base}/image`);
  });

  test('a host name is resolved, checked and pinned (the connection goes to the address that was checked)', async () => {
    const result = await safeFetch(`http://localhost:${port}/image`, { ...options, allowPrivate: true });
    expect(result.status).toBe(200);
    expect([...result.body]).toEqual([1, 2, 3]);
    await expect(safeFetch('http://localhost/image', options)).rejects.toThrow(/private address/);
  });

  test('the size cap stops a large body', async () => {
    await expect(safeFetch(`${base}/big`, { ...options, allowPrivate: true })).rejects.toThrow(/larger than/);
  });

  test('the cloud metadata address is refused', async () => {
    await expect(safeFetch('http://169.254.169.254/latest/meta-data/', options)).rejects.toThrow(
      /private address/,
    );
  });
});

describe('one deadline for the whole fetch', () => {
  test('a server dripping a byte every 100 ms cannot hold a 1 s fetch longer than that', async () => {
    const started = Date.now();
    await expect(
      safeFetch(`${base}/drip`, { maxBytes: 1024, timeoutMs: 1000, allowPrivate: true }),
    ).rejects.toThrow(/took longer than 1000 ms/);
    expect(Date.now() - started).toBeLessThan(2500);
    await expectHungUp('/drip');
  });

  test('redirects count against the same deadline', async () => {
    const started = Date.now();
    await expect(
      safeFetch(`${base}/slow-hop?n=4`, { maxBytes: 1024, timeoutMs: 1000, allowPrivate: true }),
    ).rejects.toThrow(/took longer than/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  test('the deadline keeps running while the caller reads the body', async () => {
    const response = await safeFetchStream(`${base}/drip`, {
      maxBytes: 1024,
      timeoutMs: 800,
      allowPrivate: true,
    });
    expect(response.status).toBe(200);
    await expect(readBody(response.body)).rejects.toThrow(/took longer than 800 ms/);
    await expectHungUp('/drip');
  });

  test("the caller's signal aborts it too", async () => {
    const controller = new AbortController();
    const pending = safeFetch(`${base}/drip`, {
      maxBytes: 1024,
      timeoutMs: 10_000,
      allowPrivate: true,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('stopped by the caller')), 200);
    await expect(pending).rejects.toThrow(/stopped by the caller/);
  });
});

describe('the body streams under the cap', () => {
  const options = { maxBytes: 64 * 1024, timeoutMs: 5000, allowPrivate: true };

  test('the answer comes with the headers, before the body is complete', async () => {
    const response = await safeFetchStream(`${base}/held`, options);
    expect(response.status).toBe(200);
    const reader = response.body.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('first ');
    release();
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read())
      rest += new TextDecoder().decode(next.value);
    expect(rest).toBe('second');
  });

  test('a body without a length fails once it passes the cap, and the connection is closed', async () => {
    const response = await safeFetchStream(`${base}/endless`, { ...options, maxBytes: 2000 });
    expect(response.status).toBe(200);
    await expect(readBody(response.body)).rejects.toThrow(/larger than 2000 bytes/);
    await expectHungUp('/endless');
  });

  test('a declared length over the cap is refused before any of the body is read', async () => {
    const started = Date.now();
    await expect(safeFetchStream(`${base}/declared-big`, options)).rejects.toThrow(/larger than 65536 bytes/);
    expect(Date.now() - started).toBeLessThan(1000);
    await expectHungUp('/declared-big');
  });

  test('cancelling the body hangs up', async () => {
    const response = await safeFetchStream(`${base}/endless`, options);
    await response.body.cancel();
    await expectHungUp('/endless');
  });
});

describe('redirects are followed by hand, each hop checked', () => {
  const options = { maxBytes: 1024, timeoutMs: 5000 };

  test('a redirect to the metadata address is refused though the first server was allowed', async () => {
    await expect(safeFetch(`${base}/to-metadata`, { ...options, allowPrivate: [base] })).rejects.toThrow(
      /169.254.169.254 is a private address/,
    );
  });

  test('an origin allow-list lets only those origins through', async () => {
    expect((await safeFetch(`${base}/image`, { ...options, allowPrivate: [base] })).status).toBe(200);
    await expect(
      safeFetch(`http://localhost:${port}/image`, { ...options, allowPrivate: [base] }),
    ).rejects.toThrow(/ports 80 and 443/);
  });

  test('at most maxRedirects hops', async () => {
    await expect(safeFetch(`${base}/loop`, { ...options, allowPrivate: true })).rejects.toThrow(
      /Too many redirects/,
    );
    await expect(
      safeFetch(`${base}/slow-hop?n=2`, { ...options, allowPrivate: true, maxRedirects: 1 }),
    ).rejects.toThrow(/Too many redirects/);
  });

  test("redirect: 'error' refuses any redirect, 'manual' answers it", async () => {
    await expect(
      safeFetch(`${base}/hop`, { ...options, allowPrivate: true, redirect: 'error' }),
    ).rejects.toThrow(/redirect/);
    const manual = await safeFetchStream(`${base}/hop`, {
      ...options,
      allowPrivate: true,
      redirect: 'manual',
    });
    expect(manual.status).toBe(301);
    expect(manual.headers.get('location')).toBe('/image');
    await manual.body.cancel();
  });

  test('credentials stay with their origin when a 307 resends the request elsewhere', async () => {
    const result = await safeFetch(`${base}/to-localhost`, {
      ...options,
      allowPrivate: true,
      method: 'POST',
      headers: { authorization: 'Bearer secret', 'content-type': 'text/plain' },
      body: new TextEncoder().encode('hello'),
    });
    expect(JSON.parse(new TextDecoder().decode(result.body))).toEqual({
      method: 'POST',
      authorization: null,
      contentType: 'text/plain',
      body: 'hello',
    });
  });

  test('https only, where required', async () => {
    await expect(
      safeFetch(`${base}/image`, { ...options, allowPrivate: true, requireHttps: true }),
    ).rejects.toThrow(/Only https/);
    await expect(
      safeFetch('https://example.com/hop', { ...options, requireHttps: true, resolve: async () => [] }),
    ).rejects.toThrow(/does not resolve/);
  });

  test('every address a name resolves to is checked, and the connection is pinned to them', async () => {
    const asked: string[] = [];
    const resolve = async (host: string) => {
      asked.push(host);
      return host === 'media.example.org'
        ? [
            { address: '93.184.215.14', family: 4 },
            { address: '10.0.0.7', family: 4 },
          ]
        : [{ address: '127.0.0.1', family: 4 }];
    };
    await expect(safeFetch('http://media.example.org/a.png', { ...options, resolve })).rejects.toThrow(
      /media.example.org resolves to a private address/,
    );
    // Allowed for this origin (tests), the name connects to the address the resolver gave, not to DNS's.
    const origin = `http://cdn.example.test:${port}`;
    const result = await safeFetch(`${origin}/image`, { ...options, resolve, allowPrivate: [origin] });
    expect([...result.body]).toEqual([1, 2, 3]);
    expect(asked).toEqual(['media.example.org', 'cdn.example.test']);
  });
});

describe('createSafeFetch: the same checks behind the fetch interface', () => {
  test('answers like fetch, with the body, headers, url and status', async () => {
    const safe = createSafeFetch({ maxBytes: 1024, timeoutMs: 5000, allowPrivate: [base] });
    const response = await safe(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: JSON.stringify({ a: 1 }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.url).toBe(`${base}/echo`);
    expect(await response.json()).toEqual({
      method: 'POST',
      authorization: 'Bearer t',
      contentType: 'application/json',
      body: '{"a":1}',
    });
    const followed = await safe(new Request(`${base}/hop`));
    expect(followed.redirected).toBe(true);
    expect(followed.url).toBe(`${base}/image`);
    expect([...new Uint8Array(await followed.arrayBuffer())]).toEqual([1, 2, 3]);
  });

  test('refuses what safeFetch refuses, and honours redirect: error as the DID resolver asks', async () => {
    const safe = createSafeFetch({ maxBytes: 1024, timeoutMs: 5000 });
    await expect(safe(`${base}/image`)).rejects.toThrow(UnsafeUrlError);
    await expect(safe('http://[::ffff:a9fe:a9fe]/latest')).rejects.toThrow(/private address/);
    const allowed = createSafeFetch({ maxBytes: 1024, timeoutMs: 5000, allowPrivate: [base] });
    await expect(allowed(`${base}/hop`, { redirect: 'error' })).rejects.toThrow(/redirect/);
    await expect(allowed(`${base}/big`).then((r) => r.arrayBuffer())).rejects.toThrow(/larger than/);
  });
});
