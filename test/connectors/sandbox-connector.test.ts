// The sandbox connector as a platform: OAuth with real code and PKCE checks, publications recorded per call,
// faults drawn from an injected random, pending publications settling on an injected clock.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import { platforms } from '../../domain/shared/platforms.js';
import {
  ConnectorError,
  type CallContext,
  type ConnectedAccount,
  type PlatformConnector,
  type PublishRequest,
} from '../../infra/connectors/port.js';
import {
  createSandboxConnector,
  databaseFaultSource,
  issueAuthorizationCode,
  sandboxExternalId,
  sandboxMigrations,
  sandboxPublicationsOf,
  sandboxStats,
  setSandboxAccountRevoked,
  setSandboxFaults,
  staticFaultSource,
  type SandboxDeps,
  type SandboxTables,
} from '../../infra/connectors/sandbox/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

const BASE = 'http://sandbox.test';
let database: TestDatabase<SandboxTables>;
let db: Kysely<SandboxTables>;

beforeAll(async () => {
  database = await createTestDatabase<SandboxTables>(sandboxMigrations);
  db = database.db;
});
afterAll(async () => {
  await database?.drop();
});
beforeEach(async () => {
  await sql`truncate sandbox_publications, sandbox_accounts, sandbox_authorization_codes, sandbox_settings`.execute(
    db,
  );
});

/** A clock the test moves by hand. */
function manualClock(start = '2026-03-01T12:00:00.000Z') {
  let at = Date.parse(start);
  return {
    now: () => new Date(at),
    advance(ms: number) {
      at += ms;
    },
  };
}

/** Random draws handed out in order (then 0.99: no fault). */
function draws(...values: number[]) {
  const queue = [...values];
  return () => queue.shift() ?? 0.99;
}

let clock = manualClock();
beforeEach(() => {
  clock = manualClock();
});

function connectorFor(platform: Platform, overrides: Partial<SandboxDeps> = {}): PlatformConnector {
  return createSandboxConnector(platform, {
    db,
    publicBaseUrl: BASE,
    faults: staticFaultSource('none'),
    pendingMs: 1500,
    timeoutDelayMs: 0,
    now: () => clock.now(),
    ...overrides,
  });
}

const verifier = 'a-verifier-of-enough-length-0123456789-abcdefghij';
const challengeOf = (v: string) => createHash('sha256').update(v).digest('base64url');
const callbackUrl = (platform: string) => `${BASE}/v1/marketing/oauth/${platform}/callback`;

async function connectViaOAuth(
  connector: PlatformConnector,
  account = `sandbox_${connector.platform}`,
): Promise<ConnectedAccount> {
  const { code } = await issueAuthorizationCode(db, {
    platform: connector.platform,
    accountHandle: account,
    codeChallenge: challengeOf(verifier),
    redirectUri: callbackUrl(connector.platform),
    now: clock.now(),
  });
  const result = await connector.completeAuthorization({
    params: { code, state: 's' },
    callbackUrl: callbackUrl(connector.platform),
    codeVerifier: verifier,
  });
  if (result.kind !== 'accounts') throw new Error('expected accounts');
  return result.accounts[0]!;
}

function contextOf(platform: Platform, account: ConnectedAccount): CallContext {
  return {
    account: {
      id: '00000000-0000-4000-8000-000000000001',
      orgId: '00000000-0000-4000-8000-000000000002',
      platform,
      accountExternalId: account.profile.accountExternalId,
      accountHandle: account.profile.accountHandle,
      xSubscription: null,
    },
    tokens: account.tokens,
    fetchMedia: async () => {
      throw new Error('no media in these tests');
    },
  };
}

let postCounter = 0;
function publishRequest(postId = `post-${++postCounter}`, attempt = 1): PublishRequest {
  return {
    postId,
    idempotencyKey: `publish:${postId}:${attempt}`,
    groupTitle: 'A title',
    contentText: `Hello from ${postId}`,
    media: null,
    platformPayload: null,
    attemptStartedAt: '2026-03-01T12:00:00.000Z',
  };
}

async function rejection(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error('expected a ConnectorError');
}

