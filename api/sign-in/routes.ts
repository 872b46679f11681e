// The sign-in pages (server-rendered HTML, no script, not in the OpenAPI document): ask for a link by e-mail,
// open it (a Continue button: a POST, so mail scanners opening links do not use them up), get a browser
// session; sign out. Forms carry CSRF tokens: a signed double-submit cookie before signing in, the session's
// token after. Answers never tell whether an address has an account.
import { pageContentSecurityPolicy } from '../shared/html-page.js';
import { randomUUID } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { ensureUser, verifyEmail } from '../../commands/users/user-commands.js';
import type { EmailVerification } from '../../domain/users/user.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { Mailer } from '../../infra/mail/port.js';
import type { AppEnv } from '../platform/app-env.js';
import { clientOf, clientLimitKeyOf } from '../platform/client-address.js';
import { verifyUrl, type SignInLinks } from './links.js';
import {
  checkMailPage,
  continuePage,
  donePage,
  errorPage,
  renderPage,
  signInFormPage,
  signedOutPage,
  type Page,
} from './pages.js';
import { safeReturnTo, type SignInSessions } from './sessions.js';

export interface SignInRoutesDeps {
  sessions: SignInSessions;
  links: SignInLinks;
  mailer: Mailer;
  commands: CommandDeps;
  publicBaseUrl: string;
  logger: Logger;
  /** The external identity provider's button, when one is configured. */
  provider?: { name: string; startPath: string };
  /** More routes under /sign-in (the external identity provider's). */
  extra?: (app: OpenAPIHono<AppEnv>) => void;
}

/** A page of the service with its security headers (the sign-in pages, and the invitation page beside them). */
export function htmlPage(c: Context, status: ContentfulStatusCode, page: Page): Response {
  c.header('Content-Security-Policy', pageContentSecurityPolicy());
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-store');
  return c.html(renderPage(page), status);
}

/** The text fields of a posted form (an empty record for any other body). */
export async function formOf(c: Context): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return {};
  const body = await c.req.parseBody();
  return Object.fromEntries(
    Object.entries(body).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as const] : [])),
  );
}

/** The user of a verified address (found, or created on the first sign-in), as a browser session holds them. */
export async function userForVerifiedEmail(
  commands: CommandDeps,
  email: string,
  correlationId: string | undefined,
  method: EmailVerification,
): Promise<{ userId: string; email: string }> {
  const metadata = {
    orgId: null,
    actor: 'system',
    correlationId: correlationId ?? randomUUID(),
    now: new Date().toISOString(),
  };
  const { user } = await ensureUser(commands, { email }, metadata);
  // The person just proved the address: the user's record says so (GET /v1/users/me emailVerified).
  await verifyEmail(commands, { userId: user.userId, email: user.email, method }, metadata);
  return { userId: user.userId, email: user.email };
}

const forbidden = () =>
  errorPage('Form expired', 'This form has expired or was not sent from this browser. Nothing was changed.');

