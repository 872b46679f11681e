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
import { VerifiedTokens } from '../../../api/auth/verified-tokens.js';
import { ServiceUnavailable } from '../../../domain/shared/errors.js';
import { permissionsOf } from '../../../domain/workspaces/roles.js';
import { ConfigError } from '../../../infra/config/env.js';
import { loadEnv } from '../../../api/env.js';
import { orgA, orgB, tempDataDir, testAuth, userA } from '../platform/support.js';
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
    // A new session begins with the token.
    expect(claims.auth_time).toBe(claims.iat);
    expect(claims.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(expiresAt).getTime()).toBe(claims.exp! * 1000);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(await auth.verify(token)).toEqual({
      userId: userA,
      email: 'a@example.test',
      orgId: orgA,
      role: 'reviewer',
      permissions: [...permissionsOf('reviewer')],
      session: { id: claims.sid, authTime: claims.iat },
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

  it('refuses ids that are not canonical (lower-case UUIDs) in a token, and issues only canonical ones', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const auth = await testAuth({ signingKey: JSON.stringify(await exportJWK(privateKey)) });
    const kid = auth.publicJwks().keys[0]!.kid!;
    const sign = (claims: Record<string, unknown>, sub = userA) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
        .setSubject(sub)
        .setIssuer('urn:social-publishing')
        .setAudience('urn:social-publishing:api')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
    // Ids with letters, so that upper case is another spelling.
    const org = 'abcdef12-3456-4789-8abc-def012345678';
    const user = 'fedcba98-7654-4321-8fed-cba987654321';
    // Control: the canonical spelling passes.
    expect(await auth.verify(await sign({ org, role: 'editor' }, user))).toMatchObject({
      userId: user,
      orgId: org,
    });
    for (const token of [
      await sign({ org: org.toUpperCase(), role: 'editor' }, user),
      await sign({ org, role: 'editor' }, user.toUpperCase()),
      await sign({ org: null, role: null }, user.toUpperCase()),
      await sign({ org: `{${org}}`, role: 'editor' }, user),
      await sign({ org, role: 'editor', sid: org.toUpperCase() }, user),
    ]) {
      expect(await rejection(auth.verify(token))).toBeInstanceOf(InvalidToken);
    }
    const issued = await auth.issueAccessToken({
      userId: user.toUpperCase(),
      orgId: org.toUpperCase(),
      role: 'viewer',
    });
    expect(decodeJwt(issued.token)).toMatchObject({ sub: user, org });
    await expect(auth.issueAccessToken({ userId: 'not-a-uuid', orgId: null, role: null })).rejects.toThrow();
  });

  it('refuses the classic forgeries: alg none, HS256 keyed with the public key, a foreign key under our kid, embedded jwk and jku', async () => {
    const auth = await testAuth();
    const ours = auth.publicJwks().keys[0]!;
    const claims = { org: orgA, role: 'owner' };
    const payload = (extra: Record<string, unknown> = {}) => ({
      ...claims,
      sub: userA,
      iss: 'urn:social-publishing',
      aud: 'urn:social-publishing:api',
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 300,
      ...extra,
    });
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const attacker = await generateKeyPair('ES256', { extractable: true });
    const attackerJwk = await exportJWK(attacker.publicKey);
    const signWith = (header: Record<string, unknown>, key: Parameters<SignJWT['sign']>[0]) =>
      new SignJWT(payload()).setProtectedHeader(header as never).sign(key);
    const forgeries = [
      `${b64({ alg: 'none', typ: 'at+jwt', kid: ours.kid })}.${b64(payload())}.`,
      await signWith(
        { alg: 'HS256', typ: 'at+jwt', kid: ours.kid },
        new TextEncoder().encode(JSON.stringify(ours)),
      ),
      await signWith({ alg: 'ES256', typ: 'at+jwt', kid: ours.kid }, attacker.privateKey),
      await signWith({ alg: 'ES256', typ: 'at+jwt', jwk: attackerJwk }, attacker.privateKey),
      await signWith({ alg: 'ES256', typ: 'at+jwt', kid: ours.kid, jwk: attackerJwk }, attacker.privateKey),
      await signWith(
        { alg: 'ES256', typ: 'at+jwt', kid: 'evil', jku: 'https://evil.test/jwks.json' },
        attacker.privateKey,
      ),
    ];
    for (const token of forgeries) {
      expect(await rejection(auth.verify(token)), token).toBeInstanceOf(InvalidToken);
    }
  });

  it('takes the role from the membership, not the token, and refuses a token of a former member', async () => {
    const roles: Record<string, 'viewer' | null> = { [orgA]: 'viewer', [orgB]: null };
    const auth = await testAuth({ currentRole: async (_userId, orgId) => roles[orgId] ?? null });
    const admin = await auth.issueAccessToken({ userId: userA, orgId: orgA, role: 'admin' });
    expect(await auth.verify(admin.token)).toMatchObject({
      role: 'viewer',
      permissions: [...permissionsOf('viewer')],
    });
    const former = await auth.issueAccessToken({ userId: userA, orgId: orgB, role: 'owner' });
    const error = await rejection(auth.verify(former.token));
    expect(error).toBeInstanceOf(InvalidToken);
    expect((error as Error).message).toBe('Not an active member of this workspace');
    // A user-only token names no workspace: nothing to look up.
    const userOnly = await auth.issueAccessToken({ userId: userA, orgId: null, role: null });
    expect((await auth.verify(userOnly.token)).role).toBeNull();

    // A failing look-up is an outage, not a bad token.
    const broken = await testAuth({
      currentRole: async () => {
        throw new Error('database down');
      },
    });
    const token = (await broken.issueAccessToken({ userId: userA, orgId: orgA, role: 'admin' })).token;
    const outage = await rejection(broken.verify(token));
    expect(outage).not.toBeInstanceOf(InvalidToken);
    expect((outage as Error).message).toBe('database down');
  });
});

