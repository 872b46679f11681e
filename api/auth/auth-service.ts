// Access tokens: issues this service's workspace-scoped JWTs (ES256) and verifies bearer tokens, either
// ours or, in `jwks` mode, an external identity provider's (which identify a user and carry no workspace).
// A token belongs to a session (`sid`, `auth_time`) that exchanges carry over and never extend; the role in a
// workspace is the member's current one, looked up on every verification, not the one in the token.
import { z } from 'zod';
import {
  createRemoteJWKSet,
  customFetch,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
  type FetchImplementation,
  type JWK,
  type JWTPayload,
} from 'jose';
import { AppError, Unauthorized, ServiceUnavailable } from '../../domain/shared/errors.js';
import { isRole, permissionsOf, roles, type Role } from '../../domain/workspaces/roles.js';
import { ConfigError } from '../../infra/config/env.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { AuthEnv } from './settings.js';
import type { MembershipLookup } from './memberships.js';
import type { Principal, Session } from './principal.js';
import { loadSigningKey, signingAlgorithm } from './signing-key.js';
import { VerifiedTokens } from './verified-tokens.js';
import { deterministicUuid } from '../../commands/shared/ids.js';

export const accessTokenType = 'at+jwt';
const defaultIssuer = 'urn:social-publishing';
const defaultAudience = 'urn:social-publishing:api';
const clockToleranceSeconds = 5;
export const defaultSessionMaxAgeSeconds = 86_400;

/** Our ids as tokens carry them: lower-case UUIDs, one spelling per id. */
const canonicalId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A 401 that knows its RFC 6750 challenge; the error mapping copies it into WWW-Authenticate. */
export class InvalidToken extends Unauthorized {
  constructor(
    message: string,
    readonly challenge: string = `Bearer error="invalid_token", error_description="${message}"`,
  ) {
    super(message);
  }
}

export interface IssueAccessTokenInput {
  userId: string;
  email?: string;
  orgId: string | null;
  role: Role | null;
  /** The session the new token continues (a token exchange); absent, the token begins a new session. */
  session?: Session;
}

