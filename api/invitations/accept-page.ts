// The page the invitation mail links to (`GET /invitations/accept?token=…`, not in the OpenAPI document): without a
// browser session it sends the person to sign in by e-mail link (address prefilled, back here afterwards); with
// one it shows "Join <workspace> as <role>" and a button whose POST (CSRF-checked) runs the same accept use case
// as POST /v1/invitations/accept. While the person signs in, the token waits in an HttpOnly cookie of their own
// browser, not in the sign-in link's return address, so the service never stores it.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { acceptInvitation, type InvitationDeps } from '../../commands/invitations/invitation-use-cases.js';
import { acceptancePath, expiryText } from '../../commands/invitations/invitation-mail.js';
import { normaliseInvitedEmail } from '../../domain/invitations/invitation.js';
import type { Caller } from '../../domain/shared/caller.js';
import { AppError } from '../../domain/shared/errors.js';
import { isRole, roleNames } from '../../domain/workspaces/roles.js';
import { secretDigest } from '../../infra/crypto/digests.js';
import { invitationByTokenHash, type InvitationByToken } from '../../projections/invitations/queries.js';
import { findMembershipRole } from '../../projections/workspaces/queries.js';
import type { AppEnv } from '../platform/app-env.js';
import { formOf, htmlPage } from '../sign-in/routes.js';
import { cookieSettings, type SignInSessions } from '../sign-in/sessions.js';
import { invitationErrorPage, joinPage, joinedPage, wrongAccountPage } from './pages.js';

export const invitationTokenCookie = 'invitation_token';
/** Long enough to ask for a sign-in link and open it (links work 15 minutes). */
const tokenCookieSeconds = 3600;

export interface AcceptPageDeps extends InvitationDeps {
  sessions: SignInSessions;
  now: () => Date;
}

type Status = 200 | 400 | 403 | 404 | 409 | 410 | 503;

const statusPages: Record<'accepted' | 'revoked' | 'expired', [Status, string, string]> = {
  accepted: [409, 'Invitation used already', 'This invitation was accepted already; it works once.'],
  revoked: [410, 'Invitation revoked', 'This invitation was revoked by the workspace.'],
  expired: [410, 'Invitation expired', 'This invitation has expired.'],
};

const unknownPage = () =>
  invitationErrorPage(
    'Unknown invitation',
    'This invitation link is not known here. Check that it was copied whole.',
  );

export function acceptPageRoutes(deps: AcceptPageDeps) {
  const { sessions } = deps;
  const cleared = cookieSettings(deps.publicBaseUrl, 0);

  const keepToken = (c: Context, token: string) =>
    setCookie(
      c,
      invitationTokenCookie,
      token,
      cookieSettings(deps.publicBaseUrl, tokenCookieSeconds).options,
    );
  const dropToken = (c: Context) => deleteCookie(c, invitationTokenCookie, cleared.options);
  /** Sign-in with the invited address prefilled, back to this page afterwards. */
  const signInHref = (email: string) =>
    `${sessions.signInPath(acceptancePath)}&email=${encodeURIComponent(email)}`;

  /** The invitation of a token as of now, or the page to answer instead. */
  async function lookUp(
    c: Context,
    token: string,
  ): Promise<{ found: InvitationByToken } | { answer: Response }> {
    if (!token)
      return {
        answer: htmlPage(
          c,
          400,
          invitationErrorPage('No invitation', 'Open the link from your invitation mail again.'),
        ),
      };
    const found =
      token.length <= 200
        ? await invitationByTokenHash(deps.readModels, secretDigest(token), deps.now().toISOString())
        : null;
    if (!found) return { answer: htmlPage(c, 404, unknownPage()) };
    if (found.orgStatus !== 'active')
      return {
        answer: htmlPage(c, 410, invitationErrorPage('Workspace deleted', 'This workspace was deleted.')),
      };
    if (found.status !== 'pending') {
      const [status, title, message] = statusPages[found.status];
      return { answer: htmlPage(c, status, invitationErrorPage(title, message)) };
    }
    return { found };
  }

  return (app: OpenAPIHono<AppEnv>): void => {
    app.get(acceptancePath, async (c) => {
      const token = c.req.query('token') ?? getCookie(c, invitationTokenCookie, cleared.prefix) ?? '';
      const looked = await lookUp(c, token);
      if ('answer' in looked) return looked.answer;
      const { found } = looked;
      const session = await sessions.current(c);
      if (!session) {
        keepToken(c, token);
        c.header('Cache-Control', 'no-store');
        return c.redirect(signInHref(found.email), 303);
      }
      if (normaliseInvitedEmail(session.email) !== found.email) {
        keepToken(c, token);
        return htmlPage(
          c,
          403,
          wrongAccountPage({
            invited: found.email,
            signedInAs: session.email,
            signInHref: signInHref(found.email),
          }),
        );
      }
      return htmlPage(
        c,
        200,
        joinPage({
          orgName: found.orgName,
          roleName: roleNames[found.roleKey],
          email: found.email,
          expiresAt: expiryText(found.expiresAt),
          token,
          csrf: sessions.csrfToken(session),
        }),
      );
    });

    app.post(acceptancePath, async (c) => {
      const form = await formOf(c);
      const token = form.token ?? '';
      const session = await sessions.current(c);
      if (!session) {
        if (token && token.length <= 200) keepToken(c, token);
        return c.redirect(sessions.signInPath(acceptancePath), 303);
      }
      if (!sessions.verifyCsrf(session, form.csrf))
        return htmlPage(
          c,
          403,
          invitationErrorPage(
            'Form expired',
            'This form has expired or was not sent from this browser. Nothing was changed; open the invitation link again.',
          ),
        );
      const caller: Caller = {
        kind: 'user',
        userId: session.userId,
        orgId: null,
        role: null,
        permissions: [],
      };
      try {
        const { output } = await acceptInvitation(
          deps,
          caller,
          { token },
          { correlationId: c.get('requestId'), now: deps.now().toISOString() },
        );
        dropToken(c);
        const role = await findMembershipRole(deps.readModels, session.userId, output.orgId);
        return htmlPage(
          c,
          200,
          joinedPage({ orgName: output.orgName, roleName: role && isRole(role) ? roleNames[role] : null }),
        );
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const status: Status =
          ([400, 403, 404, 409, 410, 503] as const).find((s) => s === error.status) ?? 400;
        return htmlPage(
          c,
          status,
          invitationErrorPage('The invitation could not be accepted', error.message),
        );
      }
    });
  };
}
