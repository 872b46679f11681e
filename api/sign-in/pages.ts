// The sign-in pages' HTML: one small layout (lang, headings, labels, visible focus, inline CSS allowed by its
// hash in the Content-Security-Policy), no script; every value goes through `escapeHtml`.
import { createHash } from 'node:crypto';
import { escapeHtml } from '../platform/docs-page.js';

const css = `
body{font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f6f6f4;margin:0}
main{max-width:28rem;margin:4rem auto;padding:2rem;background:#fff;border:1px solid #d4d4d0;border-radius:8px}
h1{font-size:1.5rem;margin-top:0}
label{display:block;font-weight:600;margin-bottom:.25rem}
input[type=email]{width:100%;box-sizing:border-box;font:inherit;padding:.5rem;border:1px solid #767676;border-radius:4px}
button,.button{display:inline-block;margin-top:1rem;font:inherit;padding:.5rem 1rem;border:0;border-radius:4px;background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none}
button.secondary{background:#4b5563}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{color:#b91c1c}
.or{margin:1.5rem 0 0;color:#4b5563}
`.trim();

const cssHash = `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

/** Nothing but this page's own style; forms post to this service only; never framed. */
export const pageContentSecurityPolicy = [
  "default-src 'none'",
  `style-src ${cssHash}`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export interface Page {
  title: string;
  /** Inner HTML of <main>, already escaped. */
  body: string;
}

export function renderPage(page: Page): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(page.title)}</title>
<style>${css}</style>
</head>
<body>
<main>
${page.body}
</main>
</body>
</html>
`;
}

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

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
