// The API reference at /docs: Swagger UI (the maintained `swagger-ui-dist` package) served from this process,
// no CDN, reading /v1/openapi.json, with "Try it out" against this server. The page, its start script and its
// assets are all same-origin files, so the Content-Security-Policy allows scripts from 'self' only.
import { escapeHtml } from '../shared/html-page.js';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const distDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The only files served under /docs/assets/: name → content type. */
export const docsAssets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const cache = new Map<string, Buffer>();

/** An asset's bytes, read once; undefined for any name not listed. */
export async function docsAsset(name: string): Promise<Buffer | undefined> {
  if (!Object.hasOwn(docsAssets, name)) return undefined;
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = await readFile(path.join(distDir, name));
    cache.set(name, bytes);
  }
  return bytes;
}

export function renderDocsPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — API reference</title>
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/start.js"></script>
</body>
</html>
`;
}

/** Starts Swagger UI on the document; bearer tokens entered in "Authorize" stay in the page's memory. */
export const docsStartScript = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: true,
  persistAuthorization: false,
  displayRequestDuration: true,
  filter: true,
  validatorUrl: null,
});
`;

/** Same-origin scripts and styles only; Swagger UI sets inline styles and shows data: images. */
export function docsContentSecurityPolicy(apiOrigin?: string): string {
  const connect = ["'self'", ...(apiOrigin ? [apiOrigin] : [])].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src ${connect}`,
    "font-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}