describe('publishing', () => {
  it('records one publication per successful publish and answers with its id and URL', async () => {
    const connector = connectorFor('x');
    const account = await connectViaOAuth(connector);
    const outcome = await connector.publish(contextOf('x', account), publishRequest('p-1'));
    expect(outcome.kind).toBe('published');
    if (outcome.kind !== 'published') return;
    expect(outcome.externalId).toMatch(/^\d{19}$/);
    expect(outcome.url).toBe(`${BASE}/v1/sandbox/x/posts/${outcome.externalId}`);
    const rows = await sandboxPublicationsOf(db, 'p-1');
    expect(rows).toEqual([
      expect.objectContaining({
        platform: 'x',
        account_external_id: account.profile.accountExternalId,
        idempotency_key: 'publish:p-1:1',
        external_id: outcome.externalId,
        url: outcome.url,
        text: 'Hello from p-1',
        status: 'published',
      }),
    ]);
  });
});

describe('publishing (continued)', () => {
  it('keeps duplicates: the same post published twice is two publications, and stats name it', async () => {
    const connector = connectorFor('linkedin');
    const account = await connectViaOAuth(connector);
    const context = contextOf('linkedin', account);
    await connector.publish(context, publishRequest('dup', 1));
    await connector.publish(context, publishRequest('dup', 2));
    await connector.publish(context, publishRequest('single', 1));
    expect(await sandboxPublicationsOf(db, 'dup')).toHaveLength(2);
    const stats = await sandboxStats(db);
    expect(stats.platforms).toEqual([
      { platform: 'linkedin', total: 3, published: 3, pending: 0, deleted: 0 },
    ]);
    expect(stats.duplicates).toEqual([{ platform: 'linkedin', postId: 'dup', publications: 2 }]);
  });

  it('draws each fault from its share of the random range, and only success and pending publish', async () => {
    const faults = staticFaultSource('auth=0.1,reject=0.1,fail=0.2,timeout=0.1,pending=0.2');
    // Shares laid end to end: auth [0,.1) reject [.1,.2) fail [.2,.4) timeout [.4,.5) pending [.5,.7) none [.7,1)
    const cases: Array<[number, string]> = [
      [0.05, 'auth'],
      [0.15, 'permanent'],
      [0.3, 'retryable'],
      [0.6, 'pending'],
      [0.8, 'published'],
    ];
    for (const [draw, expected] of cases) {
      const connector = connectorFor('threads', { faults, random: draws(draw) });
      const account = await connectViaOAuth(connector);
      const postId = `draw-${draw}`;
      const outcome = await connector
        .publish(contextOf('threads', account), publishRequest(postId))
        .then((o) => o.kind as string)
        .catch((error: unknown) => (error instanceof ConnectorError ? error.kind : 'other'));
      expect(outcome, `draw ${draw}`).toBe(expected);
      const rows = await sandboxPublicationsOf(db, postId);
      expect(rows.map((r) => r.status)).toEqual(
        expected === 'pending' ? ['pending'] : expected === 'published' ? ['published'] : [],
      );
    }
  });

  it('a lost answer (timeout) records the publication or not, by a second draw, and is unknown_outcome', async () => {
    const faults = staticFaultSource('timeout=1');
    const recorded = connectorFor('bluesky', { faults, random: draws(0.1, 0.2) });
    const account = await connectViaOAuth(recorded);
    const first = await rejection(recorded.publish(contextOf('bluesky', account), publishRequest('t-yes')));
    expect(first.kind).toBe('unknown_outcome');
    expect(await sandboxPublicationsOf(db, 't-yes')).toHaveLength(1);

    const lost = connectorFor('bluesky', { faults, random: draws(0.1, 0.7) });
    const second = await rejection(lost.publish(contextOf('bluesky', account), publishRequest('t-no')));
    expect(second.kind).toBe('unknown_outcome');
    expect(await sandboxPublicationsOf(db, 't-no')).toHaveLength(0);

    // The check that follows a lost answer tells the two apart.
    const checker = connectorFor('bluesky');
    const query = (postId: string) => ({
      postId,
      idempotencyKey: `publish:${postId}:1`,
      reference: null,
      contentText: '',
      attemptStartedAt: '2026-03-01T12:00:00.000Z',
    });
    expect(await checker.checkStatus(contextOf('bluesky', account), query('t-yes'))).toMatchObject({
      kind: 'published',
    });
    expect(await checker.checkStatus(contextOf('bluesky', account), query('t-no'))).toEqual({
      kind: 'not_found',
    });
  });

  it('a pending publication is published pendingMs later, on the injected clock', async () => {
    const connector = connectorFor('youtube', {
      faults: staticFaultSource('pending=1'),
      pendingMs: 60_000,
    });
    const account = await connectViaOAuth(connector);
    const context = contextOf('youtube', account);
    const outcome = await connector.publish(context, publishRequest('slow'));
    expect(outcome).toMatchObject({ kind: 'pending', checkAfterMs: 60_000 });
    const reference = outcome.kind === 'pending' ? outcome.reference : '';
    const query = {
      postId: 'slow',
      idempotencyKey: 'publish:slow:1',
      reference,
      contentText: '',
      attemptStartedAt: '2026-03-01T12:00:00.000Z',
    };
    clock.advance(59_999);
    expect(await connector.checkStatus(context, query)).toEqual({ kind: 'pending', checkAfterMs: 1 });
    expect((await sandboxStats(db)).platforms[0]).toMatchObject({ total: 1 });
    clock.advance(1);
    expect(await connector.checkStatus(context, query)).toEqual({
      kind: 'published',
      externalId: reference,
      url: `${BASE}/v1/sandbox/youtube/posts/${reference}`,
    });
    expect((await sandboxPublicationsOf(db, 'slow')).map((r) => r.status)).toEqual(['published']);
  });

  it('delete marks the publication deleted once; then and for unknown ids not_found', async () => {
    const connector = connectorFor('reddit');
    const account = await connectViaOAuth(connector);
    const context = contextOf('reddit', account);
    const outcome = await connector.publish(context, publishRequest('del'));
    const externalId = outcome.kind === 'published' ? outcome.externalId : '';
    expect(await connector.delete(context, externalId)).toEqual({ kind: 'deleted' });
    expect(await connector.delete(context, externalId)).toEqual({ kind: 'not_found' });
    expect(await connector.delete(context, 't3_nothing')).toEqual({ kind: 'not_found' });
    expect((await sandboxPublicationsOf(db, 'del')).map((r) => r.status)).toEqual(['deleted']);
    expect((await sandboxStats(db)).platforms).toEqual([
      { platform: 'reddit', total: 1, published: 0, pending: 0, deleted: 1 },
    ]);
  });

  it('refuses calls with an expired access token or for a revoked account (auth), publishing nothing', async () => {
    const connector = connectorFor('instagram');
    const account = await connectViaOAuth(connector);
    const context = contextOf('instagram', account);
    clock.advance(2 * 3_600_000);
    expect((await rejection(connector.publish(context, publishRequest('late')))).kind).toBe('auth');
    const fresh = { ...context, tokens: await connector.refresh(context.account, account.tokens) };
    await setSandboxAccountRevoked(db, 'instagram', account.profile.accountExternalId, true);
    expect((await rejection(connector.publish(fresh, publishRequest('late')))).kind).toBe('auth');
    expect((await rejection(connector.accountInfo(fresh))).kind).toBe('auth');
    expect(await sandboxPublicationsOf(db, 'late')).toEqual([]);
  });
});

