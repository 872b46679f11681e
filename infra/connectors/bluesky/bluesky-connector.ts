// The live Bluesky connector (AT Protocol): app-password sessions and OAuth with DPoP, posts with facets,
// images and threads under record keys derived from the idempotency key, status by record, deletion, profile,
// posts' counts (25 at a time) and the account's follower counts.
import { createHash, randomBytes } from 'node:crypto';
import { Agent, RichText, XRPCError, type AppBskyFeedPost, type BlobRef } from '@atproto/api';
import { JoseKey } from '@atproto/jwk-jose';
// The isomorphic client rather than @atproto/oauth-client-node: the node package's DNS handle resolver pulls in
// an undici build that needs Node 22.19, and this service runs on Node 20. Handles resolve over XRPC instead.
import {
  OAuthClient,
  TokenInvalidError,
  TokenRefreshError,
  TokenRevokedError,
  type HandleResolver,
  type OAuthSession,
  type SessionStore,
  type StateStore,
} from '@atproto/oauth-client';
import type { TokenCipher } from '../../crypto/token-cipher.js';
import { checkUrl, createSafeFetch, UnsafeUrlError, type OutboundPolicy } from '../../http/safe-fetch.js';
import type { LiveConnectorOptions } from '../http.js';
import {
  ConnectorError,
  isConnectorError,
  metricsReading,
  type AccountProfile,
  type AccountStats,
  type AuthorizationCallback,
  type AuthorizationRequest,
  type AuthorizationResult,
  type AuthorizationStart,
  type CallContext,
  type ConnectedAccount,
  type MetricsFetch,
  type MetricsRequest,
  type PlatformConnector,
  type PublishOutcome,
  type PublishRequest,
  type StatusCheck,
  type StatusQuery,
  type TokenSet,
} from '../port.js';
import {
  blueskySessionStore,
  blueskyStateStore,
  postgresLock,
  takeBlueskyState,
  type AnyKysely,
} from './oauth-stores.js';
import { blueskyClientMetadata, blueskyOAuthScope } from './client-metadata.js';
import { isBlueskyIdentifier } from './identifier.js';
export { blueskyClientMetadata, blueskyOAuthScope } from './client-metadata.js';

/** URIs app.bsky.feed.getPosts takes at once. */
const postsPerGetPosts = 25;

export { blueskyOAuthMigrations } from './oauth-stores.js';

export type BlueskyConnectorConfig = LiveConnectorOptions & {
  /** The service's public URL; the OAuth client id and redirect URI hang off it. */
  publicBaseUrl: string;
  /** Where app passwords sign in and handles resolve: https://bsky.social. */
  serviceUrl?: string;
  /** Post links: https://bsky.app. */
  appUrl?: string;
  /** OAuth needs both (its pending authorizations and sessions are shared by every process). */
  db?: AnyKysely;
  cipher?: TokenCipher;
  /** OAuth identity resolution: an XRPC service resolving handles (default: the service URL) and the PLC directory. */
  handleResolver?: HandleResolver | string | URL;
  plcDirectoryUrl?: string;
  /** Tests only: lets the OAuth client talk to servers over plain HTTP. */
  allowHttp?: boolean;
  /**
   * Tests only, never from configuration: the locally served PLC directory, PDS and authorization server the
   * SSRF-safe fetch may reach on loopback (see OutboundPolicy). Everything else stays refused.
   */
  allowPrivate?: OutboundPolicy['allowPrivate'];
};

/** Largest answer taken from an AT Protocol server (DID documents, OAuth metadata, XRPC JSON). */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const POST = 'app.bsky.feed.post';

const S32 = '234567abcdefghijklmnopqrstuvwxyz';

/**
 * A valid TID (13 base32-sortable characters, top bit clear) derived from the idempotency key and the thread
 * position, so a retried create names the same record and the PDS refuses a second copy.
 */
export function blueskyRecordKey(idempotencyKey: string, index = 0): string {
  const digest = createHash('sha256').update(`${idempotencyKey}#${index}`).digest();
  let value = digest.readBigUInt64BE(0) & 0x7fffffffffffffffn;
  let out = '';
  for (let i = 0; i < 13; i += 1) {
    out = S32[Number(value & 31n)]! + out;
    value >>= 5n;
  }
  return out;
}

