// TokenRefresher.runOnce with an injected clock: refreshes tokens expiring within 10 minutes (not later ones),
// marks refused refreshes `error` once, warns once per expiry for platforms without refresh, skips a locked account.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  connectSocialAccounts,
  loadSocialAccount,
  socialAccountStream,
  tokenStoreFor,
  type SocialAccountDeps,
} from '../../../commands/social-accounts/social-account-commands.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import { ConnectorError, type TokenSet } from '../../../infra/connectors/port.js';
import { TokenStore } from '../../../infra/social-accounts/token-store.js';
import { waitUntil } from '../../support/wait.js';
import { TokenRefresher } from '../../../processes/social-accounts/token-refresher.js';
import {
  accountEventTypes,
  fakeConnector,
  profileOf,
  refusedRefresh,
  registryOf,
  silentLogger,
  startAccountsHarness,
  systemMetadata,
  tokensOf,
  type AccountsHarness,
} from './support.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(async () => h?.stop());

const minutes = (n: number) => n * 60_000;
const days = (n: number) => n * 24 * 3_600_000;

beforeEach(async () => {
  // A round looks at every token row; each test starts with none but its own.
  await sql`delete from social_account_tokens`.execute(h.database.db);
});

function setup(nowIso: string) {
  const now = new Date(nowIso);
  const clock = () => now;
  const x = fakeConnector('x', { clock });
  const facebook = fakeConnector('facebook', { supportsRefresh: false, clock });
  const threads = fakeConnector('threads', { refreshesAccessToken: true, clock });
  const connectors = registryOf(
    x,
    facebook,
    threads,
    fakeConnector('linkedin', { clock }),
    fakeConnector('bluesky', { clock }),
  );
  const orgId = randomUUID();
  const tokens = tokenStoreFor(h.database.db, h.cipher);
  const deps: SocialAccountDeps = {
    commands: h.commands,
    readModels: h.database.db,
    tokens,
    connectors,
    now: clock,
  };
  const refresher = new TokenRefresher({
    db: h.database.db,
    tokenCipher: h.cipher,
    commands: h.commands,
    connectors,
    logger: silentLogger,
    now: clock,
  });
  const connect = async (platform: Platform, handle: string, t: TokenSet) => {
    const [view] = await connectSocialAccounts(
      deps,
      { orgId, platform, accounts: [{ profile: profileOf(handle), tokens: t }] },
      systemMetadata(orgId, now),
    );
    return view!.id;
  };
  return { now, x, facebook, threads, orgId, tokens, refresher, connect };
}

const statusOf = async (id: string) => {
  const s = await loadSocialAccount(h.commands, id);
  return s.kind === 'active' ? s.account.status : s.kind;
};

