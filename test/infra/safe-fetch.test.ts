// The fetcher for user-supplied URLs: private and loopback addresses refused (IPv4-mapped IPv6 included),
// ports other than 80/443 and other schemes refused, redirects followed by hand, size capped; loopback only
// when allowed (every hop goes through the same check, so a redirect to a private address is refused alike).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isPrivateAddress, safeFetch, UnsafeUrlError } from '../../infra/http/safe-fetch.js';

let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(2048));
    } else if (req.url === '/hop') {
      res.writeHead(301, { location: '/image' });
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([1, 2, 3]));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

describe('isPrivateAddress', () => {
  test.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['2606:4700:4700::1111', false],
    ['not an address', true],
  ])('%s → %s', (address, expected) => {
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

  test('the size cap stops a large body', async () => {
    await expect(safeFetch(`${base}/big`, { ...options, allowPrivate: true })).rejects.toThrow(/larger than/);
  });

  test('the cloud metadata address is refused', async () => {
    await expect(safeFetch('http://169.254.169.254/latest/meta-data/', options)).rejects.toThrow(
      /private address/,
    );
  });
});
