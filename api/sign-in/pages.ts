// The sign-in pages' HTML, in the service's page layout (api/shared/html-page.ts: lang, headings, labels,
// visible focus, no script); every value goes through `escapeHtml`.
import { escapeHtml, hiddenInput as hidden, renderPage, type Page } from '../shared/html-page.js';

export { renderPage, type Page };

export function signInFormPage(o: {
  csrf: string;
  returnTo: string;
  signedInAs?: string;
  provider?: { name: string; href: string };
  error?: string;
  email?: string;
}): Page {
  return {
    title: 'Sign in',
    body: `<h1>Sign in</h1>
${o.signedInAs ? `<p>You are signed in as ${escapeHtml(o.signedInAs)}. Signing in again replaces that session.</p>` : ''}
${o.error ? `<p class="error" role="alert" id="email-error">${escapeHtml(o.error)}</p>` : ''}
<form method="post" action="/sign-in">
${hidden('csrf', o.csrf)}
${hidden('return_to', o.returnTo)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required${o.email ? ` value="${escapeHtml(o.email)}"` : ''}${o.error ? ' aria-describedby="email-error" aria-invalid="true"' : ''}>
<p>We will send you a link to sign in with; no password needed.</p>
<button type="submit">Send me a sign-in link</button>
</form>
${o.provider ? `<p class="or">Or</p>\n<p><a class="button" href="${escapeHtml(o.provider.href)}">Sign in with ${escapeHtml(o.provider.name)}</a></p>` : ''}`,
  };
}

export function checkMailPage(): Page {
  return {
    title: 'Check your mail',
    body: `<h1>Check your mail</h1>
<p>If the address can receive mail, a sign-in link is on its way. It works once, for 15 minutes.</p>
<p>No mail? Look in the spam folder, or <a href="/sign-in">ask for another link</a>.</p>`,
  };
}

export function continuePage(o: { token: string; csrf: string; email: string }): Page {
  return {
    title: 'Continue signing in',
    body: `<h1>Continue signing in</h1>
<p>Sign in as <strong>${escapeHtml(o.email)}</strong> in this browser?</p>
<form method="post" action="/sign-in/verify">
${hidden('token', o.token)}
${hidden('csrf', o.csrf)}
<button type="submit">Continue</button>
</form>`,
  };
}

export function errorPage(title: string, message: string): Page {
  return {
    title,
    body: `<h1>${escapeHtml(title)}</h1>
<p role="alert">${escapeHtml(message)}</p>
<p><a href="/sign-in">Go to the sign-in page</a></p>`,
  };
}

export function donePage(o: { email: string | null; csrf: string | null }): Page {
  if (!o.email || !o.csrf) {
    return {
      title: 'Not signed in',
      body: `<h1>You are not signed in</h1>\n<p><a href="/sign-in">Sign in</a></p>`,
    };
  }
  return {
    title: 'Signed in',
    body: `<h1>You are signed in</h1>
<p>Signed in as <strong>${escapeHtml(o.email)}</strong>. You can close this page.</p>
<form method="post" action="/sign-out">
${hidden('csrf', o.csrf)}
<button type="submit" class="secondary">Sign out</button>
</form>`,
  };
}

export function signedOutPage(): Page {
  return {
    title: 'Signed out',
    body: `<h1>You are signed out</h1>\n<p><a href="/sign-in">Sign in again</a></p>`,
  };
}
