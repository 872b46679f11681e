// The acceptance page's HTML, in the service's page layout (api/shared/html-page.ts: no script, every value
// through escapeHtml): "Join <workspace> as <role>", the result, and what went wrong.
import { escapeHtml, hiddenInput, type Page } from '../shared/html-page.js';

export function joinPage(o: {
  orgName: string;
  roleName: string;
  email: string;
  expiresAt: string;
  token: string;
  csrf: string;
}): Page {
  return {
    title: `Join ${o.orgName}`,
    body: `<h1>Join ${escapeHtml(o.orgName)} as ${escapeHtml(o.roleName)}</h1>
<p>You were invited as <strong>${escapeHtml(o.email)}</strong>. The invitation works until ${escapeHtml(o.expiresAt)}.</p>
<form method="post" action="/invitations/accept">
${hiddenInput('token', o.token)}
${hiddenInput('csrf', o.csrf)}
<button type="submit">Join ${escapeHtml(o.orgName)}</button>
</form>`,
  };
}

export function joinedPage(o: { orgName: string; roleName: string | null }): Page {
  return {
    title: `You joined ${o.orgName}`,
    body: `<h1>You joined ${escapeHtml(o.orgName)}</h1>
<p>${o.roleName ? `You are a member as ${escapeHtml(o.roleName)}. ` : ''}You can close this page and open the app.</p>`,
  };
}

export function wrongAccountPage(o: { invited: string; signedInAs: string; signInHref: string }): Page {
  return {
    title: 'This invitation is for another address',
    body: `<h1>This invitation is for another address</h1>
<p role="alert">It was sent to <strong>${escapeHtml(o.invited)}</strong>, and you are signed in as <strong>${escapeHtml(o.signedInAs)}</strong>.</p>
<p><a class="button" href="${escapeHtml(o.signInHref)}">Sign in as ${escapeHtml(o.invited)}</a></p>`,
  };
}

export function invitationErrorPage(title: string, message: string): Page {
  return {
    title,
    body: `<h1>${escapeHtml(title)}</h1>
<p role="alert">${escapeHtml(message)}</p>
<p>Ask whoever invited you for a new invitation if you still want to join.</p>`,
  };
}