export function createSignInRoutes(deps: SignInRoutesDeps) {
  const { sessions, links } = deps;

  const formPage = async (c: Context, returnTo: string, extra: { error?: string; email?: string } = {}) => {
    const signedIn = await sessions.current(c);
    return signInFormPage({
      csrf: sessions.preSessionToken(c),
      returnTo,
      ...(signedIn ? { signedInAs: signedIn.email } : {}),
      ...(deps.provider
        ? {
            provider: {
              name: deps.provider.name,
              href: `${deps.provider.startPath}?return_to=${encodeURIComponent(returnTo)}`,
            },
          }
        : {}),
      ...extra,
    });
  };

  return (app: OpenAPIHono<AppEnv>): void => {
    app.get('/sign-in', async (c) => {
      // `email` prefills the address (the invitation page sends invitees here with theirs).
      const email = c.req.query('email')?.trim().slice(0, 254);
      return htmlPage(
        c,
        200,
        await formPage(c, safeReturnTo(c.req.query('return_to')), email ? { email } : {}),
      );
    });

    app.post('/sign-in', async (c) => {
      const form = await formOf(c);
      if (!sessions.verifyPreSession(c, form.csrf)) return htmlPage(c, 403, forbidden());
      const returnTo = safeReturnTo(form.return_to);
      const email = z.email().max(254).safeParse(form.email?.trim());
      if (!email.success)
        return htmlPage(
          c,
          400,
          await formPage(c, returnTo, {
            error: 'Enter an e-mail address, like name@example.org.',
            ...(form.email ? { email: form.email } : {}),
          }),
        );
      // The client's limit key (behind TRUSTED_PROXIES, the forwarded client's); unknown: only the per-address limit.
      const from = clientOf(c).address === null ? null : clientLimitKeyOf(c);
      const verdict = await links.allowed(email.data, from);
      if (!verdict.allowed) {
        // The same answer whether or not the address has an account: links go to any address alike.
        const minutes = Math.ceil(verdict.retryAfterSeconds / 60);
        c.header('Retry-After', String(verdict.retryAfterSeconds));
        return htmlPage(
          c,
          429,
          errorPage(
            'Too many sign-in links',
            `Too many sign-in links were asked for. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or use the last link you were sent.`,
          ),
        );
      }
      const { token } = await links.issue(email.data, returnTo, { from });
      const url = verifyUrl(deps.publicBaseUrl, token);
      try {
        await deps.mailer.send(signInMail(email.data, url));
      } catch (error) {
        deps.logger.error({ err: error }, 'sign-in link could not be mailed');
        return htmlPage(
          c,
          503,
          errorPage(
            'Mail could not be sent',
            'The sign-in link could not be sent just now. Try again later.',
          ),
        );
      }
      return htmlPage(c, 200, checkMailPage());
    });

    const invalidLink = () =>
      errorPage(
        'This link cannot be used',
        'This sign-in link is unknown, has expired (links work for 15 minutes) or was used already. Ask for a new one.',
      );

    app.get('/sign-in/verify', async (c) => {
      const token = c.req.query('token') ?? '';
      const link = token ? await links.peek(token) : null;
      if (!link) return htmlPage(c, 400, invalidLink());
      return htmlPage(c, 200, continuePage({ token, csrf: sessions.preSessionToken(c), email: link.email }));
    });

    app.post('/sign-in/verify', async (c) => {
      const form = await formOf(c);
      if (!sessions.verifyPreSession(c, form.csrf)) return htmlPage(c, 403, forbidden());
      const link = form.token ? await links.consume(form.token) : null;
      if (!link) return htmlPage(c, 400, invalidLink());
      const user = await userForVerifiedEmail(deps.commands, link.email, c.get('requestId'), 'email_link');
      await sessions.start(c, user);
      // Checked again on the way out: links stored before a stricter check came in redirect safely too.
      return c.redirect(safeReturnTo(link.returnTo), 303);
    });

    app.get('/sign-in/done', async (c) => {
      const session = await sessions.current(c);
      return htmlPage(
        c,
        200,
        donePage({
          email: session?.email ?? null,
          csrf: session ? sessions.csrfToken(session) : null,
        }),
      );
    });

    app.post('/sign-out', async (c) => {
      const session = await sessions.current(c);
      if (!session) return c.redirect('/sign-in', 303);
      const form = await formOf(c);
      if (!sessions.verifyCsrf(session, form.csrf)) return htmlPage(c, 403, forbidden());
      await sessions.end(c, session);
      return htmlPage(c, 200, signedOutPage());
    });

    deps.extra?.(app);
  };
}

export function signInMail(to: string, url: string) {
  return {
    to,
    subject: 'Your sign-in link',
    text: `Open this link to sign in. It works once, for 15 minutes. If you did not ask to sign in, ignore this mail.\n\n${url}\n`,
    html: renderPage({
      title: 'Your sign-in link',
      body: `<h1>Sign in</h1>\n<p>Open this link to sign in. It works once, for 15 minutes.</p>\n<p><a href="${url.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">Sign in</a></p>\n<p>If you did not ask to sign in, ignore this mail.</p>`,
    }),
  };
}
