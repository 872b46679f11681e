// Security headers on every answer (api/platform/security-headers.ts): nosniff, no framing, no referrer on JSON,
// error and probe answers; HSTS only when served over https; the pages' own policies left as they set them.
import { describe, expect, it } from 'vitest';
import { strictTransportSecurity } from '../../../api/platform/security-headers.js';
import { orgA, sampleApp, tokenFor } from './support.js';

const widgets = `/v1/orgs/${orgA}/widgets`;
/** What @hono/node-server hands a request: the socket (its peer address) the tests pretend to be. */
const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

function expectSecurityHeaders(res: Response) {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
}

describe('security headers', () => {
  it('on a JSON answer, error answers (400, 404, 429, 500) and /healthz', async () => {
    const { app, auth } = await sampleApp();
    const token = await tokenFor(auth);
    const json = await app.request(widgets, { headers: { authorization: `Bearer ${token}` } });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toContain('application/json');
    const answers = [
      json,
      await app.request(widgets, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{',
      }),
      await app.request('/nope'),
      await app.request(widgets),
      await app.request('/v1/test/limited'),
      await app.request('/v1/test/boom'),
      await app.request('/healthz'),
      await app.request('/v1/test/raw'),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 400, 404, 401, 429, 500, 200, 200]);
    for (const res of answers) {
      expectSecurityHeaders(res);
      expect(res.headers.get('strict-transport-security')).toBe(strictTransportSecurity);
    }
  });

  it('no HSTS when the service is plain http, unless a trusted proxy says the request came over https', async () => {
    const { app } = await sampleApp({
      config: {
        bodyLimitBytes: 2048,
        publicBaseUrl: 'http://localhost:3000',
        trustedProxies: ['10.0.0.0/8'],
      },
    });
    const plain = await app.request('/healthz');
    expectSecurityHeaders(plain);
    expect(plain.headers.has('strict-transport-security')).toBe(false);
    const proxied = await app.request(
      '/healthz',
      { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' } },
      from('10.0.0.2'),
    );
    expect(proxied.headers.get('strict-transport-security')).toBe(strictTransportSecurity);
    // Anyone else saying so is not believed.
    const spoofed = await app.request(
      '/healthz',
      { headers: { 'x-forwarded-proto': 'https' } },
      from('198.51.100.7'),
    );
    expect(spoofed.headers.has('strict-transport-security')).toBe(false);
  });

  it('the /docs page keeps its own Content-Security-Policy', async () => {
    const { app } = await sampleApp();
    const docs = await app.request('/docs');
    expect(docs.status).toBe(200);
    const csp = docs.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
