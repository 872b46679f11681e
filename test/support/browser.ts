// A browser as the OAuth flow meets it: one request per hop (redirects are followed by the test, so it can stop
// or change a URL between hops), cookies kept per browser with their Path (a cookie goes only where its path
// matches; `Max-Age=0` removes it). One instance per person: the starter's browser, an attacker's browser.

/** How a browser reaches the service: `runtime.app.request` in API tests, `fetch` over a socket end to end. */
export type Fetcher = (url: string, init: RequestInit) => Response | Promise<Response>;

export interface StoredCookie {
  name: string;
  value: string;
  path: string;
  /** The other attributes as sent, lower-cased names (`httponly`, `samesite`, `max-age`, `secure`). */
  attributes: Record<string, string>;
}

/** RFC 6265 §5.1.4: the cookie path is a prefix of the request path, ending at a `/` of either. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath.charAt(cookiePath.length) === '/';
}

function parseSetCookie(header: string, requestUrl: URL): StoredCookie {
  const [pair = '', ...parts] = header.split(';');
  const eq = pair.indexOf('=');
  const attributes: Record<string, string> = {};
  for (const part of parts) {
    const i = part.indexOf('=');
    const key = (i < 0 ? part : part.slice(0, i)).trim().toLowerCase();
    attributes[key] = i < 0 ? '' : part.slice(i + 1).trim();
  }
  const defaultPath = requestUrl.pathname.replace(/\/[^/]*$/, '') || '/';
  return {
    name: pair.slice(0, eq).trim(),
    value: pair.slice(eq + 1).trim(),
    path: attributes.path ?? defaultPath,
    attributes,
  };
}

export class Browser {
  readonly cookies: StoredCookie[] = [];

  constructor(private readonly fetcher: Fetcher) {}

  /** One GET, not following a redirect; sends the matching cookies and keeps what the answer sets. */
  async get(url: string): Promise<Response> {
    return this.send(url, { method: 'GET' });
  }

  /**
   * A JSON POST from a page of this browser (the web app calling the API with the user's token): the answer's
   * cookies are kept like any other.
   */
  async post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return this.send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  }

  private async send(url: string, init: RequestInit): Promise<Response> {
    const target = new URL(url);
    const cookie = this.cookies
      .filter((c) => pathMatches(target.pathname, c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    const headers = {
      ...(init.headers as Record<string, string> | undefined),
      ...(cookie ? { cookie } : {}),
    };
    const res = await this.fetcher(url, { ...init, redirect: 'manual', headers });
    for (const header of res.headers.getSetCookie()) this.keep(parseSetCookie(header, target));
    return res;
  }

  /** The Location of a redirect answer, resolved against the URL asked. */
  async redirectFrom(url: string): Promise<{ status: number; location: string | null; response: Response }> {
    const response = await this.get(url);
    const location = response.headers.get('location');
    return {
      status: response.status,
      location: location ? new URL(location, url).toString() : null,
      response,
    };
  }

  private keep(cookie: StoredCookie): void {
    const index = this.cookies.findIndex((c) => c.name === cookie.name && c.path === cookie.path);
    if (index >= 0) this.cookies.splice(index, 1);
    const maxAge = cookie.attributes['max-age'];
    if (maxAge !== undefined && Number(maxAge) <= 0) return;
    this.cookies.push(cookie);
  }
}
