// Per-address limits behind a reverse proxy (TRUSTED_PROXIES): clients behind a trusted proxy are told apart by
// X-Forwarded-For, a forged X-Forwarded-For from anyone else is ignored, and sign-in links are limited per
// recipient address as well as per client, so neither one client nor one address decides for everybody.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createOAuthSlice } from '../../../api/oauth/slice.js';
import { linkRateLimits } from '../../../api/sign-in/links.js';
import { slices } from '../../../api/slices.js';
import { formField, mergeCookies } from '../../support/browser-sign-in.js';
import { startTestService, type TestService } from '../../support/runtime.js';

const proxy = '10.0.0.2';
const tokenBurst = 3;

/** What @hono/node-server hands a request: the socket (its peer address) the test pretends to be. */
const socketOf = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

function startService(env: Record<string, string>) {
  const oauth = createOAuthSlice({
    rateLimits: {
      register: { burst: 1000, perMinute: 1000 },
      token: { burst: tokenBurst, perMinute: 1 },
    },
  });
  return startTestService({ env, slices: slices.map((s) => (s.name === 'oauth' ? oauth : s)) });
}

/** One client: the socket peer it arrives from, and the X-Forwarded-For that arrives with it (if any). */
interface Client {
  peer: string;
  forwardedFor?: string;
}

function request(service: TestService, client: Client, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (client.forwardedFor !== undefined) headers.set('x-forwarded-for', client.forwardedFor);
  return service.runtime.app.request(path, { ...init, headers }, socketOf(client.peer));
}

const tokenRequest = (service: TestService, client: Client) =>
  request(service, client, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=password',
  });

/** The sign-in form and a link asked for from it, as this client. */
async function askForLink(service: TestService, client: Client, email: string) {
  const form = await request(service, client, '/sign-in');
  const cookie = mergeCookies('', form);
  return request(service, client, '/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ email, csrf: formField(await form.text(), 'csrf') }).toString(),
  });
}

let n = 0;
const address = () => `proxied-${++n}-${Date.now()}@example.org`;

async function linksTo(service: TestService, email: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from sign_in_links where email = ${email}`.execute(service.runtime.database.db);
  return Number(rows[0]!.n);
}

describe('behind a trusted proxy (TRUSTED_PROXIES set)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({ TRUSTED_PROXIES: '10.0.0.0/8' });
  });
  afterAll(async () => service?.stop());

  test('two clients behind the proxy have separate token endpoint limits', async () => {
    const first: Client = { peer: proxy, forwardedFor: '203.0.113.1' };
    const second: Client = { peer: proxy, forwardedFor: '203.0.113.2' };
    for (let i = 0; i < tokenBurst; i++) expect((await tokenRequest(service, first)).status).toBe(401);
    const refused = await tokenRequest(service, first);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'rate_limit_exceeded' });
    // The second client, through the same proxy, is not locked out by the first.
    expect((await tokenRequest(service, second)).status).toBe(401);
    // A client prepending its own X-Forwarded-For is still the address the proxy appended.
    expect((await tokenRequest(service, { peer: proxy, forwardedFor: '1.1.1.1, 203.0.113.1' })).status).toBe(
      429,
    );
  });

  test('two clients behind the proxy have separate sign-in link limits', async () => {
    const first: Client = { peer: proxy, forwardedFor: '203.0.113.11' };
    const second: Client = { peer: proxy, forwardedFor: '203.0.113.12' };
    for (let i = 0; i < linkRateLimits.perClient; i++)
      expect((await askForLink(service, first, address())).status).toBe(200);
    const email = address();
    const refused = await askForLink(service, first, email);
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(linkRateLimits.windowMinutes * 60);
    expect(await linksTo(service, email)).toBe(0);
    expect((await askForLink(service, second, email)).status).toBe(200);
    expect(await linksTo(service, email)).toBe(1);
  });

  test('links to one address are limited per client, and per address whoever asks', async () => {
    const email = address();
    const clients: Client[] = Array.from({ length: 4 }, (_, i) => ({
      peer: proxy,
      forwardedFor: `198.51.100.${20 + i}`,
    }));
    // One client alone cannot spend the address's whole allowance (and so lock its owner out).
    for (let i = 0; i < linkRateLimits.perRecipientFromOneClient; i++)
      expect((await askForLink(service, clients[0]!, email)).status).toBe(200);
    expect((await askForLink(service, clients[0]!, email)).status).toBe(429);
    // Others still can, until the address has had its links for the hour, from whomever.
    let sent = linkRateLimits.perRecipientFromOneClient;
    for (const client of clients.slice(1))
      for (
        let i = 0;
        i < linkRateLimits.perRecipientFromOneClient && sent < linkRateLimits.perRecipient;
        i++
      ) {
        expect((await askForLink(service, client, email)).status).toBe(200);
        sent++;
      }
    expect(sent).toBe(linkRateLimits.perRecipient);
    const fresh: Client = { peer: proxy, forwardedFor: '198.51.100.99' };
    const refused = await askForLink(service, fresh, email);
    expect(refused.status).toBe(429);
    expect(await linksTo(service, email)).toBe(linkRateLimits.perRecipient);
    // The same client asking for another address is not refused.
    expect((await askForLink(service, fresh, address())).status).toBe(200);
  });

  test('over the limit, a known and an unknown address get the same answer', async () => {
    const known = (await service.userToken()).email;
    const unknown = address();
    const client: Client = { peer: proxy, forwardedFor: '192.0.2.50' };
    const answers = [];
    for (const email of [known, unknown]) {
      for (let i = 0; i < linkRateLimits.perRecipientFromOneClient; i++)
        expect((await askForLink(service, client, email)).status).toBe(200);
      answers.push(await askForLink(service, client, email));
    }
    expect(answers.map((r) => r.status)).toEqual([429, 429]);
    expect(await answers[0]!.text()).toBe(await answers[1]!.text());
  });
});

describe('without TRUSTED_PROXIES', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService({});
  });
  afterAll(async () => service?.stop());

  test('a forged X-Forwarded-For is ignored: the socket peer is the client', async () => {
    const peer = '198.51.100.7';
    for (let i = 0; i < tokenBurst; i++)
      expect((await tokenRequest(service, { peer, forwardedFor: `203.0.113.${100 + i}` })).status).toBe(401);
    expect((await tokenRequest(service, { peer, forwardedFor: '203.0.113.200' })).status).toBe(429);
    expect((await tokenRequest(service, { peer: '198.51.100.8' })).status).toBe(401);

    for (let i = 0; i < linkRateLimits.perClient; i++)
      expect((await askForLink(service, { peer, forwardedFor: `192.0.2.${i}` }, address())).status).toBe(200);
    expect((await askForLink(service, { peer, forwardedFor: '192.0.2.250' }, address())).status).toBe(429);
  });
});
