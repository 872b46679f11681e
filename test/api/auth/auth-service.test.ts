// The token service: issue/verify round trip, the local signing key (generated once and shared through
// DATA_DIR, or configured as JWK/PEM), every rejection, and jwks mode against a stand-in provider.
import { stat } from 'node:fs/promises';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type FetchImplementation,
} from 'jose';
import { createAuthService, InvalidToken, authOptionsFromEnv } from '../../../api/auth/auth-service.js';
import { signingKeyPath } from '../../../api/auth/signing-key.js';
import { ServiceUnavailable } from '../../../domain/shared/errors.js';
import { permissionsOf } from '../../../domain/workspaces/roles.js';
import { ConfigError, loadEnv } from '../../../infra/config/env.js';
import { orgA, tempDataDir, testAuth, userA } from '../platform/support.js';
import { deterministicUuid } from '../../../commands/shared/ids.js';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('local mode', () => {
  it('issues a token whose claims verify back into the Principal', async () => {
    const auth = await testAuth();
    const { token, expiresAt } = await auth.issueAccessToken({
      userId: userA,
      email: 'a@example.test',
      orgId: orgA,
      role: 'reviewer',
    });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      sub: userA,
      org: orgA,
      role: 'reviewer',
      perms: [...permissionsOf('reviewer')],
      iss: 'urn:social-publishing',
      aud: 'urn:social-publishing:api',
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(new Date(expiresAt).getTime()).toBe(claims.exp! * 1000);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(await auth.verify(token)).toEqual({
      userId: userA,
      email: 'a@example.test',
      orgId: orgA,
      role: 'reviewer',
      permissions: [...permissionsOf('reviewer')],
      source: 'local',
    });
  });

  it('issues user-only tokens (no workspace) and refuses half-scoped ones', async () => {
    const auth = await testAuth();
    const { token } = await auth.issueAccessToken({ userId: userA, orgId: null, role: null });
    expect(await auth.verify(token)).toMatchObject({ orgId: null, role: null, permissions: [] });
    await expect(auth.issueAccessToken({ userId: userA, orgId: orgA, role: null })).rejects.toThrow();
  });

  it('generates the key once in DATA_DIR (0600) and shares it across instances', async () => {
    const dataDir = await tempDataDir();
    const first = await createAuthService({ mode: 'local', dataDir, accessTokenTtlSeconds: 600 });
    const info = await stat(signingKeyPath(dataDir));
    expect(info.mode & 0o777).toBe(0o600);
    const second = await createAuthService({ mode: 'local', dataDir, accessTokenTtlSeconds: 600 });
    expect(second.publicJwks()).toEqual(first.publicJwks());
    const { token } = await first.issueAccessToken({ userId: userA, orgId: orgA, role: 'owner' });
    expect((await second.verify(token)).userId).toBe(userA);

    const elsewhere = await testAuth();
    expect(await rejection(elsewhere.verify(token))).toBeInstanceOf(InvalidToken);
  });

  it('two processes creating the key at once end up with the same key', async () => {
    const dataDir = await tempDataDir();
    const services = await Promise.all(
      Array.from({ length: 4 }, () =>
        createAuthService({ mode: 'local', dataDir, accessTokenTtlSeconds: 600 }),
      ),
    );
    const kids = new Set(services.map((s) => s.publicJwks().keys[0]!.kid));
    expect(kids.size).toBe(1);
  });

  it('uses AUTH_SIGNING_KEY given as a private JWK or as a PKCS8 PEM', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = JSON.stringify(await exportJWK(privateKey));
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    for (const signingKey of [jwk, pem]) {
      const a = await testAuth({ signingKey });
      const b = await testAuth({ signingKey });
      const { token } = await a.issueAccessToken({ userId: userA, orgId: orgA, role: 'viewer' });
      expect((await b.verify(token)).role).toBe('viewer');
      expect(a.publicJwks().keys[0]).not.toHaveProperty('d');
    }
  });

  it('refuses an unusable AUTH_SIGNING_KEY naming the variable', async () => {
    for (const signingKey of ['not a key', '{"kty":"oct","k":"abc"}']) {
      const error = await rejection(testAuth({ signingKey }));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain('AUTH_SIGNING_KEY');
    }
  });

  it('rejects expired, foreign-audience, tampered and garbage tokens with InvalidToken', async () => {
    const dataDir = await tempDataDir();
    const past = new Date(Date.now() - 2 * 3600_000);
    const old = await createAuthService({
      mode: 'local',
      dataDir,
      accessTokenTtlSeconds: 3600,
      now: () => past,
    });
    const auth = await createAuthService({ mode: 'local', dataDir, accessTokenTtlSeconds: 3600 });
    const otherAudience = await createAuthService({
      mode: 'local',
      dataDir,
      accessTokenTtlSeconds: 3600,
      audience: 'urn:somebody-else',
    });

    const expired = (await old.issueAccessToken({ userId: userA, orgId: orgA, role: 'owner' })).token;
    const error = await rejection(auth.verify(expired));
    expect(error).toBeInstanceOf(InvalidToken);
    expect((error as Error).message).toBe('Access token expired');

    const foreign = (await otherAudience.issueAccessToken({ userId: userA, orgId: orgA, role: 'owner' }))
      .token;
    expect(await rejection(auth.verify(foreign))).toBeInstanceOf(InvalidToken);

    const good = (await auth.issueAccessToken({ userId: userA, orgId: orgA, role: 'viewer' })).token;
    const [h, p, s] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(good), role: 'owner' })).toString('base64url');
    expect(await rejection(auth.verify(`${h}.${forged}.${s}`))).toBeInstanceOf(InvalidToken);
    expect(await rejection(auth.verify(`${h}.${p}`))).toBeInstanceOf(InvalidToken);
    expect(await rejection(auth.verify('garbage'))).toBeInstanceOf(InvalidToken);
  });

  it('rejects a token signed with the right key but without the access-token type or with a bad role', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const signingKey = JSON.stringify(await exportJWK(privateKey));
    const auth = await testAuth({ signingKey });
    const kid = auth.publicJwks().keys[0]!.kid!;
    const sign = (claims: Record<string, unknown>, typ = 'at+jwt') =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid, typ })
        .setSubject(userA)
        .setIssuer('urn:social-publishing')
        .setAudience('urn:social-publishing:api')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    expect((await auth.verify(await sign({ org: orgA, role: 'editor' }))).role).toBe('editor');
    expect(await rejection(auth.verify(await sign({ org: orgA, role: 'editor' }, 'JWT')))).toBeInstanceOf(
      InvalidToken,
    );
    expect(await rejection(auth.verify(await sign({ org: orgA, role: 'superuser' })))).toBeInstanceOf(
      InvalidToken,
    );
    expect(await rejection(auth.verify(await sign({ org: orgA, role: null })))).toBeInstanceOf(InvalidToken);
  });
});