describe('faults across processes', () => {
  it('a settings row overrides SANDBOX_FAULTS for every connector on the database, after the short cache', async () => {
    let at = 0;
    const sourceFor = () => databaseFaultSource({ db, configured: 'fail=1', cacheMs: 500, now: () => at });
    const one = connectorFor('x', { faults: sourceFor() });
    const two = connectorFor('x', { faults: sourceFor() });
    const account = await connectViaOAuth(one);
    const context = contextOf('x', account);
    expect((await rejection(one.publish(context, publishRequest()))).kind).toBe('retryable');
    expect((await rejection(two.publish(context, publishRequest()))).kind).toBe('retryable');

    await setSandboxFaults(db, 'reject=1');
    // Within the cache time the old value may still serve; past it every instance reads the row.
    at += 500;
    expect((await rejection(one.publish(context, publishRequest()))).kind).toBe('permanent');
    expect((await rejection(two.publish(context, publishRequest()))).kind).toBe('permanent');

    await setSandboxFaults(db, 'none');
    at += 500;
    expect((await two.publish(context, publishRequest())).kind).toBe('published');
  });

  it('per-platform shares replace the general share for that platform only', async () => {
    const faults = staticFaultSource('fail=1,x:fail=0');
    const x = connectorFor('x', { faults, random: draws(0.5) });
    const threads = connectorFor('threads', { faults, random: draws(0.5) });
    const xAccount = await connectViaOAuth(x);
    const threadsAccount = await connectViaOAuth(threads);
    expect((await x.publish(contextOf('x', xAccount), publishRequest())).kind).toBe('published');
    expect(
      (await rejection(threads.publish(contextOf('threads', threadsAccount), publishRequest()))).kind,
    ).toBe('retryable');
  });
});