function rkeyOf(externalId: string): string {
  return externalId.split('/').pop() ?? externalId;
}

/** The JWT `exp` as ISO time; app-password sessions say when they end only there. */
function jwtExpiry(jwt: string): string | null {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof payload.exp === 'number' ? new Date(payload.exp * 1000).toISOString() : null;
  } catch {
    return null;
  }
}

function pdsOf(didDoc: unknown): string | null {
  const services = (
    didDoc as { service?: Array<{ id?: string; type?: string; serviceEndpoint?: unknown }> } | undefined
  )?.service;
  const pds = services?.find((s) => s.id === '#atproto_pds' || s.type === 'AtprotoPersonalDataServer');
  return typeof pds?.serviceEndpoint === 'string' ? pds.serviceEndpoint : null;
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = error; e && chain.length < 6; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/**
 * XRPC and OAuth failures in the port's kinds. `effect` says whether the call creates something: a lost answer
 * to a create may have created it.
 */
export function blueskyFailure(error: unknown, effect: 'create' | 'read', now = Date.now()): ConnectorError {
  if (isConnectorError(error)) return error;
  if (
    error instanceof TokenRefreshError ||
    error instanceof TokenRevokedError ||
    error instanceof TokenInvalidError
  )
    return new ConnectorError(
      'auth',
      `bluesky: the session is no longer valid; reconnect the account (${error.message})`,
    );
  // The SSRF-safe fetch refused the server before sending anything: nothing was created, and trying again
  // would be refused again.
  const refused = causeChain(error).find((e) => e instanceof UnsafeUrlError);
  if (refused) return new ConnectorError('permanent', `bluesky: not sent: ${refused.message}`);
  const lost = causeChain(error).some((e) => {
    const name = (e as { name?: string }).name;
    return name === 'TimeoutError' || name === 'AbortError';
  });
  if (error instanceof XRPCError) {
    const status = error.status as number;
    const label = `bluesky: ${error.error}${error.message && error.message !== error.error ? `: ${error.message}` : ''}`;
    if (status === 1 || lost)
      return new ConnectorError(
        effect === 'create' ? 'unknown_outcome' : 'retryable',
        `${label} (no answer)`,
      );
    const details = { status, platformCode: error.error };
    if (
      ['ExpiredToken', 'InvalidToken', 'AuthenticationRequired', 'AuthMissing'].includes(error.error) ||
      status === 401
    )
      return new ConnectorError('auth', `${label} (HTTP ${status})`, details);
    if (status === 429 || error.error === 'RateLimitExceeded') {
      const reset = Number(error.headers?.['ratelimit-reset']);
      const retryAfter =
        Number.isFinite(reset) && reset > 0 ? { retryAfterMs: Math.max(0, reset * 1000 - now) } : {};
      return new ConnectorError('rate_limited', `${label} (HTTP ${status})`, { ...details, ...retryAfter });
    }
    if (status >= 500)
      return new ConnectorError(
        effect === 'create' ? 'unknown_outcome' : 'retryable',
        `${label} (HTTP ${status})`,
        details,
      );
    return new ConnectorError('permanent', `${label} (HTTP ${status})`, details);
  }
  if (lost)
    return new ConnectorError(effect === 'create' ? 'unknown_outcome' : 'retryable', 'bluesky: no answer');
  return new ConnectorError(
    effect === 'create' ? 'unknown_outcome' : 'retryable',
    `bluesky: ${error instanceof Error ? error.message : String(error)}`,
  );
}

function isRecordNotFound(error: unknown): boolean {
  return (
    error instanceof XRPCError &&
    (error.error === 'RecordNotFound' ||
      (error.error === 'InvalidRequest' && /could not locate record/i.test(error.message)))
  );
}

function isAlreadyExists(error: unknown): boolean {
  return (
    error instanceof XRPCError &&
    (error.status as number) === 400 &&
    /already exists|RecordAlreadyExists/i.test(`${error.error} ${error.message}`)
  );
}

export function createBlueskyConnector(config: BlueskyConnectorConfig): PlatformConnector {
  const serviceUrl = (config.serviceUrl ?? 'https://bsky.social').replace(/\/$/, '');
  const appUrl = (config.appUrl ?? 'https://bsky.app').replace(/\/$/, '');
  const now = () => config.now?.() ?? new Date();
  const fail = (error: unknown, effect: 'create' | 'read') => blueskyFailure(error, effect, now().getTime());
  const timeoutMs = config.timeoutMs ?? 30_000;
  // Handles, DIDs and DID documents are the user's to choose, and name the servers we call next (PLC or did:web
  // host, PDS, authorization server, PAR and token endpoints): every call goes through the SSRF-safe fetch.
  const policy: OutboundPolicy = {
    requireHttps: config.allowHttp !== true,
    ...(config.allowPrivate !== undefined ? { allowPrivate: config.allowPrivate } : {}),
  };
  const baseFetch = config.fetch ?? createSafeFetch({ ...policy, timeoutMs, maxBytes: MAX_RESPONSE_BYTES });

  /**
   * A server taken from a DID document, a session or stored tokens, checked before any token goes to it:
   * https (plain http in tests only) on a public host name or address, port 443.
   */
  function publicService(url: string, what: string): string {
    try {
      checkUrl(new URL(url), policy);
    } catch (error) {
      throw new ConnectorError(
        'permanent',
        `bluesky: ${what} ${JSON.stringify(url.slice(0, 200))} is not a public https server (${(error as Error).message})`,
      );
    }
    return url;
  }

  const timedFetch: typeof fetch = (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return baseFetch(input, { ...init, signal });
  };

  /** An agent on a service, with a bearer token when given; it never refreshes by itself (we own the tokens). */
  function agentAt(service: string, bearer?: string): Agent {
    publicService(service, 'the account server');
    return new Agent(async (path, init) => {
      const headers = new Headers(init.headers);
      if (bearer) headers.set('authorization', `Bearer ${bearer}`);
      return timedFetch(new URL(path, service), { ...init, headers });
    });
  }

  let oauth: { client: OAuthClient; states: StateStore; sessions: SessionStore } | undefined;
  function oauthClient() {
    if (!config.db || !config.cipher)
      throw new ConnectorError(
        'permanent',
        'bluesky: OAuth is not available (no database or token cipher configured)',
      );
    if (!oauth) {
      const stateStore = blueskyStateStore(config.db, config.cipher);
      const sessionStore = blueskySessionStore(config.db, config.cipher);
      const client = new OAuthClient({
        clientMetadata: blueskyClientMetadata(config.publicBaseUrl),
        responseMode: 'query',
        stateStore,
        sessionStore,
        runtimeImplementation: {
          requestLock: postgresLock(config.db),
          createKey: (algs) => JoseKey.generate(algs),
          getRandomValues: (length) => randomBytes(length),
          digest: (bytes, algorithm) => createHash(algorithm.name).update(bytes).digest(),
        },
        fetch: timedFetch,
        handleResolver: config.handleResolver ?? serviceUrl,
        ...(config.plcDirectoryUrl ? { plcDirectoryUrl: config.plcDirectoryUrl } : {}),
        ...(config.allowHttp ? { allowHttp: true } : {}),
      });
      oauth = { client, states: stateStore, sessions: sessionStore };
    }
    return oauth;
  }

  /**
   * `oauthResolver.resolve` with the PDS checked between the DID document and the first call to it: a handle or
   * DID resolves to a document naming the PDS, which names the authorization server. A URL (our configured
   * service) is asked directly.
   */
  async function resolveAuthorizationServer(client: OAuthClient, input: string) {
    if (/^https?:\/\//.test(input)) return client.oauthResolver.resolve(input);
    const identityInfo = await client.oauthResolver.resolveIdentity(input);
    const pds = pdsOf(identityInfo.didDoc);
    if (!pds) throw new ConnectorError('permanent', `bluesky: the DID document of "${input}" names no PDS`);
    const metadata = await client.oauthResolver.getResourceServerMetadata(
      publicService(pds, "the account's PDS"),
    );
    return { identityInfo, metadata };
  }

  async function oauthTokens(did: string): Promise<TokenSet> {
    const stored = await oauthClient().sessions.get(did);
    if (!stored) throw new ConnectorError('auth', 'bluesky: no OAuth session for this account; reconnect it');
    const t = stored.tokenSet;
    return {
      // DPoP-bound: useless without the key kept in the session store; the session store is what calls use.
      accessToken: t.access_token,
      refreshToken: t.refresh_token ?? null,
      expiresAt: t.expires_at ?? null,
      scopes: t.scope.split(' ').filter(Boolean),
      extra: { did: t.sub, service: t.aud, auth: 'oauth' },
    };
  }

  async function agentFor(context: CallContext): Promise<{ agent: Agent; did: string }> {
    const extra = context.tokens.extra ?? {};
    const did = typeof extra.did === 'string' ? extra.did : context.account.accountExternalId;
    if (extra.auth === 'oauth') {
      let session: OAuthSession;
      try {
        session = await oauthClient().client.restore(did);
      } catch (error) {
        throw fail(error, 'read');
      }
      return { agent: new Agent(session), did };
    }
    const service = typeof extra.service === 'string' ? extra.service : serviceUrl;
    return { agent: agentAt(service, context.tokens.accessToken), did };
  }

  async function profileOf(agent: Agent, did: string): Promise<AccountProfile> {
    const { data } = await agent.app.bsky.actor.getProfile({ actor: did });
    return {
      accountExternalId: data.did,
      accountName: data.displayName ?? null,
      accountHandle: data.handle,
      profileImageUrl: data.avatar ?? null,
      profileUrl: `${appUrl}/profile/${data.handle}`,
      accountBio: data.description ?? null,
    };
  }

  function postUrl(handle: string | null, did: string, rkey: string): string {
    return `${appUrl}/profile/${handle ?? did}/post/${rkey}`;
  }

  async function uploadImages(agent: Agent, context: CallContext, request: PublishRequest) {
    const media = request.media;
    if (!media) return undefined;
    switch (media.kind) {
      case 'image':
      case 'images': {
        const images = media.kind === 'image' ? [media] : media.images;
        if (images.length > 4)
          throw new ConnectorError('permanent', 'bluesky: a post takes at most 4 images');
        const embedded: Array<{
          image: BlobRef;
          alt: string;
          aspectRatio?: { width: number; height: number };
        }> = [];
        for (const image of images) {
          const file = await context.fetchMedia(image);
          const { data } = await agent.com.atproto.repo.uploadBlob(await file.bytes(), {
            encoding: file.contentType,
          });
          embedded.push({
            image: data.blob,
            alt: image.altText ?? '',
            ...(image.width && image.height
              ? { aspectRatio: { width: image.width, height: image.height } }
              : {}),
          });
        }
        return { $type: 'app.bsky.embed.images', images: embedded };
      }
      case 'video': {
        const file = await context.fetchMedia(media);
        const { data } = await agent.com.atproto.repo.uploadBlob(await file.blob(), {
          encoding: file.contentType,
        });
        return {
          $type: 'app.bsky.embed.video',
          video: data.blob,
          aspectRatio: { width: media.width, height: media.height },
        };
      }
      case 'document':
        throw new ConnectorError('permanent', 'bluesky: documents cannot be posted to Bluesky');
      default: {
        const never: never = media;
        return never;
      }
    }
  }

  async function textRecord(agent: Agent, text: string) {
    const rt = new RichText({ text });
    // Mentions resolve through the agent's own service (the account's PDS), never a hard-coded host.
    await rt.detectFacets(agent);
    const facets = rt.facets?.filter((facet) =>
      facet.features.every(
        (f) => f.$type !== 'app.bsky.richtext.facet#mention' || (f as { did?: string }).did,
      ),
    );
    return { text: rt.text, ...(facets && facets.length > 0 ? { facets } : {}) };
  }

  /** Creates one record under its derived key; a record already there (a retried create) is taken as made. */
  async function createPost(agent: Agent, did: string, rkey: string, record: AppBskyFeedPost.Record) {
    try {
      const { data } = await agent.com.atproto.repo.createRecord({
        repo: did,
        collection: POST,
        rkey,
        record,
      });
      return { uri: data.uri, cid: data.cid };
    } catch (error) {
      if (!isAlreadyExists(error)) throw fail(error, 'create');
      const { data } = await agent.com.atproto.repo.getRecord({ repo: did, collection: POST, rkey });
      return { uri: data.uri, cid: data.cid ?? '' };
    }
  }

  async function sessionAccount(
    service: string,
    session: { accessJwt: string; refreshJwt: string; did: string; handle: string; didDoc?: unknown },
  ): Promise<ConnectedAccount> {
    const pds = publicService(pdsOf(session.didDoc) ?? service, "the account's PDS");
    const agent = agentAt(pds, session.accessJwt);
    const profile = await profileOf(agent, session.did).catch((error: unknown) => {
      throw fail(error, 'read');
    });
    return {
      profile,
      tokens: {
        accessToken: session.accessJwt,
        refreshToken: session.refreshJwt,
        expiresAt: jwtExpiry(session.accessJwt),
        refreshTokenExpiresAt: jwtExpiry(session.refreshJwt),
        scopes: ['com.atproto.appPass'],
        extra: { did: session.did, service: pds, handle: session.handle, auth: 'app_password' },
      },
    };
  }

  return {
    platform: 'bluesky',
    mode: 'live',
    supportsRefresh: true,

    missingConfiguration() {
      // App passwords need nothing; OAuth needs a public https URL for its client id.
      return config.publicBaseUrl.startsWith('https://') ? [] : ['PUBLIC_BASE_URL'];
    },

    async startAuthorization(request: AuthorizationRequest): Promise<AuthorizationStart> {
      const { client, states } = oauthClient();
      const input = request.blueskyHandle ?? serviceUrl;
      if (request.blueskyHandle !== undefined && !isBlueskyIdentifier(request.blueskyHandle))
        throw new ConnectorError(
          'permanent',
          `bluesky: "${request.blueskyHandle.slice(0, 260)}" is not a handle, a did:plc or a did:web on a public host`,
        );
      try {
        const { identityInfo, metadata } = await resolveAuthorizationServer(client, input);
        const dpopKey = await client.runtime.generateKey(
          metadata.dpop_signing_alg_values_supported ?? ['ES256'],
        );
        const authMethod = { method: 'none' as const };
        // The route's state and PKCE challenge are used as they are, so its callback finds its own pending row;
        // the DPoP key and issuer wait in the shared state store under that state.
        await states.set(request.state, { iss: metadata.issuer, dpopKey, authMethod, verifier: '' });
        const parameters = {
          client_id: client.clientMetadata.client_id,
          redirect_uri: request.callbackUrl as `https://${string}`,
          code_challenge: request.codeChallenge,
          code_challenge_method: 'S256' as const,
          state: request.state,
          response_mode: 'query' as const,
          response_type: 'code' as const,
          scope: blueskyOAuthScope,
          ...(identityInfo
            ? {
                login_hint: identityInfo.handle !== 'handle.invalid' ? identityInfo.handle : identityInfo.did,
              }
            : {}),
        };
        const url = new URL(metadata.authorization_endpoint);
        if (metadata.pushed_authorization_request_endpoint) {
          const server = await client.serverFactory.fromMetadata(metadata, authMethod, dpopKey);
          const par = await server.request('pushed_authorization_request', parameters);
          url.searchParams.set('client_id', client.clientMetadata.client_id);
          url.searchParams.set('request_uri', par.request_uri);
        } else {
          for (const [key, value] of Object.entries(parameters)) url.searchParams.set(key, String(value));
        }
        return { authorizationUrl: url.toString() };
      } catch (error) {
        if (isConnectorError(error)) throw error;
        // A handle or server that does not resolve is the caller's input; the route reports it as such.
        const name = (error as { name?: string }).name ?? '';
        if (/Resolver|Identity|Handle|Did/i.test(name) || /resolve/i.test((error as Error).message ?? ''))
          throw new ConnectorError(
            'permanent',
            `bluesky: could not find an account server for "${input}" (${(error as Error).message})`,
          );
        throw fail(error, 'read');
      }
    },

    async completeAuthorization(callback: AuthorizationCallback): Promise<AuthorizationResult> {
      const { error: denied, error_description: description, state, code, iss } = callback.params;
      const { client, sessions } = oauthClient();
      if (!state) throw new ConnectorError('permanent', 'bluesky: the callback brought no state');
      const pending = await takeBlueskyState(config.db!, config.cipher!, state);
      if (denied)
        throw new ConnectorError('permanent', `bluesky: authorization refused (${description ?? denied})`, {
          platformCode: denied,
        });
      if (!pending)
        throw new ConnectorError('permanent', 'bluesky: unknown or already used authorization state');
      if (!code) throw new ConnectorError('permanent', 'bluesky: the callback brought no authorization code');
      try {
        const { dpopKey } = pending;
        const server = await client.serverFactory.fromIssuer(pending.iss, pending.authMethod, dpopKey);
        if (
          iss !== undefined
            ? iss !== server.issuer
            : server.serverMetadata.authorization_response_iss_parameter_supported
        )
          throw new ConnectorError('permanent', 'bluesky: the callback came from another issuer');
        const tokenSet = await server.exchangeCode(
          code,
          callback.codeVerifier,
          callback.callbackUrl as `https://${string}`,
        );
        // The PDS the tokens are for (the resolved DID document's) gets every call of the session.
        publicService(tokenSet.aud, "the account's PDS");
        await sessions.set(tokenSet.sub, { dpopKey, authMethod: server.authMethod, tokenSet });
        const restored = await client.restore(tokenSet.sub, false);
        const profile = await profileOf(new Agent(restored), tokenSet.sub);
        return { kind: 'accounts', accounts: [{ profile, tokens: await oauthTokens(tokenSet.sub) }] };
      } catch (error) {
        throw isConnectorError(error) ? error : fail(error, 'read');
      }
    },

    async connectWithAppPassword(handle: string, appPassword: string): Promise<ConnectedAccount> {
      let session;
      try {
        ({ data: session } = await agentAt(serviceUrl).com.atproto.server.createSession({
          identifier: handle.replace(/^@/, ''),
          password: appPassword,
        }));
      } catch (error) {
        // A refused sign-in is the caller's input (wrong handle or app password), not an expired token.
        if (
          error instanceof XRPCError &&
          ((error.status as number) === 401 || error.error === 'AuthenticationRequired')
        )
          throw new ConnectorError('permanent', 'bluesky: the handle or app password was not accepted', {
            status: 401,
            platformCode: error.error,
          });
        throw fail(error, 'read');
      }
      return sessionAccount(serviceUrl, session);
    },

    async refresh(account, tokens): Promise<TokenSet> {
      const extra = tokens.extra ?? {};
      const did = typeof extra.did === 'string' ? extra.did : account.accountExternalId;
      if (extra.auth === 'oauth') {
        try {
          await oauthClient().client.restore(did, true);
        } catch (error) {
          throw fail(error, 'read');
        }
        return oauthTokens(did);
      }
      if (!tokens.refreshToken)
        throw new ConnectorError('auth', 'bluesky: no refresh token; reconnect the account');
      const service = typeof extra.service === 'string' ? extra.service : serviceUrl;
      try {
        const { data } = await agentAt(service, tokens.refreshToken).com.atproto.server.refreshSession();
        const connected = {
          accessToken: data.accessJwt,
          refreshToken: data.refreshJwt,
          expiresAt: jwtExpiry(data.accessJwt),
          refreshTokenExpiresAt: jwtExpiry(data.refreshJwt),
          scopes: tokens.scopes,
          extra: {
            ...extra,
            did: data.did,
            handle: data.handle,
            service: publicService(pdsOf(data.didDoc) ?? service, "the account's PDS"),
          },
        };
        return connected;
      } catch (error) {
        throw fail(error, 'read');
      }
    },

    async publish(context: CallContext, request: PublishRequest): Promise<PublishOutcome> {
      const { agent, did } = await agentFor(context);
      const handle = context.account.accountHandle;
      let embed;
      const items = [request.contentText, ...(request.platformPayload?.thread ?? [])];
      const made: Array<{ uri: string; cid: string }> = [];
      try {
        embed = await uploadImages(agent, context, request);
        for (const [index, text] of items.entries()) {
          const root = made[0];
          const parent = made[made.length - 1];
          const record: AppBskyFeedPost.Record = {
            $type: POST,
            ...(await textRecord(agent, text)),
            createdAt: now().toISOString(),
            ...(index === 0 && embed ? { embed } : {}),
            ...(root && parent ? { reply: { root, parent } } : {}),
          };
          made.push(await createPost(agent, did, blueskyRecordKey(request.idempotencyKey, index), record));
        }
      } catch (error) {
        const failure = fail(error, 'create');
        const first = made[0];
        if (!first) throw failure;
        // The first post exists. Its key comes from this attempt's idempotency key, so the pipeline's status
        // check finds it (published) and a retry of the same attempt would reuse every key already made;
        // `unknown_outcome` is the kind that is never retried blindly under a new key.
        throw new ConnectorError(
          'unknown_outcome',
          `bluesky: thread partly published: first post ${first.uri} (${postUrl(handle, did, rkeyOf(first.uri))}) and ` +
            `${made.length - 1} of ${items.length - 1} replies are posted; reply ${made.length} failed: ${failure.message}`,
          { ...failure.details, platformCode: 'thread_incomplete' },
        );
      }
      const first = made[0]!;
      return { kind: 'published', externalId: first.uri, url: postUrl(handle, did, rkeyOf(first.uri)) };
    },

    async checkStatus(context: CallContext, query: StatusQuery): Promise<StatusCheck> {
      const { agent, did } = await agentFor(context);
      const rkey = blueskyRecordKey(query.idempotencyKey, 0);
      try {
        const { data } = await agent.com.atproto.repo.getRecord({ repo: did, collection: POST, rkey });
        return {
          kind: 'published',
          externalId: data.uri,
          url: postUrl(context.account.accountHandle, did, rkey),
        };
      } catch (error) {
        if (isRecordNotFound(error)) return { kind: 'not_found' };
        throw fail(error, 'read');
      }
    },

    async delete(context: CallContext, externalId: string) {
      const { agent, did } = await agentFor(context);
      const rkey = rkeyOf(externalId);
      try {
        await agent.com.atproto.repo.getRecord({ repo: did, collection: POST, rkey });
      } catch (error) {
        if (isRecordNotFound(error)) return { kind: 'not_found' as const };
        throw fail(error, 'read');
      }
      try {
        await agent.com.atproto.repo.deleteRecord({ repo: did, collection: POST, rkey });
      } catch (error) {
        throw fail(error, 'read');
      }
      return { kind: 'deleted' as const };
    },

    async fetchMetrics(context: CallContext, request: MetricsRequest): Promise<MetricsFetch> {
      const { agent } = await agentFor(context);
      let posts;
      try {
        ({
          data: { posts },
        } = await agent.app.bsky.feed.getPosts({ uris: [request.externalId] }));
      } catch (error) {
        throw fail(error, 'read');
      }
      // The app view leaves out posts that no longer exist.
      const post = posts.find((p) => p.uri === request.externalId) ?? posts[0];
      if (!post) return { kind: 'not_found' };
      return {
        kind: 'metrics',
        metrics: metricsReading({
          likes: post.likeCount ?? 0,
          reposts: post.repostCount ?? 0,
          replies: post.replyCount ?? 0,
          quotes: post.quoteCount ?? 0,
          bookmarks: post.bookmarkCount ?? null,
        }),
      };
    },

    // app.bsky.feed.getPosts takes up to 25 URIs; the app view leaves out posts that no longer exist.
    async fetchMetricsBatch(context: CallContext, requests: readonly MetricsRequest[]) {
      const { agent } = await agentFor(context);
      const found = new Map<string, MetricsFetch>();
      const uris = [...new Set(requests.map((r) => r.externalId))];
      for (let i = 0; i < uris.length; i += postsPerGetPosts) {
        let posts;
        try {
          ({
            data: { posts },
          } = await agent.app.bsky.feed.getPosts({ uris: uris.slice(i, i + postsPerGetPosts) }));
        } catch (error) {
          throw fail(error, 'read');
        }
        for (const post of posts)
          found.set(post.uri, {
            kind: 'metrics',
            metrics: metricsReading({
              likes: post.likeCount ?? 0,
              reposts: post.repostCount ?? 0,
              replies: post.replyCount ?? 0,
              quotes: post.quoteCount ?? 0,
              bookmarks: post.bookmarkCount ?? null,
            }),
          });
      }
      return requests.map((r) => found.get(r.externalId) ?? { kind: 'not_found' as const });
    },

    // app.bsky.actor.getProfile: public counts, no permission beyond signing in.
    async accountStats(context: CallContext): Promise<AccountStats> {
      const { agent, did } = await agentFor(context);
      try {
        const { data } = await agent.app.bsky.actor.getProfile({ actor: did });
        return {
          followers: data.followersCount ?? 0,
          following: data.followsCount ?? null,
          posts: data.postsCount ?? null,
        };
      } catch (error) {
        throw fail(error, 'read');
      }
    },

    async accountInfo(context: CallContext): Promise<AccountProfile> {
      const { agent, did } = await agentFor(context);
      try {
        return await profileOf(agent, did);
      } catch (error) {
        throw fail(error, 'read');
      }
    },
  };
}
