// Security headers on every answer (hono's secure-headers): no sniffing, no framing, no referrer, and HSTS when
// the service is served over https. A route's own header wins (the pages' and /docs' CSP, the consent page's).
import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { forwardedHttpsOf } from './client-address.js';

/** A year, the usual HSTS lifetime; no includeSubDomains: the operator's other hosts are not ours to pin. */
export const strictTransportSecurity = 'max-age=31536000';

export function securityHeaders(options: { publicBaseUrl?: string }): MiddlewareHandler {
  const base: Parameters<typeof secureHeaders>[0] = {
    // Answers without a policy of their own may not be framed either (old browsers: X-Frame-Options).
    contentSecurityPolicy: { frameAncestors: ["'none'"] },
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    xContentTypeOptions: true,
    // Off on purpose: media and avatars are loaded cross-origin by the web apps (CORP), sign-in with the
    // platforms and assistant connections open windows across origins (COOP); neither is needed by a JSON API.
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    // A header a route set itself stays (the pages' Content-Security-Policy, the consent page's framing rules).
    overwrite: false,
  };
  const withHsts = secureHeaders({ ...base, strictTransportSecurity });
  const withoutHsts = secureHeaders({ ...base, strictTransportSecurity: false });
  const httpsAlways =
    options.publicBaseUrl !== undefined && new URL(options.publicBaseUrl).protocol === 'https:';
  return async function securityHeadersMiddleware(c, next) {
    // Browsers ignore HSTS over plain http, so sending it whenever the service is https is enough; a trusted
    // proxy saying https (X-Forwarded-Proto) counts too.
    const https = httpsAlways || forwardedHttpsOf(c);
    return (https ? withHsts : withoutHsts)(c, next);
  };
}