describe('OAuth', () => {
  it('builds the authorize URL on the service with state, callback, S256 challenge and login hint', async () => {
    const start = await connectorFor('bluesky').startAuthorization({
      state: 'st-1',
      callbackUrl: callbackUrl('bluesky'),
      codeChallenge: challengeOf(verifier),
      blueskyHandle: 'alice.bsky.social',
    });
    const url = new URL(start.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/v1/sandbox/oauth/bluesky/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      state: 'st-1',
      redirect_uri: callbackUrl('bluesky'),
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
      login_hint: 'alice.bsky.social',
    });
  });

  it('exchanges a code once, checks the PKCE verifier and the redirect URI', async () => {
    const connector = connectorFor('tiktok');
    const issue = () =>
      issueAuthorizationCode(db, {
        platform: 'tiktok',
        accountHandle: 'creator_one',
        codeChallenge: challengeOf(verifier),
        redirectUri: callbackUrl('tiktok'),
        now: clock.now(),
      });
    const exchange = (code: string, codeVerifier = verifier, url = callbackUrl('tiktok')) =>
      connector.completeAuthorization({ params: { code, state: 's' }, callbackUrl: url, codeVerifier });

    const { code } = await issue();
    const wrongVerifier = await rejection(exchange(code, `${verifier}x`));
    expect(wrongVerifier).toMatchObject({ kind: 'permanent', details: { platformCode: 'invalid_grant' } });
    expect(wrongVerifier.message).toContain('PKCE');
    // The failed exchange used the code up, as OAuth servers do.
    expect((await rejection(exchange(code))).message).toContain('unknown, used or expired');

    const second = await issue();
    expect((await rejection(exchange(second.code, verifier, callbackUrl('x')))).message).toContain(
      'redirect_uri',
    );

    const third = await issue();
    const result = await exchange(third.code);
    expect(result.kind).toBe('accounts');
    const account = result.kind === 'accounts' ? result.accounts[0]! : null;
    const externalId = sandboxExternalId('tiktok', 'creator_one');
    expect(account?.profile).toMatchObject({
      accountExternalId: externalId,
      accountHandle: 'creator_one',
      profileUrl: `${BASE}/v1/sandbox/tiktok/accounts/${externalId}`,
    });
    expect(account?.tokens.accessToken).toMatch(/^sbx_at_/);
    expect(account?.tokens.refreshToken).toMatch(/^sbx_rt_/);
    expect(Date.parse(account!.tokens.expiresAt!) - clock.now().getTime()).toBe(2 * 3_600_000);
    expect((await rejection(exchange(third.code))).kind).toBe('permanent');

    const fourth = await issue();
    clock.advance(5 * 60_000);
    expect((await rejection(exchange(fourth.code))).message).toContain('unknown, used or expired');
  });

  it('a code for one platform is not accepted by another', async () => {
    const { code } = await issueAuthorizationCode(db, {
      platform: 'x',
      accountHandle: 'someone',
      codeChallenge: challengeOf(verifier),
      redirectUri: callbackUrl('x'),
      now: clock.now(),
    });
    const error = await rejection(
      connectorFor('threads').completeAuthorization({
        params: { code },
        callbackUrl: callbackUrl('x'),
        codeVerifier: verifier,
      }),
    );
    expect(error.kind).toBe('permanent');
  });

  it('refresh issues new tokens until the account is revoked, then refuses with auth; restore lifts it', async () => {
    const connector = connectorFor('x');
    const account = await connectViaOAuth(connector);
    const ref = contextOf('x', account).account;
    const refreshed = await connector.refresh(ref, account.tokens);
    expect(refreshed.accessToken).not.toBe(account.tokens.accessToken);
    expect(refreshed.refreshToken).not.toBe(account.tokens.refreshToken);
    expect(refreshed.scopes).toEqual(account.tokens.scopes);
    await setSandboxAccountRevoked(db, 'x', ref.accountExternalId, true);
    const error = await rejection(connector.refresh(ref, refreshed));
    expect(error.kind).toBe('auth');
    expect(error.message).not.toContain(refreshed.refreshToken!);
    await setSandboxAccountRevoked(db, 'x', ref.accountExternalId, false);
    expect((await connector.refresh(ref, refreshed)).accessToken).toMatch(/^sbx_at_/);
  });

  it('Facebook has no refresh: a 60-day token, no refresh token, refresh refused', async () => {
    const connector = connectorFor('facebook');
    expect(connector.supportsRefresh).toBe(false);
    const account = await connectViaOAuth(connector);
    expect(account.tokens.refreshToken).toBeNull();
    expect(Date.parse(account.tokens.expiresAt!) - clock.now().getTime()).toBe(60 * 86_400_000);
    const error = await rejection(connector.refresh(contextOf('facebook', account).account, account.tokens));
    expect(error.kind).toBe('permanent');
    for (const platform of platforms.filter((p) => p !== 'facebook'))
      expect(connectorFor(platform).supportsRefresh).toBe(true);
  });

  it('LinkedIn pages: a choice of sandbox organizations, then the chosen ones connect', async () => {
    const connector = connectorFor('linkedin');
    const pagesCallback = `${BASE}/v1/marketing/oauth/linkedin-pages/callback`;
    const { code } = await issueAuthorizationCode(db, {
      platform: 'linkedin',
      accountHandle: 'page_admin',
      codeChallenge: challengeOf(verifier),
      redirectUri: pagesCallback,
      now: clock.now(),
    });
    const result = await connector.completeAuthorization({
      params: { code },
      callbackUrl: pagesCallback,
      codeVerifier: verifier,
      linkedinTarget: 'page',
    });
    if (result.kind !== 'choice') throw new Error('expected a choice');
    expect(result.choice.options.length).toBeGreaterThanOrEqual(2);
    expect(result.choice.options.length).toBeLessThanOrEqual(3);
    const [first, second] = result.choice.options;
    const accounts = await connector.connectChoice!(result.choice.tokens, [first!.id, second!.id]);
    expect(accounts.map((a) => [a.profile.accountExternalId, a.profile.accountName])).toEqual([
      [`urn:li:organization:${first!.id}`, first!.name],
      [`urn:li:organization:${second!.id}`, second!.name],
    ]);
    expect(accounts[0]!.tokens.extra).toMatchObject({ authorUrn: `urn:li:organization:${first!.id}` });
    expect((await rejection(connector.connectChoice!(result.choice.tokens, ['123']))).kind).toBe('permanent');
  });

  it('Bluesky app passwords: the xxxx-xxxx-xxxx-xxxx form connects, others are refused without echoing them', async () => {
    const connector = connectorFor('bluesky');
    const account = await connector.connectWithAppPassword!('@Alice.bsky.social', 'abcd-efgh-ijkl-mnop');
    expect(account.profile).toMatchObject({
      accountHandle: 'alice.bsky.social',
      accountExternalId: sandboxExternalId('bluesky', 'alice.bsky.social'),
    });
    expect(account.profile.accountExternalId).toMatch(/^did:plc:[a-z2-7]{24}$/);
    expect(account.tokens.extra).toMatchObject({ did: account.profile.accountExternalId });
    const secret = 'my-real-password-123';
    const error = await rejection(connector.connectWithAppPassword!('alice.bsky.social', secret));
    expect(error.kind).toBe('permanent');
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error.details)).not.toContain(secret);
  });

  it('TikTok creator info carries the privacy options and limits', async () => {
    const connector = connectorFor('tiktok');
    const account = await connectViaOAuth(connector, 'dancer');
    expect(await connector.creatorInfo!(contextOf('tiktok', account))).toEqual({
      creatorAvatarUrl: null,
      creatorUsername: 'dancer',
      creatorNickname: account.profile.accountName,
      privacyLevelOptions: [
        'PUBLIC_TO_EVERYONE',
        'MUTUAL_FOLLOW_FRIENDS',
        'FOLLOWER_OF_CREATOR',
        'SELF_ONLY',
      ],
      commentDisabled: false,
      duetDisabled: false,
      stitchDisabled: true,
      maxVideoPostDurationSec: 600,
      directPostEnabled: true,
    });
    expect('creatorInfo' in connectorFor('x')).toBe(false);
  });
});
