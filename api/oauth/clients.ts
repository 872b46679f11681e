// OAuth clients: registration (RFC 7591), client ID metadata documents (a client_id that is an https URL naming a
// JSON document the client publishes, fetched through the SSRF-safe fetcher and cached) and client authentication
// at the token and revocation endpoints.
import { isLoopbackHostname } from '../../infra/http/loopback.js';
import { secretDigest } from '../../infra/crypto/digests.js';
import { randomBytes } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import {
  OAuthClientMetadataSchema,
  type OAuthClientInformationFull,
  type OAuthClientMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import {
  fetchFailedMessage,
  fetchFailureReason,
  safeFetch,
  type OutboundPolicy,
  type SafeFetchResult,
} from '../../infra/http/safe-fetch.js';
import type { Logger } from '../../infra/logging/logger.js';
import {
  matchesHash,
  newSecret,
  type ClientKind,
  type OAuthDb,
  type OAuthTables,
  type TokenEndpointAuthMethod,
} from './store.js';

export type ClientRow = Selectable<OAuthTables['oauth_clients']>;

/** An OAuth error in the RFCs' own shape (`{ error, error_description }`), with its HTTP status. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status: 400 | 401 | 403 = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const tokenEndpointAuthMethods: readonly TokenEndpointAuthMethod[] = [
  'none',
  'client_secret_post',
  'client_secret_basic',
];

/**
 * Whether a redirect URI of a request is one the client registered. Exact, except that for a loopback http URI the
 * port may differ (RFC 8252 §7.3: native apps listen on whatever port is free when they ask).
 */
export function registeredRedirect(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (!URL.canParse(requested)) return false;
  const asked = new URL(requested);
  if (asked.protocol !== 'http:' || !isLoopbackHostname(asked.hostname)) return false;
  return registered.some((uri) => {
    if (!URL.canParse(uri)) return false;
    const known = new URL(uri);
    return (
      known.protocol === 'http:' &&
      known.hostname === asked.hostname &&
      known.pathname === asked.pathname &&
      known.search === asked.search &&
      asked.username === '' &&
      asked.password === '' &&
      asked.hash === ''
    );
  });
}

/** Why a redirect URI is refused, or null: https, or http on a loopback host only; no fragment, no credentials. */
export function redirectUriProblem(raw: string): string | null {
  if (raw.length > 2000) return 'is longer than 2000 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash !== '' || raw.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopbackHostname(url.hostname)) return null;
  return 'must be https (http only for 127.0.0.1, localhost or [::1])';
}

export interface ClientMetadataPolicy {
  /**
   * Tests only (OutboundPolicy): origins of local servers whose metadata documents may be fetched over plain
   * http from a loopback address. Production sets none: a metadata document is an https URL on a public host.
   */
  allowPrivate?: readonly string[];
  /** How long a fetched document is used before it is fetched again. */
  cacheSeconds?: number;
}

/** Whether a client_id names a client ID metadata document: an https URL with a path (or an allowed test origin). */
export function isMetadataDocumentId(clientId: string, policy: ClientMetadataPolicy = {}): boolean {
  if (!/^https?:\/\//i.test(clientId)) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  if (url.pathname === '/' || url.hash !== '' || url.username || url.password) return false;
  if (url.protocol === 'https:') return true;
  return (policy.allowPrivate ?? []).some((origin) => new URL(origin).origin === url.origin);
}

/** A client's metadata (registered, or a fetched document) as JSON: at most this many bytes. */
export const maxClientMetadataBytes = 16 * 1024;
/** Any list in a client's metadata (redirect_uris, contacts, grant_types, …): at most this many items. */
export const maxClientMetadataListItems = 10;
/** Any text in a client's metadata (a URI, a contact, a scope, …): at most this many characters. */
export const maxClientMetadataTextLength = 2000;
const metadataTimeoutMs = 5_000;
const defaultCacheSeconds = 60 * 60;

/** Why the metadata is too large to keep (total bytes, a list's items, a text's length), or null. */
function sizeProblem(metadata: OAuthClientMetadata): OAuthError | null {
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > maxClientMetadataBytes)
    return new OAuthError(
      'invalid_client_metadata',
      `The client metadata is ${bytes} bytes as JSON; at most ${maxClientMetadataBytes} are accepted`,
    );
  for (const [field, value] of Object.entries(metadata)) {
    const texts = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && value.length > maxClientMetadataListItems)
      return new OAuthError(
        field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
        `${field} may name at most ${maxClientMetadataListItems} items`,
      );
    if (texts.some((t) => typeof t === 'string' && t.length > maxClientMetadataTextLength))
      return new OAuthError(
        field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
        `${field} is longer than ${maxClientMetadataTextLength} characters`,
      );
  }
  return null;
}

