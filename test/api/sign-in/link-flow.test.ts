// The e-mail link sign-in: the form, the mailed link, the Continue button, the session cookie; single use,
// expiry, open-redirect refusal, CSRF refusal, no account enumeration, sign-out, and the contract the consent
// page uses (`ctx.use(browserSessions)`).
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { linkRateLimits } from '../../../api/sign-in/links.js';
import { safeReturnTo, signInPathFor } from '../../../api/sign-in/sessions.js';
import { loadUser } from '../../../commands/users/user-commands.js';
import { LocalMailbox } from '../../../infra/mail/local-mailbox.js';
import {
  formField,
  lastSignInLink,
  mergeCookies,
  postForm,
  signInBrowser,
} from '../../support/browser-sign-in.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { propertyRuns } from '../../support/property-runs.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.stop());

const db = () => service.runtime.database.db as Kysely<unknown>;
let n = 0;
const address = () => `person-${++n}-${Date.now()}@example.org`;

/** A browser that opened the sign-in form (its pre-session cookie) and asked for a link. */
async function askForLink(email: string, returnTo?: string) {
  const form = await service.request(
    'GET',
    `/sign-in${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`,
  );
  const html = await form.text();
  const cookie = mergeCookies('', form);
  const sent = await postForm(
    service,
    '/sign-in',
    { email, csrf: formField(html, 'csrf'), return_to: formField(html, 'return_to') },
    cookie,
  );
  return { cookie, sent, html };
}

async function openLink(link: string, cookie = '') {
  const page = await service.request('GET', link, { headers: cookie ? { cookie } : {} });
  const html = await page.text();
  return { page, html, cookie: mergeCookies(cookie, page) };
}

async function continueWith(html: string, cookie: string) {
  return postForm(
    service,
    '/sign-in/verify',
    { token: formField(html, 'token'), csrf: formField(html, 'csrf') },
    cookie,
  );
}

async function sessionCount() {
  const { rows } = await sql<{ n: string }>`select count(*) as n from browser_sessions`.execute(db());
  return Number(rows[0]!.n);
}