export interface IssuedAccessToken {
  token: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

export interface AuthService {
  readonly mode: 'local' | 'jwks';
  issueAccessToken(input: IssueAccessTokenInput): Promise<IssuedAccessToken>;
  /** Throws InvalidToken (401) for anything not acceptable, ServiceUnavailable if the provider is down. */
  verify(token: string): Promise<Principal>;
  /** Public keys of this service's own tokens, served at /.well-known/jwks.json. */
  publicJwks(): { keys: JWK[] };
}

export interface AuthServiceOptions {
  mode: 'local' | 'jwks';
  dataDir: string;
  /** AUTH_SIGNING_KEY. */
  signingKey?: string;
  accessTokenTtlSeconds: number;
  /** SESSION_MAX_AGE_SECONDS: no token outlives its session's start by more (default 24 hours). */
  sessionMaxAgeSeconds?: number;
  /**
   * The user's current role in a workspace (null: not an active member), asked on every verification of a
   * workspace-scoped token. The runtime always gives it; without it the token's role is taken as it is.
   */
  currentRole?: MembershipLookup;
  /** Issuer of this service's own tokens; defaults to PUBLIC_BASE_URL, else a fixed URN. */
  issuer?: string;
  audience?: string;
  /** The external identity provider (mode `jwks`): AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE. */
  external?: { jwksUrl: string; issuer: string; audience: string };
  now?: () => Date;
  /** Replaces fetch for the provider's JWKS (tests). */
  fetch?: FetchImplementation;
  /**
   * How many of this service's own verified tokens are remembered until their expiry, so a token's signature
   * is checked once rather than on every request (default 10,000; 0 turns it off). Session end and the current
   * role are checked on every request regardless.
   */
  verifiedTokenCacheSize?: number;
}

/** Maps the validated environment to options: in `jwks` mode AUTH_ISSUER/AUDIENCE describe the provider. */
export function authOptionsFromEnv(
  env: Pick<PlatformEnv, 'DATA_DIR' | 'PUBLIC_BASE_URL'> & AuthEnv,
  overrides: Partial<AuthServiceOptions> = {},
): AuthServiceOptions {
  const external =
    env.AUTH_MODE === 'jwks' && env.AUTH_JWKS_URL && env.AUTH_ISSUER && env.AUTH_AUDIENCE
      ? { jwksUrl: env.AUTH_JWKS_URL, issuer: env.AUTH_ISSUER, audience: env.AUTH_AUDIENCE }
      : undefined;
  const local = env.AUTH_MODE === 'local';
  return {
    mode: env.AUTH_MODE,
    dataDir: env.DATA_DIR,
    accessTokenTtlSeconds: env.ACCESS_TOKEN_TTL_SECONDS,
    sessionMaxAgeSeconds: env.SESSION_MAX_AGE_SECONDS,
    ...(env.AUTH_SIGNING_KEY !== undefined ? { signingKey: env.AUTH_SIGNING_KEY } : {}),
    ...(((local ? env.AUTH_ISSUER : undefined) ?? env.PUBLIC_BASE_URL)
      ? { issuer: (local ? env.AUTH_ISSUER : undefined) ?? env.PUBLIC_BASE_URL }
      : {}),
    ...(local && env.AUTH_AUDIENCE ? { audience: env.AUTH_AUDIENCE } : {}),
    ...(external ? { external } : {}),
    ...overrides,
  };
}

const id = z.string().regex(canonicalId);
const localClaims = z.object({
  sub: id,
  email: z.string().optional(),
  org: id.nullable(),
  role: z.enum(roles).nullable(),
  iat: z.number().int(),
  jti: z.string().min(1).optional(),
  sid: id.optional(),
  auth_time: z.number().int().optional(),
});

/** A UUID in its canonical spelling; anything else is a programming error here (ids come from our own code). */
function canonical(value: string, name: string): string {
  const lower = value.toLowerCase();
  if (!canonicalId.test(lower)) throw new Error(`issueAccessToken: ${name} is not a UUID`);
  return lower;
}

/**
 * Tokens the provider meant for an API. `at+jwt` (RFC 9068) is one; `JWT` is what many providers put on access
 * and ID tokens alike, so it passes only without what marks an ID token. No `typ`, or any other, is refused.
 */
function isProviderAccessToken(typ: string | undefined, payload: JWTPayload): boolean {
  const type = typ?.toLowerCase().replace(/^application\//, '');
  if (type === 'at+jwt') return true;
  if (type !== 'jwt') return false;
  const claims = payload as Record<string, unknown>;
  const idTokenClaims = ['nonce', 'at_hash', 'c_hash'].some((name) => name in claims);
  const markedId =
    claims.token_use === 'id' || (typeof claims.typ === 'string' && claims.typ.toLowerCase() === 'id');
  return !idTokenClaims && !markedId;
}

export async function createAuthService(options: AuthServiceOptions): Promise<AuthService> {
  const now = options.now ?? (() => new Date());
  const key = await loadSigningKey({
    dataDir: options.dataDir,
    ...(options.signingKey !== undefined ? { signingKey: options.signingKey } : {}),
  });
  const issuer = options.issuer ?? defaultIssuer;
  const audience = options.audience ?? defaultAudience;
  const sessionMaxAge = options.sessionMaxAgeSeconds ?? defaultSessionMaxAgeSeconds;
  const nowSeconds = () => Math.floor(now().getTime() / 1000);

  /** 401 once the session is over, whatever its tokens say (so lowering the maximum applies at once). */
  function checkSession(session: Session): void {
    if (nowSeconds() > session.authTime + sessionMaxAge + clockToleranceSeconds) {
      throw new InvalidToken('Session expired');
    }
  }

  const external = options.mode === 'jwks' ? options.external : undefined;
  if (options.mode === 'jwks' && !external) {
    throw new ConfigError(['AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE: required when AUTH_MODE=jwks']);
  }
  if (external && external.issuer === issuer && external.audience === audience) {
    // Otherwise a provider token could pass for one of ours and the other way round.
    throw new ConfigError(['AUTH_ISSUER: must differ from this service issuer when AUTH_MODE=jwks']);
  }
  const remoteKeys = external
    ? createRemoteJWKSet(new URL(external.jwksUrl), options.fetch ? { [customFetch]: options.fetch } : {})
    : undefined;

  // Our own tokens only: our key cannot change while the process runs, whereas a provider may withdraw a key
  // from its JWKS at any time.
  const verifiedTokens = new VerifiedTokens<Principal>(options.verifiedTokenCacheSize ?? 10_000);

  async function verifyLocal(token: string): Promise<Principal> {
    const { payload } = await jwtVerify(token, key.publicKey, {
      issuer,
      audience,
      algorithms: [signingAlgorithm],
      typ: accessTokenType,
      clockTolerance: clockToleranceSeconds,
      currentDate: now(),
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    // Ids must be canonical: a second spelling of a workspace would be a second workspace to every rule
    // keyed by its id.
    const claims = localClaims.safeParse(payload);
    if (!claims.success || (claims.data.org === null) !== (claims.data.role === null)) {
      throw new InvalidToken('Invalid access token');
    }
    const { sub, email, org, role, iat, jti, sid, auth_time } = claims.data;
    // Tokens from before sessions existed count as a session that began when they were issued.
    const session = {
      id: sid ?? jti ?? deterministicUuid('session', sub, String(iat)),
      authTime: auth_time ?? iat,
    };
    if (session.authTime > iat + clockToleranceSeconds) throw new InvalidToken('Invalid access token');
    checkSession(session);
    const principal: Principal = {
      userId: sub,
      ...(email !== undefined ? { email } : {}),
      orgId: org,
      role,
      // Derived from the role, not read from the `perms` claim, so a change to roles.ts applies at once.
      permissions: role ? [...permissionsOf(role)] : [],
      session,
      source: 'local',
    };
    // jwtVerify required `exp`; the entry lives until then (without the clock tolerance a late call gets).
    verifiedTokens.set(token, principal, payload.exp!, nowSeconds());
    return principal;
  }

  async function verifyExternal(token: string): Promise<Principal> {
    if (!external || !remoteKeys) throw new InvalidToken('Invalid access token');
    const { payload, protectedHeader } = await jwtVerify(token, remoteKeys, {
      issuer: external.issuer,
      audience: external.audience,
      clockTolerance: clockToleranceSeconds,
      currentDate: now(),
      requiredClaims: ['sub', 'exp'],
    });
    if (!isProviderAccessToken(protectedHeader.typ, payload)) {
      throw new InvalidToken('Not an access token of the identity provider');
    }
    const { email, email_verified: emailVerified } = payload as JWTPayload & {
      email?: unknown;
      email_verified?: unknown;
    };
    const subject = payload.sub as string;
    // Our session starts when the provider vouched for the user (the token's issue time): tokens exchanged
    // from this one cannot outlive that by more than the session maximum; a newer provider token starts anew.
    const authTime = Math.min(typeof payload.iat === 'number' ? payload.iat : nowSeconds(), nowSeconds());
    const session = {
      id: deterministicUuid('external-session', external.issuer, subject, String(authTime)),
      authTime,
    };
    checkSession(session);
    return {
      // The provider's subject can be any string; our user ids are UUIDs, stable per issuer and subject.
      userId: deterministicUuid('external-identity', external.issuer, subject),
      // Only an address the provider verified: an unverified one could be anybody's, and whoever registers an
      // address first holds it here (grants by e-mail go to its holder).
      ...(typeof email === 'string' && emailVerified === true ? { email } : {}),
      orgId: null,
      role: null,
      permissions: [],
      session,
      source: 'external',
    };
  }

  /**
   * The role held now, not the token's; a token of someone no longer a member stops here. A suspended member or a
   * deleted workspace leaves a user-only principal that carries the refusal (see Principal.workspaceRefusal).
   */
  async function withCurrentRole(principal: Principal): Promise<Principal> {
    if (principal.orgId === null || !options.currentRole) return principal;
    let role: Role | null;
    try {
      role = await options.currentRole(principal.userId, principal.orgId);
    } catch (error) {
      if (!(error instanceof AppError) || (error.status !== 403 && error.status !== 410)) throw error;
      return {
        ...principal,
        orgId: null,
        role: null,
        permissions: [],
        workspaceRefusal: { orgId: principal.orgId, error },
      };
    }
    if (role === null) throw new InvalidToken('Not an active member of this workspace');
    return { ...principal, role, permissions: [...permissionsOf(role)] };
  }

  return {
    mode: options.mode,

    async issueAccessToken(input) {
      if ((input.orgId === null) !== (input.role === null)) {
        throw new Error('issueAccessToken: orgId and role are both set or both null');
      }
      if (input.role !== null && !isRole(input.role)) throw new Error(`unknown role ${String(input.role)}`);
      const userId = canonical(input.userId, 'userId');
      const orgId = input.orgId === null ? null : canonical(input.orgId, 'orgId');
      const issuedAt = nowSeconds();
      const session = input.session
        ? { id: canonical(input.session.id, 'session id'), authTime: input.session.authTime }
        : { id: crypto.randomUUID(), authTime: issuedAt };
      // Never past the session's end, however often it is exchanged.
      const expiresAt = Math.min(issuedAt + options.accessTokenTtlSeconds, session.authTime + sessionMaxAge);
      if (expiresAt <= issuedAt) throw new InvalidToken('Session expired');
      const token = await new SignJWT({
        ...(input.email !== undefined ? { email: input.email } : {}),
        org: orgId,
        role: input.role,
        perms: input.role ? permissionsOf(input.role) : [],
        sid: session.id,
        auth_time: session.authTime,
      })
        .setProtectedHeader({ alg: signingAlgorithm, kid: key.kid, typ: accessTokenType })
        .setSubject(userId)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .setJti(crypto.randomUUID())
        .sign(key.privateKey);
      return { token, expiresAt: new Date(expiresAt * 1000).toISOString() };
    },

    async verify(token) {
      const verified = verifiedTokens.get(token, nowSeconds());
      if (verified !== undefined) {
        checkSession(verified.session);
        return withCurrentRole({ ...verified, permissions: [...verified.permissions] });
      }
      let kid: string | undefined;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        throw new InvalidToken('Invalid access token');
      }
      // Our tokens name our key; in jwks mode anything else is the provider's to vouch for.
      const viaProvider = external !== undefined && kid !== key.kid;
      let principal: Principal;
      try {
        principal = viaProvider ? await verifyExternal(token) : await verifyLocal(token);
      } catch (error) {
        throw toAuthError(error, viaProvider);
      }
      // Outside the mapping above: a failing membership look-up is our outage (500), not a bad token.
      return withCurrentRole(principal);
    },

    publicJwks() {
      return { keys: [key.publicJwk] };
    },
  };
}

function toAuthError(error: unknown, viaProvider: boolean): Error {
  if (error instanceof InvalidToken) return error;
  if (error instanceof joseErrors.JWTExpired) return new InvalidToken('Access token expired');
  const callersFault =
    error instanceof joseErrors.JWSSignatureVerificationFailed ||
    error instanceof joseErrors.JWTClaimValidationFailed ||
    error instanceof joseErrors.JWTInvalid ||
    error instanceof joseErrors.JWSInvalid ||
    error instanceof joseErrors.JWKSNoMatchingKey ||
    error instanceof joseErrors.JWKSMultipleMatchingKeys ||
    error instanceof joseErrors.JOSEAlgNotAllowed ||
    error instanceof joseErrors.JOSENotSupported;
  // A provider whose JWKS cannot be fetched or read is our outage, not a bad token: 503, so clients retry
  // instead of signing the user out.
  if (viaProvider && !callersFault) return new ServiceUnavailable('Identity provider unavailable');
  return new InvalidToken('Invalid access token');
}