describe('jwks mode (external identity provider)', () => {
  const provider = {
    jwksUrl: 'https://idp.example.test/jwks',
    issuer: 'https://idp.example.test/',
    audience: 'sp',
  };

  async function idp() {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'RS256' };
    let up = true;
    const fetch: FetchImplementation = async () =>
      up
        ? new Response(JSON.stringify({ keys: [publicJwk] }), {
            headers: { 'content-type': 'application/json' },
          })
        : new Response('down', { status: 502 });
    const sign = (claims: Record<string, unknown>, overrides: { iss?: string; aud?: string } = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'idp-1' })
        .setSubject('idp|user-7')
        .setIssuer(overrides.iss ?? provider.issuer)
        .setAudience(overrides.aud ?? provider.audience)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    return { fetch, sign, down: () => (up = false) };
  }

  it("accepts the provider's tokens as user-only principals and still verifies its own", async () => {
    const p = await idp();
    const auth = await testAuth({ mode: 'jwks', external: provider, fetch: p.fetch });
    expect(await auth.verify(await p.sign({ email: 'u@example.test' }))).toEqual({
      userId: deterministicUuid('external-identity', provider.issuer, 'idp|user-7'),
      email: 'u@example.test',
      orgId: null,
      role: null,
      permissions: [],
      source: 'external',
    });
    const own = await auth.issueAccessToken({ userId: userA, orgId: orgA, role: 'admin' });
    expect(await auth.verify(own.token)).toMatchObject({ orgId: orgA, role: 'admin', source: 'local' });
  });

  it('rejects provider tokens for another issuer or audience; an unreachable provider is a 503', async () => {
    const p = await idp();
    const auth = await testAuth({ mode: 'jwks', external: provider, fetch: p.fetch });
    expect(await rejection(auth.verify(await p.sign({}, { iss: 'https://evil.test/' })))).toBeInstanceOf(
      InvalidToken,
    );
    expect(await rejection(auth.verify(await p.sign({}, { aud: 'other' })))).toBeInstanceOf(InvalidToken);

    const q = await idp();
    const cold = await testAuth({ mode: 'jwks', external: provider, fetch: q.fetch });
    q.down();
    expect(await rejection(cold.verify(await q.sign({})))).toBeInstanceOf(ServiceUnavailable);
  });

  it('reads its options from the environment', () => {
    const env = loadEnv({
      AUTH_MODE: 'jwks',
      AUTH_JWKS_URL: provider.jwksUrl,
      AUTH_ISSUER: provider.issuer,
      AUTH_AUDIENCE: provider.audience,
      DATA_DIR: '/tmp/x',
      PUBLIC_BASE_URL: 'https://api.example.test',
    });
    expect(authOptionsFromEnv(env)).toMatchObject({
      mode: 'jwks',
      dataDir: '/tmp/x',
      issuer: 'https://api.example.test',
      external: provider,
      accessTokenTtlSeconds: 3600,
    });
    expect(authOptionsFromEnv(loadEnv({ AUTH_ISSUER: 'urn:mine' }))).toMatchObject({
      mode: 'local',
      issuer: 'urn:mine',
    });
  });
});