function registrationProblem(metadata: OAuthClientMetadata, kind: ClientKind): OAuthError | null {
  const tooLarge = sizeProblem(metadata);
  if (tooLarge) return tooLarge;
  if (metadata.redirect_uris.length === 0)
    return new OAuthError('invalid_redirect_uri', 'redirect_uris must name at least one URI');
  if (metadata.redirect_uris.length > 10)
    return new OAuthError('invalid_redirect_uri', 'redirect_uris may name at most 10 URIs');
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return new OAuthError('invalid_redirect_uri', `redirect_uri ${uri} ${problem}`);
  }
  const method = metadata.token_endpoint_auth_method;
  if (kind === 'metadata_document') {
    if (method !== undefined && method !== 'none')
      return new OAuthError(
        'invalid_client_metadata',
        'a client ID metadata document may only declare token_endpoint_auth_method "none"',
      );
  } else if (method !== undefined && !(tokenEndpointAuthMethods as readonly string[]).includes(method)) {
    return new OAuthError(
      'invalid_client_metadata',
      `token_endpoint_auth_method must be one of ${tokenEndpointAuthMethods.join(', ')}`,
    );
  }
  const grants = metadata.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!grants.every((g) => g === 'authorization_code' || g === 'refresh_token'))
    return new OAuthError(
      'invalid_client_metadata',
      'grant_types may only name authorization_code and refresh_token',
    );
  if (!(metadata.response_types ?? ['code']).every((t) => t === 'code'))
    return new OAuthError('invalid_client_metadata', 'response_types may only name code');
  if ((metadata.client_name ?? '').length > 200)
    return new OAuthError('invalid_client_metadata', 'client_name is longer than 200 characters');
  return null;
}