describe('sessions', () => {
  const hour = 3600;

  it('a token continuing a session expires at its end at the latest, and nothing of it is accepted after', async () => {
    let clock = new Date('2031-03-01T08:00:00Z');
    const auth = await testAuth({
      now: () => clock,
      accessTokenTtlSeconds: hour,
      sessionMaxAgeSeconds: 4 * hour,
    });
    const first = await auth.issueAccessToken({ userId: userA, orgId: orgA, role: 'editor' });
    const { session } = await auth.verify(first.token);
    const end = session.authTime + 4 * hour;
    expect(session.authTime).toBe(clock.getTime() / 1000);

    clock = new Date((end - 10 * 60) * 1000);
    const late = await auth.issueAccessToken({ userId: userA, orgId: orgB, role: 'viewer', session });
    expect(decodeJwt(late.token)).toMatchObject({ exp: end, sid: session.id, auth_time: session.authTime });
    expect(new Date(late.expiresAt).getTime()).toBe(end * 1000);
    expect((await auth.verify(late.token)).session).toEqual(session);

    clock = new Date((end + 60) * 1000);
    expect(await rejection(auth.verify(late.token))).toBeInstanceOf(InvalidToken);
    const renewed = await rejection(
      auth.issueAccessToken({ userId: userA, orgId: orgB, role: 'viewer', session }),
    );
    expect(renewed).toBeInstanceOf(InvalidToken);
    expect((renewed as Error).message).toBe('Session expired');
  });

  it('a lower maximum applies to tokens already issued', async () => {
    const dataDir = await tempDataDir();
    const clock = { now: new Date('2031-03-01T08:00:00Z') };
    const long = await createAuthService({
      mode: 'local',
      dataDir,
      accessTokenTtlSeconds: hour,
      sessionMaxAgeSeconds: 24 * hour,
      now: () => clock.now,
    });
    const short = await createAuthService({
      mode: 'local',
      dataDir,
      accessTokenTtlSeconds: hour,
      sessionMaxAgeSeconds: 2 * hour,
      now: () => clock.now,
    });
    const first = await long.issueAccessToken({ userId: userA, orgId: orgA, role: 'editor' });
    const { session } = await long.verify(first.token);
    clock.now = new Date(clock.now.getTime() + 100 * 60_000);
    const later = await long.issueAccessToken({ userId: userA, orgId: orgA, role: 'editor', session });
    clock.now = new Date(clock.now.getTime() + 21 * 60_000);
    expect((await long.verify(later.token)).userId).toBe(userA);
    const error = await rejection(short.verify(later.token));
    expect(error).toBeInstanceOf(InvalidToken);
    expect((error as Error).message).toBe('Session expired');
  });

  it('a token verified once is remembered until its expiry, and the current role and expiry still apply', async () => {
    let clock = new Date('2031-03-01T08:00:00Z');
    const roles: Record<string, 'viewer' | 'editor' | null> = { [orgA]: 'editor' };
    const auth = await testAuth({
      now: () => clock,
      accessTokenTtlSeconds: hour,
      currentRole: async (_userId, orgId) => roles[orgId] ?? null,
    });
    const { token } = await auth.issueAccessToken({ userId: userA, orgId: orgA, role: 'editor' });
    expect((await auth.verify(token)).role).toBe('editor');
    // Remembered: the answer is the same principal, with the role the member holds now.
    roles[orgA] = 'viewer';
    expect(await auth.verify(token)).toMatchObject({
      role: 'viewer',
      permissions: [...permissionsOf('viewer')],
    });
    roles[orgA] = null;
    expect(await rejection(auth.verify(token))).toBeInstanceOf(InvalidToken);
    roles[orgA] = 'editor';
    // Any other byte string is another token: a tampered copy of a remembered one is checked and refused.
    const [h, p, s] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(token), role: 'owner' })).toString('base64url')}.${s}`;
    expect(await rejection(auth.verify(tampered))).toBeInstanceOf(InvalidToken);
    // A changed signature: its first character carries six bits of the first byte (its last ones may be padding
    // bits, so changing those can leave the signature as it was, 1 run in 256).
    const changedSignature = `${s![0] === 'A' ? 'B' : 'A'}${s!.slice(1)}`;
    expect(await rejection(auth.verify(`${h}.${p}.${changedSignature}`))).toBeInstanceOf(InvalidToken);
    // Past its expiry the token is no longer accepted, remembered or not.
    clock = new Date(clock.getTime() + (hour + 60) * 1000);
    const expired = await rejection(auth.verify(token));
    expect(expired).toBeInstanceOf(InvalidToken);
    expect((expired as Error).message).toBe('Access token expired');
  });

  it('keeps a bounded number of verified tokens, each until its expiry', () => {
    const cache = new VerifiedTokens<string>(10);
    for (let i = 0; i < 25; i++) cache.set(`t${i}`, `v${i}`, 1_000, 0);
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(cache.get('t24', 0)).toBe('v24');
    expect(cache.get('t0', 0)).toBeUndefined();
    expect(cache.get('t24', 999)).toBe('v24');
    expect(cache.get('t24', 1_000)).toBeUndefined();
    cache.set('gone', 'v', 5, 5);
    expect(cache.get('gone', 0)).toBeUndefined();
    const off = new VerifiedTokens<string>(0);
    off.set('t', 'v', 1_000, 0);
    expect(off.get('t', 0)).toBeUndefined();
  });

  it('reads SESSION_MAX_AGE_SECONDS (24 hours unless set)', () => {
    expect(authOptionsFromEnv(loadEnv({})).sessionMaxAgeSeconds).toBe(86_400);
    expect(authOptionsFromEnv(loadEnv({ SESSION_MAX_AGE_SECONDS: '7200' })).sessionMaxAgeSeconds).toBe(7200);
    expect(() => loadEnv({ SESSION_MAX_AGE_SECONDS: '10' })).toThrow(ConfigError);
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
    const sign = (
      claims: Record<string, unknown>,
      overrides: { iss?: string; aud?: string; typ?: string | null } = {},
    ) =>
      new SignJWT(claims)
        .setProtectedHeader({
          alg: 'RS256',
          kid: 'idp-1',
          ...(overrides.typ === null ? {} : { typ: overrides.typ ?? 'at+jwt' }),
        })
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
    expect(await auth.verify(await p.sign({ email: 'u@example.test', email_verified: true }))).toEqual({
      userId: deterministicUuid('external-identity', provider.issuer, 'idp|user-7'),
      email: 'u@example.test',
      orgId: null,
      role: null,
      permissions: [],
      session: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), authTime: expect.any(Number) },
      source: 'external',
    });
    const own = await auth.issueAccessToken({ userId: userA, orgId: orgA, role: 'admin' });
    expect(await auth.verify(own.token)).toMatchObject({ orgId: orgA, role: 'admin', source: 'local' });
  });

  it('takes an e-mail address from the provider only when it says it verified it', async () => {
    const p = await idp();
    const auth = await testAuth({ mode: 'jwks', external: provider, fetch: p.fetch });
    for (const verified of [false, 'true', 1, undefined]) {
      const principal = await auth.verify(
        await p.sign({
          email: 'u@example.test',
          ...(verified === undefined ? {} : { email_verified: verified }),
        }),
      );
      expect(principal, String(verified)).not.toHaveProperty('email');
    }
    expect((await auth.verify(await p.sign({ email: 'u@example.test', email_verified: true }))).email).toBe(
      'u@example.test',
    );
  });

  it("accepts the provider's access tokens (typ at+jwt, or JWT without ID-token claims) and nothing else", async () => {
    const p = await idp();
    const auth = await testAuth({ mode: 'jwks', external: provider, fetch: p.fetch });
    for (const typ of ['at+jwt', 'application/at+jwt', 'AT+JWT', 'JWT', 'jwt']) {
      expect((await auth.verify(await p.sign({}, { typ }))).source, typ).toBe('external');
    }
    const refused: Array<[Record<string, unknown>, string | null]> = [
      [{}, null],
      [{}, 'id_token+jwt'],
      [{}, 'dpop+jwt'],
      [{}, 'logout+jwt'],
      [{}, 'secevent+jwt'],
      [{ nonce: 'n-1' }, 'JWT'],
      [{ at_hash: 'abc' }, 'JWT'],
      [{ c_hash: 'abc' }, 'JWT'],
      [{ token_use: 'id' }, 'JWT'],
      [{ typ: 'ID' }, 'JWT'],
    ];
    for (const [claims, typ] of refused) {
      const error = await rejection(auth.verify(await p.sign(claims, { typ })));
      expect(error, `${typ} ${JSON.stringify(claims)}`).toBeInstanceOf(InvalidToken);
    }
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
