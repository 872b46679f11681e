// The OAuth 2.1 authorization server for assistants (spec "Assistant-tool server (OAuth 2.1)"): metadata
// (RFC 8414), client registration (RFC 7591), the authorization endpoint with its consent page, the token
// endpoint (authorization code with PKCE S256, rotating refresh tokens) and revocation (RFC 7009). Not under /v1
// and not in the OpenAPI document: clients speak OAuth to it, so it answers in OAuth's own shapes.
import { pkceChallenge, secretDigest } from '../../infra/crypto/digests.js';
import { pageContentSecurityPolicy } from '../shared/html-page.js';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { sql } from 'kysely';
import type { OAuthMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { assistantScopes, type AssistantScope } from '../../domain/shared/caller.js';
import { AppError } from '../../domain/shared/errors.js';
import type { Role } from '../../domain/workspaces/roles.js';
import { findMembershipRole, listWorkspacesOfUser } from '../../projections/workspaces/queries.js';
import type { RouteInstaller } from '../platform/app-env.js';
import type { AppEnv } from '../platform/app-env.js';
import { browserSessions } from '../sign-in/sessions.js';
import type { SliceContext } from '../shared/slice.js';
import { isAssistantScope, oauthDbOf } from './assistant-tokens.js';
import {
  authenticateClient,
  credentialsOf,
  findClient,
  OAuthError,
  registerClient,
  registeredRedirect,
  tokenEndpointAuthMethods,
  type ClientMetadataPolicy,
  type ClientRow,
  type FetchHooks,
} from './clients.js';
import { consentPage, errorPage } from './pages.js';
import { rateLimited, TokenBuckets, type BucketOptions } from './rate-limit.js';
import { clientLimitKeyOf } from '../platform/client-address.js';
import { TooManyRequests } from '../../domain/shared/errors.js';
import {
  accessTokenLifetimeSeconds,
  codeLifetimeSeconds,
  issueTokens,
  newSecret,
  revokeConnection,
  type OAuthDb,
} from './store.js';

export interface OAuthServerOptions extends ClientMetadataPolicy {
  /**
   * Per client address: registration, the token endpoint (revocation shares the token endpoint's bucket), and
   * fetches of client ID metadata documents (an authorization request naming one that is not cached).
   */
  rateLimits?: { register?: BucketOptions; token?: BucketOptions; metadataDocument?: BucketOptions };
}

export const defaultRateLimits = {
  register: { burst: 10, perMinute: 10 },
  token: { burst: 60, perMinute: 60 },
  metadataDocument: { burst: 10, perMinute: 10 },
} satisfies Record<string, BucketOptions>;

type Params = Record<string, string | undefined>;

/** A validated authorization request. */
interface AuthorizationRequest {
  client: ClientRow;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  scopes: AssistantScope[];
  resource: string | null;
}

type Checked =
  | { kind: 'ok'; request: AuthorizationRequest }
  /** Cannot go back to the client: shown as a page, never a redirect. */
  | { kind: 'page'; status: 400 | 403; title: string; message: string }
  /** Goes back to the client's redirect URI with `error`, `state` and `iss`. */
  | { kind: 'redirect'; redirectUri: string; state: string | undefined; error: string; description: string };

const pkceValue = /^[A-Za-z0-9._~-]{43,128}$/;
const s256Challenge = /^[A-Za-z0-9_-]{43}$/;

/** Requested scopes: space separated; omitted (or empty) is every scope; `mcp:read` always comes first. */
export function parseScopes(raw: string | undefined): AssistantScope[] | { unknown: string[] } {
  const names = (raw ?? '').split(' ').filter((s) => s.length > 0);
  if (names.length === 0) return [...assistantScopes];
  const unknown = names.filter((s) => !isAssistantScope(s));
  if (unknown.length > 0) return { unknown };
  return assistantScopes.filter((s) => s === 'mcp:read' || names.includes(s));
}

function oauthError(c: Context, error: OAuthError): Response {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  if (error.status === 401) c.header('WWW-Authenticate', 'Basic realm="oauth"');
  return c.json({ error: error.error, error_description: error.description }, error.status);
}

/** Security headers of the pages: no framing (clickjacking the Allow button), no scripts, forms post here or to the client. */
function pageHeaders(c: Context, formTarget?: string): void {
  c.header('Content-Security-Policy', pageContentSecurityPolicy(formTarget));
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('Cache-Control', 'no-store');
}

/** A form's or query's fields, each given once (a repeated field is refused, RFC 6749 §3.1). */
async function formFields(c: Context): Promise<{ fields: Params; lists: Record<string, string[]> }> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded');
  const body = await c.req.parseBody({ all: true });
  const fields: Params = {};
  const lists: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(body)) {
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    lists[name] = values;
    fields[name] = values.length === 1 ? values[0] : undefined;
  }
  return { fields, lists };
}