describe('TokenRefresher.runOnce', () => {
  test('refreshes tokens expiring within 10 minutes and leaves later ones alone', async () => {
    const s = setup('2031-01-01T00:00:00Z');
    const soon = await s.connect(
      'x',
      'soon',
      tokensOf('a-soon', new Date(s.now.getTime() + minutes(9)), 'r-soon'),
    );
    const later = await s.connect(
      'x',
      'later',
      tokensOf('a-later', new Date(s.now.getTime() + minutes(11)), 'r-later'),
    );
    const round = await s.refresher.runOnce(s.now);
    expect(round).toEqual({ refreshed: 1, failed: 0, warned: 0 });
    expect(s.x.refreshCalls).toEqual([{ accountId: soon, refreshToken: 'r-soon' }]);
    expect(await accountEventTypes(h.commands, soon)).toEqual([
      'SocialAccountConnected',
      'SocialAccountTokensRefreshed',
    ]);
    expect(await accountEventTypes(h.commands, later)).toEqual(['SocialAccountConnected']);
    const stored = await s.tokens.load(s.orgId, soon);
    expect(stored?.accessToken).toBe('access-1');
    expect(Date.parse(stored!.expiresAt!)).toBe(s.now.getTime() + 3_600_000);

    // The next round has nothing to do: the new token is good for an hour.
    expect(await s.refresher.runOnce(s.now)).toEqual({ refreshed: 0, failed: 0, warned: 0 });
    expect(s.x.refreshCalls).toHaveLength(1);
  });

  test('platforms that renew the access token itself (Threads, Instagram) are refreshed without a refresh token', async () => {
    const s = setup('2031-01-01T00:00:00Z');
    const id = await s.connect(
      'threads',
      'long_lived',
      tokensOf('a-long', new Date(s.now.getTime() + minutes(5)), null),
    );
    expect(await s.refresher.runOnce(s.now)).toEqual({ refreshed: 1, failed: 0, warned: 0 });
    expect(s.threads.refreshCalls).toEqual([{ accountId: id, refreshToken: null }]);
  });

  test('a refused refresh marks the account error once; the next rounds leave it alone', async () => {
    const s = setup('2032-01-01T00:00:00Z');
    const id = await s.connect('x', 'revoked', tokensOf('a', new Date(s.now.getTime() + minutes(5)), 'r'));
    s.x.onRefresh = () => Promise.reject(refusedRefresh());
    expect(await s.refresher.runOnce(s.now)).toEqual({ refreshed: 0, failed: 1, warned: 0 });
    expect(await statusOf(id)).toBe('error');
    expect(await s.refresher.runOnce(s.now)).toEqual({ refreshed: 0, failed: 0, warned: 0 });
    expect(s.x.refreshCalls).toHaveLength(1);
    expect(await accountEventTypes(h.commands, id)).toEqual([
      'SocialAccountConnected',
      'SocialAccountRefreshFailed',
    ]);
  });

  test('a platform hiccup (retryable) changes nothing and is tried again next round', async () => {
    const s = setup('2033-01-01T00:00:00Z');
    const id = await s.connect('x', 'hiccup', tokensOf('a', new Date(s.now.getTime() + minutes(5)), 'r'));
    const ok = s.x.onRefresh;
    s.x.onRefresh = () => Promise.reject(new ConnectorError('retryable', 'bad gateway', { status: 502 }));
    expect(await s.refresher.runOnce(s.now)).toEqual({ refreshed: 0, failed: 0, warned: 0 });
    expect(await statusOf(id)).toBe('connected');
    s.x.onRefresh = ok;
    expect(await s.refresher.runOnce(s.now)).toEqual({ refreshed: 1, failed: 0, warned: 0 });
  });

  test('platforms without refresh get one warning per expiry time, within 7 days of it', async () => {
    const s = setup('2034-01-01T00:00:00Z');
    const far = await s.connect('facebook', 'far', tokensOf('a', new Date(s.now.getTime() + days(8)), null));
    const near = await s.connect(
      'facebook',
      'near',
      tokensOf('b', new Date(s.now.getTime() + days(6)), null),
    );
    expect(await s.refresher.runOnce(s.now)).toEqual({ refreshed: 0, failed: 0, warned: 1 });
    expect(await s.refresher.runOnce(new Date(s.now.getTime() + minutes(1)))).toEqual({
      refreshed: 0,
      failed: 0,
      warned: 0,
    });
    expect(await accountEventTypes(h.commands, near)).toEqual([
      'SocialAccountConnected',
      'SocialAccountTokenExpiring',
    ]);
    expect(await accountEventTypes(h.commands, far)).toEqual(['SocialAccountConnected']);
    const [warning] = (await h.commands.eventStore.readStream(socialAccountStream(near))).slice(1);
    expect(warning?.data).toMatchObject({ orgId: s.orgId, platform: 'facebook', accountHandle: 'near' });
    expect(s.facebook.refreshCalls).toEqual([]);

    // Two days on, the far one is within 7 days too.
    expect(await s.refresher.runOnce(new Date(s.now.getTime() + days(2)))).toEqual({
      refreshed: 0,
      failed: 0,
      warned: 1,
    });
  });

  test('an account another instance is refreshing is skipped, not waited for', async () => {
    const s = setup('2035-01-01T00:00:00Z');
    const id = await s.connect('x', 'locked', tokensOf('a', new Date(s.now.getTime() + minutes(5)), 'r'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const otherInstance = new TokenStore(h.database.db, h.cipher);
    const holding = otherInstance.withAccountLock(id, async () => {
      entered();
      await held;
    });
    await inside;
    expect(await s.refresher.runOnce(s.now)).toEqual({ refreshed: 0, failed: 0, warned: 0 });
    expect(s.x.refreshCalls).toEqual([]);
    release();
    await holding;
    expect(await s.refresher.runOnce(s.now)).toEqual({ refreshed: 1, failed: 0, warned: 0 });
  });

  test('tokens left behind by a deleted account are removed', async () => {
    const s = setup('2036-01-01T00:00:00Z');
    const orphan = randomUUID();
    await s.tokens.save(s.orgId, orphan, tokensOf('a', new Date(s.now.getTime() + minutes(5)), 'r'));
    await s.refresher.runOnce(s.now);
    expect(await s.tokens.load(s.orgId, orphan)).toBeNull();
    expect(s.x.refreshCalls).toEqual([]);
  });

  test('start runs a round at once and stop ends the loop', async () => {
    const s = setup('2037-01-01T00:00:00Z');
    const id = await s.connect('x', 'looped', tokensOf('a', new Date(s.now.getTime() + minutes(5)), 'r'));
    await s.refresher.start();
    await waitUntil(
      async () => (await accountEventTypes(h.commands, id)).includes('SocialAccountTokensRefreshed'),
      {
        what: 'the first round to refresh',
      },
    );
    await s.refresher.stop();
  });
});
