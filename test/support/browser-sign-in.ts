// Signs a browser in through the real e-mail link flow: the sign-in form, the link from the local mailbox, the
// Continue button. What tests of pages behind a browser session (the consent page) start from.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { LocalMailbox } from '../../infra/mail/local-mailbox.js';
import type { TestService } from './runtime.js';

/** The value of a hidden (or any) input of a page's form, by name. */
export function formField(html: string, name: string): string {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no input "${name}" in the page:\n${html}`);
  return match[1]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

/** `name=value` pairs of the Set-Cookie headers of an answer, merged into a Cookie header value. */
export function mergeCookies(cookie: string, response: Response): string {
  const jar = new Map(
    cookie
      .split('; ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair] as const),
  );
  for (const header of response.headers.getSetCookie()) {
    const pair = header.split(';')[0]!;
    const name = pair.slice(0, pair.indexOf('='));
    if (/max-age=0/i.test(header)) jar.delete(name);
    else jar.set(name, pair);
  }
  return [...jar.values()].join('; ');
}

export function postForm(
  service: TestService,
  path: string,
  fields: Record<string, string>,
  cookie: string,
): Promise<Response> {
  return service.request('POST', path, {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
  });
}

/** The last sign-in link mailed to this address (from the local mailbox), as a path of the service. */
export async function lastSignInLink(service: TestService, email: string): Promise<string> {
  const mail = await new LocalMailbox(service.runtime.database.db as Kysely<unknown>).lastTo(email);
  const url = /https?:\/\/\S+\/sign-in\/verify\?token=\S+/.exec(mail?.text ?? '')?.[0];
  if (!url) throw new Error(`no sign-in link mailed to ${email}`);
  const { pathname, search } = new URL(url);
  return `${pathname}${search}`;
}

/**
 * Opens the last sign-in link mailed to this address and presses Continue: the answer (a 303 to the return
 * address when it worked) and the Cookie header value the browser then sends.
 */
export async function continueSignIn(
  service: TestService,
  email: string,
  cookie: string,
): Promise<{ done: Response; cookie: string }> {
  const page = await service.request('GET', await lastSignInLink(service, email), { headers: { cookie } });
  const opened = mergeCookies(cookie, page);
  const html = await page.text();
  const done = await postForm(
    service,
    '/sign-in/verify',
    { token: formField(html, 'token'), csrf: formField(html, 'csrf') },
    opened,
  );
  return { done, cookie: mergeCookies(opened, done) };
}

/** Signs a new browser in as this address; the Cookie header value it then sends, and the user's id. */
export async function signInBrowser(
  service: TestService,
  email: string,
): Promise<{ cookie: string; userId: string }> {
  let cookie = '';
  const form = await service.request('GET', '/sign-in');
  cookie = mergeCookies(cookie, form);
  const sent = await postForm(
    service,
    '/sign-in',
    { email, csrf: formField(await form.text(), 'csrf'), return_to: '/sign-in/done' },
    cookie,
  );
  if (sent.status !== 200) throw new Error(`asking for a sign-in link answered ${sent.status}`);
  const continued = await continueSignIn(service, email, cookie);
  if (continued.done.status !== 303)
    throw new Error(`continuing the sign-in answered ${continued.done.status}`);
  cookie = continued.cookie;
  const session = /(?:^|; )(?:__Host-)?sign_in_session=([^;]+)/.exec(cookie)?.[1];
  if (!session) throw new Error('no session cookie after signing in');
  const { rows } = await sql<{ user_id: string }>`
    select user_id from browser_sessions
    where id_hash = ${createHash('sha256').update(session).digest('hex')}`.execute(
    service.runtime.database.db,
  );
  return { cookie, userId: rows[0]!.user_id };
}
