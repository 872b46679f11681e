// What the OAuth tests share: a service whose oauth slice may fetch metadata documents from local test servers,
// PKCE pairs, form posts, and a local server publishing client ID metadata documents.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { slices } from '../../../api/slices.js';
import { createOAuthSlice } from '../../../api/oauth/slice.js';
import type { OAuthServerOptions } from '../../../api/oauth/routes.js';
import { startTestService, type TestService } from '../../support/runtime.js';

export const base = 'http://localhost:3000';
export const mcpResource = `${base}/mcp`;

export async function startOAuthService(options: OAuthServerOptions = {}): Promise<TestService> {
  const oauth = createOAuthSlice({
    rateLimits: {
      register: { burst: 1000, perMinute: 1000 },
      token: { burst: 1000, perMinute: 1000 },
      metadataDocument: { burst: 1000, perMinute: 1000 },
    },
    ...options,
  });
  return startTestService({ slices: slices.map((s) => (s.name === 'oauth' ? oauth : s)) });
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A form-encoded POST, as OAuth clients send them. */
export function postForm(
  service: TestService,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return service.request('POST', path, {
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
}

export async function registerClient(
  service: TestService,
  body: Record<string, unknown> = {},
): Promise<RegisteredClient> {
  const res = await service.request('POST', '/oauth/register', {
    body: {
      client_name: 'Test Assistant',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      token_endpoint_auth_method: 'none',
      ...body,
    },
  });
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as RegisteredClient;
}

/** The authorization URL of a request (path and query), with its defaults. */
export function authorizeUrl(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  return `/oauth/authorize?${query.toString()}`;
}

/** A document served as given, with its own content type (others are served as application/json). */
export class Served {
  constructor(
    readonly contentType: string,
    readonly body: string,
  ) {}
}

/** A local server publishing documents at paths; `documents` may be changed while it runs. */
export async function startDocumentServer(): Promise<{
  origin: string;
  documents: Map<string, unknown>;
  requests: string[];
  close(): Promise<void>;
}> {
  const documents = new Map<string, unknown>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const doc = documents.get(req.url ?? '');
    if (doc === undefined) {
      res.writeHead(404).end();
      return;
    }
    if (doc instanceof Served) res.writeHead(200, { 'content-type': doc.contentType }).end(doc.body);
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    documents,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Rows in the slice's tables: refused requests must not add any. */
export async function issuedCounts(
  service: TestService,
): Promise<{ codes: number; tokens: number; connections: number }> {
  const { rows } = await service.runtime.database.pool.query<{
    codes: string;
    tokens: string;
    connections: string;
  }>(
    `select (select count(*) from oauth_codes) as codes, (select count(*) from oauth_tokens) as tokens,
            (select count(*) from assistant_connections) as connections`,
  );
  const row = rows[0]!;
  return { codes: Number(row.codes), tokens: Number(row.tokens), connections: Number(row.connections) };
}

/** A form POST with repeated fields (checkbox lists) and a browser's cookie. */
export function postPairs(
  service: TestService,
  path: string,
  pairs: Array<[string, string]>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return service.request('POST', path, {
    body: new URLSearchParams(pairs).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

/** Every hidden input of a page, in order. */
export function hiddenFields(html: string): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields.push([decodeHtml(match[1]!), decodeHtml(match[2]!)]);
  return fields;
}

function decodeHtml(value: string): string {
  return value.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

export interface FlowOptions {
  client: RegisteredClient;
  cookie: string;
  orgId: string;
  /** The request's scope parameter (undefined: omitted, every scope). */
  scope?: string;
  /** The boxes checked on the consent page (default: every one offered). */
  choose?: string[];
  state?: string;
  resource?: string;
}

/** Opens the consent page as a signed-in browser and allows it; the code, and the PKCE verifier it is bound to. */
export async function authorizeCode(
  service: TestService,
  options: FlowOptions,
): Promise<{ code: string; verifier: string; redirectUri: string }> {
  const { verifier, challenge } = pkce();
  const redirectUri = options.client.redirect_uris[0]!;
  const page = await service.request(
    'GET',
    authorizeUrl({
      response_type: 'code',
      client_id: options.client.client_id,
      redirect_uri: redirectUri,
      state: options.state ?? 'state-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: options.scope,
      resource: options.resource,
    }),
    { headers: { cookie: options.cookie } },
  );
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${html}`);
  // Without a choice the person ticks every scope offered (destructive ones start unticked).
  const offered = [...html.matchAll(/type="checkbox" name="granted_scope" value="([^"]+)"/g)].map(
    (m) => m[1]!,
  );
  const chosen = options.choose ?? offered;
  const res = await postPairs(
    service,
    '/oauth/authorize',
    [
      ...hiddenFields(html),
      ['org_id', options.orgId],
      ...chosen.map((s): [string, string] => ['granted_scope', s]),
      ['decision', 'allow'],
    ],
    { cookie: options.cookie },
  );
  if (res.status !== 303) throw new Error(`allowing answered ${res.status}: ${await res.text()}`);
  const location = new URL(res.headers.get('location')!);
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location.toString()}`);
  return { code, verifier, redirectUri };
}

export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** The code exchanged by a public client. */
export async function exchange(
  service: TestService,
  client: RegisteredClient,
  flow: { code: string; verifier: string; redirectUri: string },
): Promise<TokenAnswer> {
  const res = await postForm(service, '/oauth/token', {
    grant_type: 'authorization_code',
    code: flow.code,
    redirect_uri: flow.redirectUri,
    code_verifier: flow.verifier,
    client_id: client.client_id,
  });
  if (res.status !== 200) throw new Error(`exchange answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as TokenAnswer;
}