describe('the sign-in form', () => {
  test('an accessible page: lang, a heading, a labelled e-mail field, a CSRF token, no script', async () => {
    const res = await service.request('GET', '/sign-in');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<h1>Sign in</h1>');
    expect(html).toContain('<label for="email">');
    expect(html).toContain('id="email" name="email" type="email"');
    expect(html).not.toContain('<script');
    expect(formField(html, 'csrf')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(formField(html, 'return_to')).toBe('/sign-in/done');
    const [cookie] = res.headers.getSetCookie();
    expect(cookie).toMatch(/^sign_in_csrf=[A-Za-z0-9_-]{43}; Max-Age=3600; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  test('?email= prefills the address field, escaped (the invitation page sends invitees here)', async () => {
    const prefilled = await (await service.request('GET', '/sign-in?email=sam%40example.org')).text();
    expect(prefilled).toContain(
      'name="email" type="email" autocomplete="email" required value="sam@example.org"',
    );
    const hostile = await (
      await service.request('GET', `/sign-in?email=${encodeURIComponent('"><b>x')}`)
    ).text();
    expect(hostile).toContain('value="&#34;&#62;&#60;b&#62;x"');
    expect(hostile).not.toContain('<b>');
  });

  test('is not in the OpenAPI document', async () => {
    const doc = (await (await service.request('GET', '/v1/openapi.json')).json()) as { paths: object };
    expect(Object.keys(doc.paths).filter((p) => p.includes('sign'))).toEqual([]);
  });
});

describe('the link flow', () => {
  test('ask, open the mailed link, Continue: a session cookie and a 303 to return_to; the user exists', async () => {
    const email = address();
    const { cookie, sent } = await askForLink(email, '/oauth/authorize?client_id=abc&scope=mcp%3Aread');
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain('Check your mail');
    const mail = await new LocalMailbox(db()).lastTo(email);
    expect(mail?.subject).toBe('Your sign-in link');
    expect(mail?.text).toMatch(/http:\/\/localhost:3000\/sign-in\/verify\?token=[A-Za-z0-9_-]{43}\n$/);

    // Opening the link changes nothing (a mail scanner may open it): it shows a Continue button.
    const link = await lastSignInLink(service, email);
    const opened = await openLink(link, cookie);
    expect(opened.page.status).toBe(200);
    expect(opened.html).toContain('<button type="submit">Continue</button>');
    expect(opened.html).toContain(email);
    const again = await openLink(link, cookie);
    expect(again.page.status).toBe(200);

    const done = await continueWith(opened.html, opened.cookie);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/oauth/authorize?client_id=abc&scope=mcp%3Aread');
    const session = done.headers.getSetCookie().find((c) => c.startsWith('sign_in_session='));
    expect(session).toMatch(
      /^sign_in_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const value = session!.split(';')[0]!.split('=')[1]!;
    // Only the hash is stored.
    const { rows } = await sql<{ id_hash: string; email: string; user_id: string }>`
      select id_hash, email, user_id from browser_sessions where email = ${email}`.execute(db());
    expect(rows).toEqual([
      { id_hash: createHash('sha256').update(value).digest('hex'), email, user_id: expect.any(String) },
    ]);

    const signedIn = mergeCookies(opened.cookie, done);
    const page = await service.request('GET', '/sign-in/done', { headers: { cookie: signedIn } });
    expect(await page.text()).toContain(`Signed in as <strong>${email}</strong>`);

    // Opening the link proved the address: the user's record says so.
    const { token } = await service.userToken(email);
    const me = await service.request('GET', '/v1/users/me', { token });
    expect(((await me.json()) as { data: { emailVerified: boolean | null } }).data.emailVerified).toBe(true);
  });

  test('a link works once: the second Continue answers 400 and makes no session', async () => {
    const email = address();
    const { cookie } = await askForLink(email);
    const opened = await openLink(await lastSignInLink(service, email), cookie);
    expect((await continueWith(opened.html, opened.cookie)).status).toBe(303);
    const sessions = await sessionCount();
    const second = await continueWith(opened.html, opened.cookie);
    expect(second.status).toBe(400);
    expect(await second.text()).toContain('This link cannot be used');
    expect(second.headers.getSetCookie().filter((c) => c.startsWith('sign_in_session'))).toEqual([]);
    expect(await sessionCount()).toBe(sessions);
    expect((await openLink(await lastSignInLink(service, email))).page.status).toBe(400);
  });

  test('an expired link answers 400 and changes nothing; an unknown one too', async () => {
    const email = address();
    const { cookie } = await askForLink(email);
    const link = await lastSignInLink(service, email);
    const opened = await openLink(link, cookie);
    await sql`update sign_in_links set expires_at = now() - interval '1 second' where email = ${email}`.execute(
      db(),
    );
    const [sessions, events] = [await sessionCount(), await eventCount(service)];
    expect((await openLink(link)).page.status).toBe(400);
    expect((await continueWith(opened.html, opened.cookie)).status).toBe(400);
    expect(await sessionCount()).toBe(sessions);
    expect(await eventCount(service)).toBe(events);
    const unknown = await openLink('/sign-in/verify?token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(unknown.page.status).toBe(400);
    expect((await openLink('/sign-in/verify')).page.status).toBe(400);
  });

  test('the link opened in another browser (a phone) still signs in there', async () => {
    const email = address();
    await askForLink(email);
    const opened = await openLink(await lastSignInLink(service, email));
    expect((await continueWith(opened.html, opened.cookie)).status).toBe(303);
  });

  test('signInBrowser gives a cookie the browser sessions recognise, and the same user each time', async () => {
    const email = address();
    const first = await signInBrowser(service, email);
    const second = await signInBrowser(service, email);
    expect(second.userId).toBe(first.userId);
    expect((await loadUser(service.runtime.commands, first.userId)).email).toBe(email);
  });
});

describe('return_to', () => {
  test.each([
    ['https://evil.example/x'],
    ['//evil.example/x'],
    ['/\\evil.example'],
    ['javascript:alert(1)'],
    ['relative/path'],
    ['/ok\nSet-Cookie: x'],
    [''],
    // Spellings that resolve to another host once dot segments, tabs or backslashes are read as a browser does.
    ['/.//evil.example'],
    ['/../..//evil.example'],
    ['/./..//evil.example/x?y#z'],
    ['/.\\/evil.example'],
    ['\t//evil.example'],
    ['/\t/evil.example'],
    ['///evil.example'],
    ['https:evil.example'],
  ])('%j is refused: the sign-in ends at /sign-in/done', async (returnTo) => {
    expect(safeReturnTo(returnTo)).toBe('/sign-in/done');
    const email = address();
    const { cookie, html } = await askForLink(email, returnTo);
    expect(formField(html, 'return_to')).toBe('/sign-in/done');
    const opened = await openLink(await lastSignInLink(service, email), cookie);
    const done = await continueWith(opened.html, opened.cookie);
    expect(done.headers.get('location')).toBe('/sign-in/done');
  });

  test('whatever it is, what stays is a path of this service (a single leading slash, no backslash)', () => {
    const pieces = ['/', '\\', '.', '..', '%2F', 'evil.example', '\t', ':', '?', '#'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 8 }), (parts) => {
        const kept = safeReturnTo(`/${parts.join('')}`);
        const base = 'https://service.example';
        expect(new URL(kept, base).origin).toBe(base);
        expect(kept).toMatch(/^\/(?![/\\])/);
        expect([...kept].some((ch) => ch === '\\' || ch.charCodeAt(0) < 0x20 || ch === '\u007f')).toBe(false);
      }),
      { numRuns: propertyRuns(5000) },
    );
    // Percent-encoded slashes stay a path here: a browser does not decode them into a host.
    expect(safeReturnTo('/%2F/evil.example')).toBe('/%2F/evil.example');
    expect(new URL(safeReturnTo('/%2F/evil.example'), 'https://service.example').host).toBe(
      'service.example',
    );
  });

  test('a posted return_to is checked too; paths of this service stay', async () => {
    const form = await service.request('GET', '/sign-in');
    const cookie = mergeCookies('', form);
    const email = address();
    await postForm(
      service,
      '/sign-in',
      { email, csrf: formField(await form.text(), 'csrf'), return_to: '//evil.example' },
      cookie,
    );
    const opened = await openLink(await lastSignInLink(service, email), cookie);
    expect((await continueWith(opened.html, opened.cookie)).headers.get('location')).toBe('/sign-in/done');
    expect(safeReturnTo('/oauth/authorize?a=1#x')).toBe('/oauth/authorize?a=1#x');
    expect(signInPathFor('/oauth/authorize?a=1&b=2')).toBe(
      '/sign-in?return_to=%2Foauth%2Fauthorize%3Fa%3D1%26b%3D2',
    );
    expect(signInPathFor('https://evil.example')).toBe('/sign-in?return_to=%2Fsign-in%2Fdone');
  });
});

describe('CSRF', () => {
  test('asking for a link without the form token, or with another browser’s: 403, nothing mailed', async () => {
    const email = address();
    const other = await service.request('GET', '/sign-in');
    const otherToken = formField(await other.text(), 'csrf');
    const mine = mergeCookies('', await service.request('GET', '/sign-in'));
    for (const [fields, cookie] of [
      [{ email }, mine],
      [{ email, csrf: otherToken }, mine],
      [{ email, csrf: otherToken }, ''],
    ] as const) {
      const res = await postForm(service, '/sign-in', fields, cookie);
      expect(res.status).toBe(403);
    }
    expect(await new LocalMailbox(db()).lastTo(email)).toBeNull();
  });

  test('Continue without this browser’s token: 403, the link stays usable', async () => {
    const email = address();
    const { cookie } = await askForLink(email);
    const opened = await openLink(await lastSignInLink(service, email), cookie);
    const sessions = await sessionCount();
    const forged = await postForm(
      service,
      '/sign-in/verify',
      { token: formField(opened.html, 'token'), csrf: 'x'.repeat(43) },
      opened.cookie,
    );
    expect(forged.status).toBe(403);
    const crossSite = await postForm(
      service,
      '/sign-in/verify',
      { token: formField(opened.html, 'token'), csrf: formField(opened.html, 'csrf') },
      '',
    );
    expect(crossSite.status).toBe(403);
    expect(await sessionCount()).toBe(sessions);
    expect((await continueWith(opened.html, opened.cookie)).status).toBe(303);
  });

  test('sign-out without the session’s token: 403, still signed in', async () => {
    const { cookie } = await signInBrowser(service, address());
    const res = await postForm(service, '/sign-out', { csrf: 'nope' }, cookie);
    expect(res.status).toBe(403);
    const page = await service.request('GET', '/sign-in/done', { headers: { cookie } });
    expect(await page.text()).toContain('You are signed in');
  });
});

describe('no account enumeration', () => {
  test('a known and an unknown address get the same answer', async () => {
    const known = await service.userToken();
    const a = await askForLink(known.email);
    const b = await askForLink(address());
    expect(a.sent.status).toBe(b.sent.status);
    expect(await a.sent.text()).toBe(await b.sent.text());
  });

  test('too many links for one address: 429 with Retry-After, whoever asks', async () => {
    const email = address();
    for (let i = 0; i < linkRateLimits.perRecipient; i++)
      expect((await askForLink(email)).sent.status).toBe(200);
    const refused = await askForLink(email);
    expect(refused.sent.status).toBe(429);
    // Until the first of those links leaves the hour's window.
    const wait = Number(refused.sent.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(linkRateLimits.windowMinutes * 60 - 120);
    expect(wait).toBeLessThanOrEqual(linkRateLimits.windowMinutes * 60);
    expect((await askForLink(address())).sent.status).toBe(200);
  });

  test('a malformed address: 400, the form again with the error, nothing mailed', async () => {
    const form = await service.request('GET', '/sign-in');
    const cookie = mergeCookies('', form);
    const res = await postForm(
      service,
      '/sign-in',
      { email: 'not-an-address', csrf: formField(await form.text(), 'csrf'), return_to: '/x' },
      cookie,
    );
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('role="alert"');
    expect(html).toContain('aria-invalid="true"');
    expect(formField(html, 'return_to')).toBe('/x');
  });
});

describe('signing in again in the same browser', () => {
  test('a new session id; the old session ends', async () => {
    const email = address();
    const { cookie } = await signInBrowser(service, email);
    await askForLink(email);
    const opened = await openLink(await lastSignInLink(service, email), cookie);
    const done = await continueWith(opened.html, opened.cookie);
    expect(done.status).toBe(303);
    const renewed = mergeCookies(opened.cookie, done);
    expect(renewed).not.toBe(cookie);
    const page = (c: string) => service.request('GET', '/sign-in/done', { headers: { cookie: c } });
    expect(await (await page(cookie)).text()).toContain('You are not signed in');
    expect(await (await page(renewed)).text()).toContain('You are signed in');
  });
});

describe('sign-out', () => {
  test('ends the session everywhere: the cookie is cleared and the old cookie no longer counts', async () => {
    const { cookie } = await signInBrowser(service, address());
    const page = await service.request('GET', '/sign-in/done', { headers: { cookie } });
    const csrf = formField(await page.text(), 'csrf');
    const res = await postForm(service, '/sign-out', { csrf }, cookie);
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^sign_in_session=; Max-Age=0; Path=\//),
    ]);
    const after = await service.request('GET', '/sign-in/done', { headers: { cookie } });
    expect(await after.text()).toContain('You are not signed in');
  });
});
