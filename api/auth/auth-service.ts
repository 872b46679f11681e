// Access tokens: issues this service's workspace-scoped JWTs (ES256) and verifies bearer tokens, either
// ours or, in `jwks` mode, an external identity provider's (which identify a user and carry no workspace).
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
import { Unauthorized, ServiceUnavailable } from '../../domain/shared/errors.js';
import { isRole, permissionsOf, roles, type Role } from '../../domain/workspaces/roles.js';
import { ConfigError, type Env } from '../../infra/config/env.js';
import type { Principal } from './principal.js';
import { loadSigningKey, signingAlgorithm } from './signing-key.js';
import { deterministicUuid } from '../../commands/shared/ids.js';

export const accessTokenType = 'at+jwt';
const defaultIssuer = 'urn:social-publishing';
const defaultAudience = 'urn:social-publishing:api';
const clockToleranceSeconds = 5;

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
  /** Issuer of this service's own tokens; defaults to PUBLIC_BASE_URL, else a fixed URN. */
  issuer?: string;
  audience?: string;
  /** The external identity provider (mode `jwks`): AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE. */
  external?: { jwksUrl: string; issuer: string; audience: string };
  now?: () => Date;
  /** Replaces fetch for the provider's JWKS (tests). */
  fetch?: FetchImplementation;
}

/** Maps the validated environment to options: in `jwks` mode AUTH_ISSUER/AUDIENCE describe the provider. */
export function authOptionsFromEnv(
  env: Env,
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
    ...(env.AUTH_SIGNING_KEY !== undefined ? { signingKey: env.AUTH_SIGNING_KEY } : {}),
    ...(((local ? env.AUTH_ISSUER : undefined) ?? env.PUBLIC_BASE_URL)
      ? { issuer: (local ? env.AUTH_ISSUER : undefined) ?? env.PUBLIC_BASE_URL }
      : {}),
    ...(local && env.AUTH_AUDIENCE ? { audience: env.AUTH_AUDIENCE } : {}),
    ...(external ? { external } : {}),
    ...overrides,
  };
}

const localClaims = z.object({
  sub: z.string().min(1),
  email: z.string().optional(),
  org: z.string().min(1).nullable(),
  role: z.enum(roles).nullable(),
});

export async function createAuthService(options: AuthServiceOptions): Promise<AuthService> {
  const now = options.now ?? (() => new Date());
  const key = await loadSigningKey({
    dataDir: options.dataDir,
    ...(options.signingKey !== undefined ? { signingKey: options.signingKey } : {}),
  });
  const issuer = options.issuer ?? defaultIssuer;
  const audience = options.audience ?? defaultAudience;

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
    const claims = localClaims.safeParse(payload);
    if (!claims.success || (claims.data.org === null) !== (claims.data.role === null)) {
      throw new InvalidToken('Invalid access token');
    }
    const { sub, email, org, role } = claims.data;
    return {
      userId: sub,
      ...(email !== undefined ? { email } : {}),
      orgId: org,
      role,
      // Derived from the role, not read from the `perms` claim, so a change to roles.ts applies at once.
      permissions: role ? [...permissionsOf(role)] : [],
      source: 'local',
    };
  }

  async function verifyExternal(token: string): Promise<Principal> {
    if (!external || !remoteKeys) throw new InvalidToken('Invalid access token');
    const { payload } = await jwtVerify(token, remoteKeys, {
      issuer: external.issuer,
      audience: external.audience,
      clockTolerance: clockToleranceSeconds,
      currentDate: now(),
      requiredClaims: ['sub', 'exp'],
    });
    const email = (payload as JWTPayload & { email?: unknown }).email;
    return {
      // The provider's subject can be any string; our user ids are UUIDs, stable per issuer and subject.
      userId: deterministicUuid('external-identity', external.issuer, payload.sub as string),
      ...(typeof email === 'string' ? { email } : {}),
      orgId: null,
      role: null,
      permissions: [],
      source: 'external',
    };
  }

  return {
    mode: options.mode,

    async issueAccessToken(input) {
      if ((input.orgId === null) !== (input.role === null)) {
        throw new Error('issueAccessToken: orgId and role are both set or both null');
      }
      if (input.role !== null && !isRole(input.role)) throw new Error(`unknown role ${String(input.role)}`);
      const issuedAt = Math.floor(now().getTime() / 1000);
      const expiresAt = issuedAt + options.accessTokenTtlSeconds;
      const token = await new SignJWT({
        ...(input.email !== undefined ? { email: input.email } : {}),
        org: input.orgId,
        role: input.role,
        perms: input.role ? permissionsOf(input.role) : [],
      })
        .setProtectedHeader({ alg: signingAlgorithm, kid: key.kid, typ: accessTokenType })
        .setSubject(input.userId)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .setJti(crypto.randomUUID())
        .sign(key.privateKey);
      return { token, expiresAt: new Date(expiresAt * 1000).toISOString() };
    },

    async verify(token) {
      let kid: string | undefined;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        throw new InvalidToken('Invalid access token');
      }
      // Our tokens name our key; in jwks mode anything else is the provider's to vouch for.
      const viaProvider = external !== undefined && kid !== key.kid;
      try {
        return viaProvider ? await verifyExternal(token) : await verifyLocal(token);
      } catch (error) {
        throw toAuthError(error, viaProvider);
      }
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
