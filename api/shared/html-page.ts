// The service's own server-rendered pages (sign-in, consent, their errors): one layout and one stylesheet, no
// script, the stylesheet allowed by its hash in the Content-Security-Policy; every value goes through escapeHtml.
import { createHash } from 'node:crypto';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const css = `
body{font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f6f6f4;margin:0}
main{max-width:34rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #d4d4d0;border-radius:8px}
h1{font-size:1.5rem;margin-top:0}
label{display:block;font-weight:600;margin-bottom:.25rem}
fieldset{border:1px solid #d4d4d0;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
legend{font-weight:600;padding:0 .25rem}
fieldset label{font-weight:400;margin:.4rem 0}
.hint{color:#4b5563;font-size:.9rem}
code{word-break:break-all}
input[type=email]{width:100%;box-sizing:border-box;font:inherit;padding:.5rem;border:1px solid #767676;border-radius:4px}
button,.button{display:inline-block;margin:1rem .75rem 0 0;font:inherit;padding:.5rem 1rem;border:0;border-radius:4px;background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none}
button.secondary{background:#4b5563}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.error{color:#b91c1c}
.or{margin:1.5rem 0 0;color:#4b5563}
`.trim();

const cssHash = `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

/**
 * Nothing but the pages' own style; forms post to this service only (and to `formTarget`, where a form's answer
 * redirects to, e.g. an OAuth client's redirect URI); never framed.
 */
export function pageContentSecurityPolicy(formTarget?: string): string {
  return [
    "default-src 'none'",
    `style-src ${cssHash}`,
    `form-action 'self'${formTarget ? ` ${formTarget}` : ''}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

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
</html>`;
}

export const hiddenInput = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
