// AccountAccess against a real PostgreSQL and event store: which account a post publishes with, tokens refreshed
// ahead of expiry and after an auth error, a refused refresh (status error, one event), and concurrent callers.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AccountAccess } from '../../../commands/social-accounts/account-access.js';
import {
  connectSocialAccounts,
  deleteSocialAccount,
  loadSocialAccount,
  type SocialAccountDeps,
} from '../../../commands/social-accounts/social-account-commands.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import { ConnectorError, type AccountRef, type TokenSet } from '../../../infra/connectors/port.js';
import {
  accountEventTypes,
  fakeConnector,
  profileOf,
  refusedRefresh,
  registryOf,
  startAccountsHarness,
  systemMetadata,
  tokensOf,
  type AccountsHarness,
  type FakeConnector,
} from './support.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(async () => h?.stop());

const now = () => new Date();
const inOneHour = () => new Date(Date.now() + 3_600_000);
const inThirtySeconds = () => new Date(Date.now() + 30_000);

interface Setup {
  orgId: string;
  x: FakeConnector;
  linkedin: FakeConnector;
  facebook: FakeConnector;
  access: AccountAccess;
  deps: SocialAccountDeps;
  connect(platform: Platform, handle: string, tokens: TokenSet): Promise<AccountRef>;
}