function parseMetadata(body: unknown): OAuthClientMetadata {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'body';
    throw new OAuthError(
      issue?.path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${where}: ${issue?.message ?? 'invalid client metadata'}`,
    );
  }
  return parsed.data;
}

/** RFC 7591 registration: a public client (`none`) or a confidential one, whose secret is answered once. */
export async function registerClient(db: OAuthDb, body: unknown): Promise<OAuthClientInformationFull> {
  const metadata = parseMetadata(body);
  const problem = registrationProblem(metadata, 'registered');
  if (problem) throw problem;
  // RFC 7591 §2: a client that names no method authenticates with HTTP Basic.
  const method = (metadata.token_endpoint_auth_method ?? 'client_secret_basic') as TokenEndpointAuthMethod;
  const clientId = `spc_${randomBytes(16).toString('base64url')}`;
  const secret = method === 'none' ? undefined : newSecret('sps_');
  const grantTypes = metadata.grant_types ?? ['authorization_code', 'refresh_token'];
  const stored = {
    ...metadata,
    token_endpoint_auth_method: method,
    grant_types: grantTypes,
    response_types: ['code'],
  };
  const row = await db
    .insertInto('oauth_clients')
    .values({
      client_id: clientId,
      client_name: metadata.client_name ?? new URL(metadata.redirect_uris[0]!).host,
      redirect_uris: metadata.redirect_uris,
      token_endpoint_auth_method: method,
      secret_hash: secret === undefined ? null : secretDigest(secret),
      kind: 'registered',
      metadata: JSON.stringify(stored),
    })
    .returning('created_at')
    .executeTakeFirstOrThrow();
  return {
    ...stored,
    client_id: clientId,
    client_id_issued_at: Math.floor(Date.parse(row.created_at) / 1000),
    ...(secret !== undefined ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
  };
}

/** Where findClient may fetch a metadata document from: the hooks of the request that asks. */
export interface FetchHooks {
  /** Runs before a document is fetched (not for a cached one); throws to refuse (a rate limit). */
  beforeFetch?: () => void;
  /** Why a document could not be fetched is logged here, never answered. */
  logger?: Pick<Logger, 'info'>;
}

function isJsonType(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** Fetches, checks and caches a client ID metadata document; throws OAuthError when it cannot be used. */
async function fetchMetadataDocument(
  db: OAuthDb,
  clientId: string,
  policy: ClientMetadataPolicy,
  hooks: FetchHooks,
): Promise<ClientRow> {
  hooks.beforeFetch?.();
  const outbound: OutboundPolicy = {
    requireHttps: !(policy.allowPrivate ?? []).length,
    ...(policy.allowPrivate?.length ? { allowPrivate: policy.allowPrivate } : {}),
    maxRedirects: 0,
  };
  // Not found, refused, a private address, no such name: one answer (no map of the network behind us).
  const unfetchable = (reason: unknown) => {
    hooks.logger?.info(
      { clientId, reason: fetchFailureReason(reason) },
      'client ID metadata document could not be fetched',
    );
    return new OAuthError('invalid_client', `The client ID metadata document ${fetchFailedMessage}`);
  };
  let answer: SafeFetchResult;
  try {
    answer = await safeFetch(clientId, {
      ...outbound,
      maxBytes: maxClientMetadataBytes,
      timeoutMs: metadataTimeoutMs,
      redirect: 'error',
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    throw unfetchable(error);
  }
  if (answer.status !== 200) throw unfetchable(new Error(`it answered ${answer.status}`));
  if (!isJsonType(answer.contentType))
    throw new OAuthError(
      'invalid_client',
      'The client ID metadata document must be served as JSON (Content-Type application/json)',
    );
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(answer.body));
  } catch {
    throw new OAuthError('invalid_client', 'The client ID metadata document is not valid JSON');
  }
  if (
    typeof document !== 'object' ||
    document === null ||
    (document as { client_id?: unknown }).client_id !== clientId
  )
    throw new OAuthError('invalid_client', 'The client ID metadata document names another client_id');
  let metadata: OAuthClientMetadata;
  try {
    metadata = parseMetadata(document);
  } catch (error) {
    throw new OAuthError(
      'invalid_client',
      `The client ID metadata document is invalid: ${(error as Error).message}`,
    );
  }
  const problem = registrationProblem(metadata, 'metadata_document');
  if (problem)
    throw new OAuthError(
      'invalid_client',
      `The client ID metadata document is invalid: ${problem.description}`,
    );
  const values = {
    client_name: metadata.client_name ?? new URL(clientId).host,
    redirect_uris: metadata.redirect_uris,
    token_endpoint_auth_method: 'none' as const,
    secret_hash: null,
    kind: 'metadata_document' as const,
    metadata: JSON.stringify({ ...metadata, client_id: clientId }),
    fetched_at: sql<string>`now()`,
  };
  return await db
    .insertInto('oauth_clients')
    .values({ client_id: clientId, ...values })
    .onConflict((oc) => oc.column('client_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The client a client_id names: a registered one, or a metadata document (fetched when not cached or older than
 * the cache age; `refresh: false` uses the stored copy, as the token endpoint does). Null when unknown.
 */
export async function findClient(
  db: OAuthDb,
  clientId: string,
  policy: ClientMetadataPolicy,
  options: { refresh?: boolean } & FetchHooks = {},
): Promise<ClientRow | null> {
  if (clientId.length === 0 || clientId.length > 2000) return null;
  const stored = await db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (!isMetadataDocumentId(clientId, policy)) return stored?.kind === 'registered' ? stored : null;
  const maxAge = (policy.cacheSeconds ?? defaultCacheSeconds) * 1000;
  const fresh = stored?.fetched_at && Date.now() - Date.parse(stored.fetched_at) < maxAge;
  if (stored && (fresh || options.refresh === false)) return stored;
  if (options.refresh === false) return null;
  return fetchMetadataDocument(db, clientId, policy, options);
}

/**
 * A client (registered, or a fetched metadata document) that no connection was made for within this time of its
 * registration or last fetch is deleted by the sweep: anyone may register, so rows nobody uses must not pile up.
 */
export const unusedClientLifetimeSeconds = 24 * 60 * 60;
/** How often each process sweeps. */
export const clientSweepIntervalMs = 60 * 60 * 1000;

/**
 * Deletes the clients no connection was ever made for (no code exchanged), older than `olderThanSeconds`, and
 * with no authorization code still pending. A deleted metadata document is fetched again when next named.
 */
export async function sweepUnusedClients(
  db: OAuthDb,
  olderThanSeconds = unusedClientLifetimeSeconds,
): Promise<number> {
  const result = await db
    .deleteFrom('oauth_clients')
    .where(
      sql<string>`coalesce(oauth_clients.fetched_at, oauth_clients.created_at)`,
      '<',
      sql<string>`now() - make_interval(secs => ${olderThanSeconds})`,
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('assistant_connections')
            .select(sql`1`.as('one'))
            .whereRef('assistant_connections.client_id', '=', 'oauth_clients.client_id'),
        ),
      ),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('oauth_codes')
            .select(sql`1`.as('one'))
            .whereRef('oauth_codes.client_id', '=', 'oauth_clients.client_id')
            .where('oauth_codes.expires_at', '>', sql<string>`now()`),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface ClientCredentials {
  clientId: string | undefined;
  secret: string | undefined;
  /** How they came: HTTP Basic, the form body, or no secret at all. */
  via: 'basic' | 'post' | 'none';
}

/** The client's credentials from `Authorization: Basic` (RFC 6749 §2.3.1, form-urlencoded parts) or the body. */
export function credentialsOf(
  authorization: string | undefined,
  form: Record<string, string | undefined>,
): ClientCredentials {
  const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials', 401);
    try {
      return {
        clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
        secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
        via: 'basic',
      };
    } catch {
      throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials', 401);
    }
  }
  if (form.client_secret !== undefined)
    return { clientId: form.client_id, secret: form.client_secret, via: 'post' };
  return { clientId: form.client_id, secret: undefined, via: 'none' };
}

/** The authenticated client, by the method it registered; invalid_client (401) otherwise. */
export async function authenticateClient(
  db: OAuthDb,
  credentials: ClientCredentials,
  policy: ClientMetadataPolicy,
): Promise<ClientRow> {
  const refuse = () => new OAuthError('invalid_client', 'Client authentication failed', 401);
  if (!credentials.clientId) throw refuse();
  const client = await findClient(db, credentials.clientId, policy, { refresh: false });
  if (!client) throw refuse();
  const expected = client.token_endpoint_auth_method;
  if (expected === 'none') {
    if (credentials.via !== 'none') throw refuse();
    return client;
  }
  const via = expected === 'client_secret_basic' ? 'basic' : 'post';
  if (credentials.via !== via || credentials.secret === undefined || client.secret_hash === null)
    throw refuse();
  if (!matchesHash(credentials.secret, client.secret_hash)) throw refuse();
  return client;
}