export function oauthRoutes(
  ctx: SliceContext<typeof browserSessions>,
  options: OAuthServerOptions = {},
): RouteInstaller {
  const db: OAuthDb = oauthDbOf(ctx);
  const issuer = ctx.publicBaseUrl;
  const mcpResource = `${issuer}/mcp`;
  const sessions = ctx.use(browserSessions);
  const registerLimit = rateLimited(
    new TokenBuckets(options.rateLimits?.register ?? defaultRateLimits.register),
  );
  const tokenLimit = rateLimited(new TokenBuckets(options.rateLimits?.token ?? defaultRateLimits.token));
  const documentFetches = new TokenBuckets(
    options.rateLimits?.metadataDocument ?? defaultRateLimits.metadataDocument,
  );
  /** The hooks of a request that may fetch a metadata document: its address's bucket, and the log. */
  const fetchHooks = (c: Context) => ({
    beforeFetch: () => {
      const taken = documentFetches.take(clientLimitKeyOf(c));
      if (!taken.allowed)
        throw new TooManyRequests(
          'Too many client ID metadata documents fetched for this address; try again later',
          taken.retryAfterSeconds,
        );
    },
    logger: ctx.logger,
  });

  const metadata: OAuthMetadata & Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...tokenEndpointAuthMethods],
    revocation_endpoint_auth_methods_supported: [...tokenEndpointAuthMethods],
    scopes_supported: [...assistantScopes],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };

  function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries(params))
      if (value !== undefined) url.searchParams.set(name, value);
    url.searchParams.set('iss', issuer);
    return url.toString();
  }

  /** Checks an authorization request in the order RFC 6749 §4.1.2.1 asks: client and redirect URI first. */
  async function check(params: Params, hooks: FetchHooks): Promise<Checked> {
    const clientId = params.client_id;
    if (!clientId)
      return {
        kind: 'page',
        status: 400,
        title: 'Unknown application',
        message: 'The request names no client_id.',
      };
    let client: ClientRow | null;
    try {
      client = await findClient(db, clientId, options, hooks);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return { kind: 'page', status: 400, title: 'Application not recognised', message: error.description };
    }
    if (!client)
      return {
        kind: 'page',
        status: 400,
        title: 'Unknown application',
        message: 'The application that sent you here is not registered with this service.',
      };
    const redirectUri = params.redirect_uri;
    if (!redirectUri || !registeredRedirect(client.redirect_uris, redirectUri))
      return {
        kind: 'page',
        status: 400,
        title: 'Unexpected return address',
        message: `The application asked to send you back to an address it did not register (${redirectUri ?? 'none'}). You have not been sent there.`,
      };
    const state = params.state;
    const refuse = (error: string, description: string): Checked => ({
      kind: 'redirect',
      redirectUri,
      state,
      error,
      description,
    });
    if (params.response_type !== 'code')
      return refuse('unsupported_response_type', 'response_type must be code');
    if (!params.code_challenge) return refuse('invalid_request', 'code_challenge is required (PKCE)');
    if (params.code_challenge_method !== 'S256')
      return refuse('invalid_request', 'code_challenge_method must be S256');
    if (!s256Challenge.test(params.code_challenge))
      return refuse('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier');
    const scopes = parseScopes(params.scope);
    if (!Array.isArray(scopes)) return refuse('invalid_scope', `Unknown scope: ${scopes.unknown.join(' ')}`);
    if (params.resource !== undefined && params.resource !== mcpResource)
      return refuse('invalid_target', `resource must be ${mcpResource}`);
    return {
      kind: 'ok',
      request: {
        client,
        redirectUri,
        state,
        codeChallenge: params.code_challenge,
        scopes,
        resource: params.resource ?? null,
      },
    };
  }

  /** The authorization request's parameters as the consent form sends them back. */
  function requestFields(request: AuthorizationRequest): Record<string, string> {
    return {
      response_type: 'code',
      client_id: request.client.client_id,
      redirect_uri: request.redirectUri,
      ...(request.state !== undefined ? { state: request.state } : {}),
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
      scope: request.scopes.join(' '),
      ...(request.resource !== null ? { resource: request.resource } : {}),
    };
  }

  function answerChecked(c: Context, checked: Exclude<Checked, { kind: 'ok' }>): Response {
    if (checked.kind === 'page') {
      pageHeaders(c);
      return c.html(errorPage(checked.title, checked.message), checked.status);
    }
    c.header('Cache-Control', 'no-store');
    return c.redirect(
      redirectTo(checked.redirectUri, {
        error: checked.error,
        error_description: checked.description,
        state: checked.state,
      }),
      303,
    );
  }

  return (app: OpenAPIHono<AppEnv>) => {
    app.get('/.well-known/oauth-authorization-server', (c) => {
      c.header('Cache-Control', 'public, max-age=300');
      return c.json(metadata, 200);
    });

    app.post('/oauth/register', registerLimit, async (c) => {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return oauthError(c, new OAuthError('invalid_client_metadata', 'The body must be a JSON object'));
      }
      try {
        const information = await registerClient(db, body);
        c.header('Cache-Control', 'no-store');
        return c.json(information, 201);
      } catch (error) {
        if (error instanceof OAuthError) return oauthError(c, error);
        throw error;
      }
    });

    app.get('/oauth/authorize', async (c) => {
      // A parameter given twice counts as not given (RFC 6749 §3.1: each at most once).
      const query: Params = Object.fromEntries(
        Object.entries(c.req.queries()).map(([name, values]) => [
          name,
          values.length === 1 ? values[0] : undefined,
        ]),
      );
      const checked = await check(query, fetchHooks(c));
      if (checked.kind !== 'ok') return answerChecked(c, checked);
      const { request } = checked;
      const user = await sessions.current(c);
      if (!user) {
        const url = new URL(c.req.url);
        c.header('Cache-Control', 'no-store');
        return c.redirect(sessions.signInPath(`${url.pathname}${url.search}`), 303);
      }
      const workspaces = await listWorkspacesOfUser(ctx.readModels, user.userId, {
        limit: 100,
        offset: 0,
        sortDir: 'asc',
        filters: [],
      });
      pageHeaders(c, new URL(request.redirectUri).origin);
      return c.html(
        consentPage({
          clientName: request.client.client_name,
          clientId: request.client.client_id,
          kind: request.client.kind,
          redirectHost: new URL(request.redirectUri).host,
          userEmail: user.email,
          workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role })),
          scopes: request.scopes,
          request: requestFields(request),
          csrfToken: sessions.csrfToken(user),
          action: '/oauth/authorize',
        }),
        200,
      );
    });

    app.post('/oauth/authorize', async (c) => {
      const refusePage = (status: 400 | 403, title: string, message: string) => {
        pageHeaders(c);
        return c.html(errorPage(title, message), status);
      };
      let form: Awaited<ReturnType<typeof formFields>>;
      try {
        form = await formFields(c);
      } catch {
        return refusePage(400, 'Request refused', 'The form could not be read.');
      }
      const { fields, lists } = form;
      const user = await sessions.current(c);
      if (!user)
        return refusePage(
          403,
          'Request refused',
          'You are not signed in any more. Start again from the application.',
        );
      if (!sessions.verifyCsrf(user, fields.csrf_token))
        return refusePage(
          403,
          'Request refused',
          'This form did not come from this service (or it is too old). Start again from the application.',
        );
      const checked = await check(fields, fetchHooks(c));
      if (checked.kind !== 'ok') return answerChecked(c, checked);
      const { request } = checked;
      const back = (params: Record<string, string | undefined>) => {
        c.header('Cache-Control', 'no-store');
        return c.redirect(redirectTo(request.redirectUri, { ...params, state: request.state }), 303);
      };
      if (fields.decision === 'deny')
        return back({ error: 'access_denied', error_description: 'The user denied the request' });
      if (fields.decision !== 'allow') return refusePage(400, 'Request refused', 'Choose Allow or Deny.');
      const orgId = fields.org_id;
      if (!orgId || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(orgId))
        return refusePage(400, 'Choose a workspace', 'Choose the workspace the application may act in.');
      const role = await findMembershipRole(ctx.readModels, user.userId, orgId.toLowerCase());
      if (role === null) return refusePage(403, 'Request refused', 'You are not a member of that workspace.');
      const chosen = lists.granted_scope ?? [];
      const granted = request.scopes.filter((s) => s === 'mcp:read' || chosen.includes(s));
      const code = newSecret('spk_');
      await db
        .insertInto('oauth_codes')
        .values({
          code_hash: secretDigest(code),
          client_id: request.client.client_id,
          user_id: user.userId,
          org_id: orgId.toLowerCase(),
          scopes: granted,
          redirect_uri: request.redirectUri,
          code_challenge: request.codeChallenge,
          resource: request.resource,
          expires_at: sql<string>`now() + make_interval(secs => ${codeLifetimeSeconds})`,
        })
        .execute();
      return back({ code });
    });

    app.post(
      '/oauth/token',
      tokenLimit,
      fromClient(async (c, client, fields) => {
        c.header('Pragma', 'no-cache');
        let tokens: OAuthTokens;
        if (fields.grant_type === 'authorization_code') tokens = await exchangeCode(client, fields);
        else if (fields.grant_type === 'refresh_token') tokens = await refresh(client, fields);
        else if (fields.grant_type === undefined)
          throw new OAuthError('invalid_request', 'grant_type is required');
        else
          throw new OAuthError(
            'unsupported_grant_type',
            'grant_type must be authorization_code or refresh_token',
          );
        return c.json(tokens, 200);
      }),
    );

    app.post(
      '/oauth/revoke',
      tokenLimit,
      fromClient(async (c, client, fields) => {
        const token = fields.token;
        if (!token) throw new OAuthError('invalid_request', 'token is required');
        const row = await db
          .selectFrom('oauth_tokens as t')
          .innerJoin('assistant_connections as c', 'c.id', 't.connection_id')
          .select(['t.kind', 't.connection_id', 'c.client_id'])
          .where('t.hash', '=', secretDigest(token))
          .executeTakeFirst();
        // RFC 7009 §2.2: an unknown token (or another client's) is answered 200 all the same.
        if (row && row.client_id === client.client_id) {
          if (row.kind === 'refresh') await revokeConnection(db, row.connection_id);
          else
            await db
              .updateTable('oauth_tokens')
              .set({ revoked_at: sql<string>`now()` })
              .where('hash', '=', secretDigest(token))
              .where('revoked_at', 'is', null)
              .execute();
        }
        return c.body(null, 200);
      }),
    );
  };

  /**
   * A client's form POST (token, revocation): not stored by caches, its fields given once, the client
   * authenticated by its method; OAuth errors answered in RFC 6749 §5.2's shape.
   */
  function fromClient(handle: (c: Context, client: ClientRow, fields: Params) => Promise<Response>) {
    return async (c: Context) => {
      c.header('Cache-Control', 'no-store');
      try {
        const { fields } = await formFields(c);
        const client = await authenticateClient(
          db,
          credentialsOf(c.req.header('authorization'), fields),
          options,
        );
        return await handle(c, client, fields);
      } catch (error) {
        if (error instanceof OAuthError) return oauthError(c, error);
        throw error;
      }
    };
  }

  function tokenAnswer(
    issued: { accessToken: string; refreshToken: string },
    scopes: readonly string[],
  ): OAuthTokens {
    return {
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: accessTokenLifetimeSeconds,
      refresh_token: issued.refreshToken,
      scope: scopes.join(' '),
    };
  }

  /**
   * A connection works only while its user is an active member of its workspace: a removed member's ends
   * (invalid_grant; rejoining does not revive it), a suspended member's or a deleted workspace's is refused
   * (a deleted workspace never comes back; a suspension may be lifted).
   */
  async function requireMember(userId: string, orgId: string, connectionId: string | null): Promise<void> {
    let role: Role | null;
    try {
      role = await ctx.roleOf(userId, orgId);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      throw new OAuthError('invalid_grant', error.message);
    }
    if (role !== null) return;
    if (connectionId !== null) await revokeConnection(db, connectionId);
    throw new OAuthError(
      'invalid_grant',
      'The user who connected this assistant is no longer a member of the workspace; connect again',
    );
  }

  async function exchangeCode(client: ClientRow, fields: Params): Promise<OAuthTokens> {
    const { code, redirect_uri: redirectUri, code_verifier: verifier } = fields;
    if (!code || !redirectUri || !verifier)
      throw new OAuthError('invalid_request', 'code, redirect_uri and code_verifier are required');
    const hash = secretDigest(code);
    const row = await db
      .selectFrom('oauth_codes')
      .selectAll()
      .select(sql<boolean>`expires_at > now()`.as('live'))
      .where('code_hash', '=', hash)
      .executeTakeFirst();
    const invalid = (why: string) => new OAuthError('invalid_grant', why);
    if (!row) throw invalid('The authorization code is unknown');
    if (row.used_at !== null) {
      // A code presented twice was seen by someone else: what it gave is ended (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3).
      if (row.connection_id !== null) await revokeConnection(db, row.connection_id);
      throw invalid('The authorization code was already used');
    }
    if (row.client_id !== client.client_id)
      throw invalid('The authorization code was issued to another client');
    if (!row.live) throw invalid('The authorization code has expired');
    if (row.redirect_uri !== redirectUri)
      throw invalid('redirect_uri does not match the authorization request');
    if (!pkceValue.test(verifier) || pkceChallenge(verifier) !== row.code_challenge)
      throw invalid('code_verifier does not match the code challenge');
    if (fields.resource !== undefined && fields.resource !== (row.resource ?? mcpResource))
      throw new OAuthError('invalid_target', `resource must be ${mcpResource}`);
    try {
      await requireMember(row.user_id, row.org_id, null);
    } catch (error) {
      // Spent: it gives nothing, not even after the user rejoins.
      await db
        .updateTable('oauth_codes')
        .set({ used_at: sql<string>`now()` })
        .where('code_hash', '=', hash)
        .where('used_at', 'is', null)
        .execute();
      throw error;
    }
    const scopes = row.scopes.filter(isAssistantScope);
    const issued = await db.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable('oauth_codes')
        .set({ used_at: sql<string>`now()` })
        .where('code_hash', '=', hash)
        .where('used_at', 'is', null)
        .returning('code_hash')
        .executeTakeFirst();
      if (!claimed) return null;
      const connection = await trx
        .insertInto('assistant_connections')
        .values({
          id: sql<string>`gen_random_uuid()`,
          client_id: client.client_id,
          client_name: client.client_name,
          user_id: row.user_id,
          org_id: row.org_id,
          scopes,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('oauth_codes')
        .set({ connection_id: connection.id })
        .where('code_hash', '=', hash)
        .execute();
      return issueTokens(trx, connection.id, { access: scopes, refresh: scopes });
    });
    if (!issued) {
      const raced = await db
        .selectFrom('oauth_codes')
        .select('connection_id')
        .where('code_hash', '=', hash)
        .executeTakeFirst();
      if (raced?.connection_id) await revokeConnection(db, raced.connection_id);
      throw invalid('The authorization code was already used');
    }
    return tokenAnswer(issued, scopes);
  }

  async function refresh(client: ClientRow, fields: Params): Promise<OAuthTokens> {
    const token = fields.refresh_token;
    if (!token) throw new OAuthError('invalid_request', 'refresh_token is required');
    const hash = secretDigest(token);
    const invalid = (why: string) => new OAuthError('invalid_grant', why);
    const row = await db
      .selectFrom('oauth_tokens as t')
      .innerJoin('assistant_connections as c', 'c.id', 't.connection_id')
      .select([
        't.connection_id',
        't.scopes',
        't.used_at',
        't.revoked_at',
        'c.client_id',
        'c.user_id',
        'c.org_id',
        'c.revoked_at as connection_revoked_at',
      ])
      .select(sql<boolean>`t.expires_at > now()`.as('live'))
      .where('t.hash', '=', hash)
      .where('t.kind', '=', 'refresh')
      .executeTakeFirst();
    if (!row || row.client_id !== client.client_id) throw invalid('The refresh token is unknown');
    if (row.connection_revoked_at !== null || row.revoked_at !== null)
      throw invalid('The connection was ended; connect again');
    if (row.used_at !== null) {
      // Rotation: a refresh token comes back only when someone kept a copy; the whole connection ends.
      await revokeConnection(db, row.connection_id);
      throw invalid('The refresh token was already used; the connection has been ended');
    }
    if (!row.live) throw invalid('The refresh token has expired');
    await requireMember(row.user_id, row.org_id, row.connection_id);
    const held = row.scopes.filter(isAssistantScope);
    let access = held;
    if (fields.scope !== undefined) {
      const asked = (fields.scope ?? '').split(' ').filter((s) => s.length > 0);
      const beyond = asked.filter((s) => !(held as string[]).includes(s));
      if (beyond.length > 0)
        throw new OAuthError('invalid_scope', `Not granted to this connection: ${beyond.join(' ')}`);
      if (asked.length > 0) access = held.filter((s) => s === 'mcp:read' || asked.includes(s));
    }
    const issued = await db.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable('oauth_tokens')
        .set({ used_at: sql<string>`now()` })
        .where('hash', '=', hash)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .returning('hash')
        .executeTakeFirst();
      if (!claimed) return null;
      return issueTokens(trx, row.connection_id, { access, refresh: held });
    });
    if (!issued) {
      await revokeConnection(db, row.connection_id);
      throw invalid('The refresh token was already used; the connection has been ended');
    }
    return tokenAnswer(issued, access);
  }
}