function setup(): Setup {
  const orgId = randomUUID();
  const x = fakeConnector('x');
  const linkedin = fakeConnector('linkedin');
  const facebook = fakeConnector('facebook', { supportsRefresh: false });
  const connectors = registryOf(x, linkedin, facebook);
  const deps: SocialAccountDeps = {
    commands: h.commands,
    readModels: h.database.db,
    tokens: h.tokens,
    connectors,
    now,
  };
  const access = new AccountAccess({
    db: h.database.db,
    commands: h.commands,
    tokens: h.tokens,
    connectors,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  return {
    orgId,
    x,
    linkedin,
    facebook,
    access,
    deps,
    async connect(platform, handle, tokens) {
      const [view] = await connectSocialAccounts(
        deps,
        { orgId, platform, accounts: [{ profile: profileOf(handle), tokens }] },
        systemMetadata(orgId),
      );
      return {
        id: view!.id,
        orgId,
        platform,
        accountExternalId: view!.accountExternalId,
        accountHandle: handle,
        xSubscription: null,
      };
    },
  };
}

async function statusOf(accountId: string): Promise<string | undefined> {
  const state = await loadSocialAccount(h.commands, accountId);
  return state.kind === 'active' ? state.account.status : state.kind;
}

describe('resolve', () => {
  test('a named, connected account of the workspace resolves to its reference', async () => {
    const s = setup();
    const ref = await s.connect('x', 'acme', tokensOf('a0', inOneHour()));
    expect(await s.access.resolve({ orgId: s.orgId, platform: 'x', socialAccountId: ref.id })).toEqual({
      ok: true,
      account: ref,
    });
  });

  test('an unknown id, another workspace’s account and another platform’s account are not found', async () => {
    const s = setup();
    const other = setup();
    const theirs = await other.connect('x', 'theirs', tokensOf('a0', inOneHour()));
    const linkedin = await s.connect('linkedin', 'acme-li', tokensOf('a0', inOneHour()));
    for (const socialAccountId of [randomUUID(), theirs.id, linkedin.id]) {
      const result = await s.access.resolve({ orgId: s.orgId, platform: 'x', socialAccountId });
      expect(result).toMatchObject({ ok: false, reason: 'not_found' });
    }
    const wrongPlatform = await s.access.resolve({
      orgId: s.orgId,
      platform: 'x',
      socialAccountId: linkedin.id,
    });
    expect(!wrongPlatform.ok && wrongPlatform.message).toMatch(/@acme-li is a linkedin account, not a x one/);
  });

  test('a deletion that was acknowledged is seen at once', async () => {
    const s = setup();
    const ref = await s.connect('x', 'gone', tokensOf('a0', inOneHour()));
    await deleteSocialAccount(s.deps, s.orgId, ref.id, systemMetadata(s.orgId));
    expect(await s.access.resolve({ orgId: s.orgId, platform: 'x', socialAccountId: ref.id })).toMatchObject({
      ok: false,
      reason: 'not_found',
    });
    expect(await s.access.resolve({ orgId: s.orgId, platform: 'x', socialAccountId: null })).toMatchObject({
      ok: false,
      reason: 'none',
    });
    // Its tokens went with it.
    expect(await h.tokens.load(s.orgId, ref.id)).toBeNull();
  });

  test('an account in error is not usable, and the message says to reconnect it', async () => {
    const s = setup();
    const ref = await s.connect('x', 'broken', tokensOf('a0', inThirtySeconds()));
    s.x.onRefresh = () => Promise.reject(refusedRefresh());
    await expect(s.access.tokensFor(ref)).rejects.toThrow(ConnectorError);
    for (const socialAccountId of [ref.id, null]) {
      const result = await s.access.resolve({ orgId: s.orgId, platform: 'x', socialAccountId });
      expect(result).toMatchObject({ ok: false, reason: 'not_connected' });
      expect(!result.ok && result.message).toMatch(/reconnect @broken/);
    }
  });

  test('without an id: none, the only connected account, or ambiguous naming the accounts', async () => {
    const s = setup();
    const none = await s.access.resolve({ orgId: s.orgId, platform: 'x', socialAccountId: null });
    expect(none).toMatchObject({ ok: false, reason: 'none' });
    expect(!none.ok && none.message).toMatch(/No x account is connected to this workspace; connect one/);

    const first = await s.connect('x', 'first', tokensOf('a0', inOneHour()));
    await s.connect('linkedin', 'not-x', tokensOf('a0', inOneHour()));
    expect(await s.access.resolve({ orgId: s.orgId, platform: 'x', socialAccountId: null })).toEqual({
      ok: true,
      account: first,
    });

    await s.connect('x', 'second', tokensOf('a0', inOneHour()));
    const ambiguous = await s.access.resolve({ orgId: s.orgId, platform: 'x', socialAccountId: null });
    expect(ambiguous).toMatchObject({ ok: false, reason: 'ambiguous' });
    expect(!ambiguous.ok && ambiguous.message).toMatch(
      /2 connected x accounts \(@first, @second\); choose one with socialAccountId/,
    );
  });
});

describe('tokens', () => {
  test('tokens valid for longer than a minute are used as stored, without a refresh', async () => {
    const s = setup();
    const ref = await s.connect('x', 'fresh', tokensOf('a0', inOneHour()));
    const seen: string[] = [];
    expect(await s.access.withTokens(ref, async (t) => seen.push(t.accessToken))).toBe(1);
    expect(seen).toEqual(['a0']);
    expect(s.x.refreshCalls).toEqual([]);
  });

  test('tokens expiring within a minute are refreshed first, saved sealed, and the refresh recorded', async () => {
    const s = setup();
    const ref = await s.connect('x', 'ahead', tokensOf('a0', inThirtySeconds(), 'r0'));
    const seen: string[] = [];
    await s.access.withTokens(ref, async (t) => seen.push(t.accessToken));
    expect(s.x.refreshCalls).toEqual([{ accountId: ref.id, refreshToken: 'r0' }]);
    expect(seen).toEqual(['access-1']);
    expect((await h.tokens.load(s.orgId, ref.id))?.refreshToken).toBe('refresh-1');
    expect(await accountEventTypes(h.commands, ref.id)).toEqual([
      'SocialAccountConnected',
      'SocialAccountTokensRefreshed',
    ]);
    const state = await loadSocialAccount(h.commands, ref.id);
    expect(state.kind === 'active' && state.account.lastRefreshedAt).not.toBeNull();
  });

  test('a platform that does not rotate refresh tokens keeps the one we have', async () => {
    const s = setup();
    const ref = await s.connect('x', 'keeps', tokensOf('a0', inThirtySeconds(), 'r-stays'));
    s.x.onRefresh = async () => tokensOf('a1', inOneHour(), null);
    await s.access.tokensFor(ref);
    expect(await h.tokens.load(s.orgId, ref.id)).toMatchObject({
      accessToken: 'a1',
      refreshToken: 'r-stays',
    });
  });

  test('an auth error refreshes once and calls again with the new token', async () => {
    const s = setup();
    const ref = await s.connect('x', 'retry', tokensOf('a0', inOneHour()));
    const seen: string[] = [];
    const result = await s.access.withTokens(ref, async (t) => {
      seen.push(t.accessToken);
      if (t.accessToken === 'a0') throw new ConnectorError('auth', 'token revoked', { status: 401 });
      return 'posted';
    });
    expect(result).toBe('posted');
    expect(seen).toEqual(['a0', 'access-1']);
    expect(s.x.refreshCalls).toHaveLength(1);
    expect(await statusOf(ref.id)).toBe('connected');
  });

  test('other failures pass through without a refresh', async () => {
    const s = setup();
    const ref = await s.connect('x', 'other', tokensOf('a0', inOneHour()));
    const failure = new ConnectorError('permanent', 'text too long', { status: 400 });
    await expect(s.access.withTokens(ref, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(s.x.refreshCalls).toEqual([]);
  });

  test('a refused refresh marks the account error with one event, and throws auth saying to reconnect', async () => {
    const s = setup();
    const ref = await s.connect('x', 'revoked', tokensOf('secret-a0', inOneHour(), 'secret-r0'));
    s.x.onRefresh = () => Promise.reject(refusedRefresh());
    const call = () =>
      s.access.withTokens(ref, async () => {
        throw new ConnectorError('auth', 'token revoked', { status: 401 });
      });
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'auth' });
    expect((error as Error).message).toMatch(/needs reconnecting; reconnect @revoked/);
    expect((error as Error).message).not.toMatch(/secret/);
    expect(await statusOf(ref.id)).toBe('error');

    // Again: no second platform refresh and no second event.
    await expect(call()).rejects.toMatchObject({ kind: 'auth' });
    expect(s.x.refreshCalls).toHaveLength(1);
    const events = await h.commands.eventStore.readStream(`socialAccount-${ref.id}`);
    const failed = events.filter((e) => e.type === 'SocialAccountRefreshFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toMatchObject({
      orgId: s.orgId,
      platform: 'x',
      accountHandle: 'revoked',
      reason: expect.stringMatching(/x refused to renew access/) as unknown,
    });
    expect(JSON.stringify(events)).not.toMatch(/secret/);
  });

  test('a platform without refresh: an auth error means the account needs reconnecting', async () => {
    const s = setup();
    const ref = await s.connect('facebook', 'page', tokensOf('a0', inOneHour(), null));
    await expect(
      s.access.withTokens(ref, () =>
        Promise.reject(new ConnectorError('auth', 'session expired', { status: 401 })),
      ),
    ).rejects.toMatchObject({ kind: 'auth', message: expect.stringMatching(/reconnect @page/) as unknown });
    expect(s.facebook.refreshCalls).toEqual([]);
    expect(await statusOf(ref.id)).toBe('error');
  });

  test('concurrent callers with an expiring token refresh once and all use the new token', async () => {
    const s = setup();
    const ref = await s.connect('x', 'busy', tokensOf('a0', inThirtySeconds(), 'r0'));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const base = s.x.onRefresh;
    s.x.onRefresh = async (...args) => {
      await gate;
      return base(...args);
    };
    const calls = Array.from({ length: 6 }, () => s.access.withTokens(ref, async (t) => t.accessToken));
    // Every caller is queued behind the one refreshing before the platform answers.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect(await Promise.all(calls)).toEqual(Array(6).fill('access-1'));
    expect(s.x.refreshCalls).toEqual([{ accountId: ref.id, refreshToken: 'r0' }]);
  });

  test('concurrent callers failing with auth on the same token refresh once', async () => {
    const s = setup();
    const ref = await s.connect('x', 'crowd', tokensOf('a0', inOneHour(), 'r0'));
    const calls = Array.from({ length: 6 }, () =>
      s.access.withTokens(ref, async (t) => {
        if (t.accessToken === 'a0') throw new ConnectorError('auth', 'expired', { status: 401 });
        return t.accessToken;
      }),
    );
    expect(await Promise.all(calls)).toEqual(Array(6).fill('access-1'));
    expect(s.x.refreshCalls).toHaveLength(1);
  });

  test('an account without stored tokens needs reconnecting', async () => {
    const s = setup();
    const ref = await s.connect('x', 'lost', tokensOf('a0', inOneHour()));
    await h.tokens.delete(s.orgId, ref.id);
    await expect(s.access.tokensFor(ref)).rejects.toMatchObject({
      kind: 'auth',
      message: expect.stringMatching(/reconnect @lost/) as unknown,
    });
  });
});
