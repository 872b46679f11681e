// The social account decider, rule by rule: connect, reconnect (also after an error, a disconnect or a
// deletion), profile URL, token refreshes, a refused refresh (once), expiry warnings (once per expiry),
// disconnect, delete, and refusals on unknown or deleted accounts; plus the view and the deterministic id.
import { describe, expect, test } from 'vitest';
import { fold } from '../../domain/shared/decider.js';
import { NotFound, ValidationError } from '../../domain/shared/errors.js';
import {
  socialAccountDecider,
  socialAccountId,
  socialAccountView,
  type PlatformProfile,
  type SocialAccountCommand,
  type SocialAccountEvent,
} from '../../domain/social-accounts/social-account.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const accountId = socialAccountId(orgId, 'x', '1234');
const t0 = '2026-11-22T10:00:00.000Z';
const t1 = '2026-11-22T11:00:00.000Z';
const t2 = '2026-11-22T12:00:00.000Z';
const expiry = '2026-11-22T12:00:00.000Z';
const laterExpiry = '2026-11-22T14:00:00.000Z';

const profile: PlatformProfile = {
  accountName: 'Acme',
  accountHandle: 'acme',
  profileImageUrl: 'https://img.example/acme.png',
  profileUrl: 'https://x.com/acme',
  accountBio: 'We make things',
  xSubscription: 'premium',
};

const connect = (over: Partial<Extract<SocialAccountCommand, { type: 'ConnectSocialAccount' }>> = {}) =>
  ({
    type: 'ConnectSocialAccount',
    accountId,
    orgId,
    platform: 'x',
    accountExternalId: '1234',
    profile,
    scopes: ['tweet.read', 'tweet.write'],
    tokenExpiresAt: expiry,
    now: t0,
    ...over,
  }) satisfies SocialAccountCommand;

const connected: SocialAccountEvent = {
  type: 'SocialAccountConnected',
  data: {
    accountId,
    orgId,
    platform: 'x',
    accountExternalId: '1234',
    ...profile,
    scopes: ['tweet.read', 'tweet.write'],
    tokenExpiresAt: expiry,
    connectedAt: t0,
  },
};
const refreshFailed: SocialAccountEvent = {
  type: 'SocialAccountRefreshFailed',
  data: {
    accountId,
    orgId,
    platform: 'x',
    accountHandle: 'acme',
    reason: 'x refused to renew access',
    failedAt: t1,
  },
};
const deleted: SocialAccountEvent = {
  type: 'SocialAccountDeleted',
  data: { accountId, orgId, deletedAt: t1 },
};
const disconnected: SocialAccountEvent = {
  type: 'SocialAccountDisconnected',
  data: { accountId, orgId, platform: 'x', accountHandle: 'acme', reason: 'revoked', disconnectedAt: t1 },
};

const spec = deciderSpec(socialAccountDecider);
const stateOf = (events: SocialAccountEvent[]) => fold(socialAccountDecider, events);

describe('ids', () => {
  test('the same platform account in the same workspace always has the same id; another workspace another', () => {
    expect(socialAccountId(orgId, 'x', '1234')).toBe(accountId);
    expect(socialAccountId('00000000-0000-4000-8000-000000000002', 'x', '1234')).not.toBe(accountId);
    expect(socialAccountId(orgId, 'bluesky', '1234')).not.toBe(accountId);
  });
});

describe('connecting', () => {
  test('a first connection records the account as connected with the platform profile', () => {
    spec.given([]).when(connect()).then([connected]);
    spec
      .given([])
      .when(connect())
      .thenState((s) => {
        expect(s.kind).toBe('active');
        if (s.kind !== 'active') return;
        expect(s.account).toMatchObject({
          status: 'connected',
          createdAt: t0,
          updatedAt: t0,
          lastRefreshedAt: null,
        });
      });
  });

  test('connecting the same account again with nothing new changes nothing', () => {
    spec
      .given([connected])
      .when(connect({ now: t1 }))
      .then([]);
    // Scope order does not matter.
    spec
      .given([connected])
      .when(connect({ now: t1, scopes: ['tweet.write', 'tweet.read'] }))
      .then([]);
  });

  test('a reconnect updates profile, scopes and expiry', () => {
    const changed = { ...profile, accountHandle: 'acme_new', xSubscription: 'basic' as const };
    spec
      .given([connected])
      .when(connect({ now: t1, profile: changed, scopes: ['tweet.read'], tokenExpiresAt: laterExpiry }))
      .then([
        {
          type: 'SocialAccountReconnected',
          data: {
            accountId,
            orgId,
            ...changed,
            scopes: ['tweet.read'],
            tokenExpiresAt: laterExpiry,
            reconnectedAt: t1,
          },
        },
      ]);
  });

  test('a reconnect brings an account in error or disconnected back to connected, keeping its creation time', () => {
    for (const broken of [refreshFailed, disconnected]) {
      spec
        .given([connected, broken])
        .when(connect({ now: t2 }))
        .thenState((s) => {
          expect(s.kind === 'active' && s.account).toMatchObject({
            status: 'connected',
            statusReason: null,
            createdAt: t0,
            updatedAt: t2,
          });
        });
    }
  });

  test('connecting after a deletion connects afresh under the same id', () => {
    spec
      .given([connected, deleted])
      .when(connect({ now: t2 }))
      .then([{ ...connected, data: { ...connected.data, connectedAt: t2 } }]);
    spec
      .given([connected, deleted])
      .when(connect({ now: t2 }))
      .thenState((s) => {
        expect(s.kind === 'active' && s.account).toMatchObject({
          id: accountId,
          status: 'connected',
          createdAt: t2,
        });
      });
  });
});

describe('profile URL', () => {
  test('PATCH sets it, null clears it, and the same value again changes nothing', () => {
    spec
      .given([connected])
      .when({ type: 'SetProfileUrl', profileUrl: 'https://acme.example/x', now: t1 })
      .then([
        {
          type: 'SocialAccountProfileUrlSet',
          data: { accountId, orgId, profileUrl: 'https://acme.example/x', updatedAt: t1 },
        },
      ]);
    spec
      .given([connected])
      .when({ type: 'SetProfileUrl', profileUrl: null, now: t1 })
      .thenState((s) => expect(s.kind === 'active' && s.account.profileUrl).toBeNull());
    const set: SocialAccountEvent = {
      type: 'SocialAccountProfileUrlSet',
      data: { accountId, orgId, profileUrl: 'https://acme.example/x', updatedAt: t1 },
    };
    spec
      .given([connected, set])
      .when({ type: 'SetProfileUrl', profileUrl: 'https://acme.example/x', now: t2 })
      .then([]);
  });

  test('only absolute http(s) URLs are taken', () => {
    for (const bad of [
      'javascript:alert(1)',
      'ftp://acme.example',
      'not a url',
      '/relative',
      `https://a.example/${'x'.repeat(2048)}`,
    ]) {
      spec
        .given([connected])
        .when({ type: 'SetProfileUrl', profileUrl: bad, now: t1 })
        .thenThrows(ValidationError);
    }
  });

  test('a URL set by PATCH survives a reconnect; otherwise the platform profile URL follows the platform', () => {
    const set: SocialAccountEvent = {
      type: 'SocialAccountProfileUrlSet',
      data: { accountId, orgId, profileUrl: null, updatedAt: t1 },
    };
    const moved = { ...profile, profileUrl: 'https://x.com/acme_moved' };
    spec
      .given([connected, set])
      .when(connect({ now: t2, profile: moved }))
      .thenState((s) => expect(s.kind === 'active' && s.account.profileUrl).toBeNull());
    spec
      .given([connected])
      .when(connect({ now: t2, profile: moved }))
      .thenState((s) => expect(s.kind === 'active' && s.account.profileUrl).toBe('https://x.com/acme_moved'));
  });

  test('PATCH on an unknown or deleted account is not found', () => {
    spec.given([]).when({ type: 'SetProfileUrl', profileUrl: null, now: t1 }).thenThrows(NotFound);
    spec
      .given([connected, deleted])
      .when({ type: 'SetProfileUrl', profileUrl: null, now: t2 })
      .thenThrows(NotFound);
  });
});

describe('token health', () => {
  test('a refresh records the new expiry and the refresh time', () => {
    spec
      .given([connected])
      .when({ type: 'RecordTokensRefreshed', tokenExpiresAt: laterExpiry, now: t1 })
      .thenState((s) => {
        expect(s.kind === 'active' && s.account).toMatchObject({
          tokenExpiresAt: laterExpiry,
          lastRefreshedAt: t1,
          updatedAt: t1,
          status: 'connected',
        });
      });
  });

  test('a refresh on an account no longer connected (error, disconnected, deleted, unknown) records nothing', () => {
    for (const given of [[connected, refreshFailed], [connected, disconnected], [connected, deleted], []]) {
      spec
        .given(given)
        .when({ type: 'RecordTokensRefreshed', tokenExpiresAt: laterExpiry, now: t2 })
        .then([]);
    }
  });

  test('a refused refresh moves the account to error, once, naming org, platform, handle and reason', () => {
    spec
      .given([connected])
      .when({ type: 'RecordRefreshFailed', reason: 'x refused to renew access', now: t1 })
      .then([refreshFailed]);
    spec
      .given([connected])
      .when({ type: 'RecordRefreshFailed', reason: 'x refused to renew access', now: t1 })
      .thenState((s) => expect(s.kind === 'active' && s.account.status).toBe('error'));
    spec
      .given([connected, refreshFailed])
      .when({ type: 'RecordRefreshFailed', reason: 'again', now: t2 })
      .then([]);
    spec.given([connected, deleted]).when({ type: 'RecordRefreshFailed', reason: 'gone', now: t2 }).then([]);
  });

  test('an expiry warning is recorded once per expiry time, again for a new expiry, never when not connected', () => {
    const warned: SocialAccountEvent = {
      type: 'SocialAccountTokenExpiring',
      data: { accountId, orgId, platform: 'x', accountHandle: 'acme', tokenExpiresAt: expiry, warnedAt: t1 },
    };
    spec
      .given([connected])
      .when({ type: 'RecordTokenExpiring', tokenExpiresAt: expiry, now: t1 })
      .then([warned]);
    spec
      .given([connected, warned])
      .when({ type: 'RecordTokenExpiring', tokenExpiresAt: expiry, now: t2 })
      .then([]);
    const reconnected = connect({ now: t2, tokenExpiresAt: laterExpiry });
    const afterReconnect = [
      connected,
      warned,
      ...socialAccountDecider.decide(reconnected, stateOf([connected, warned])),
    ];
    spec
      .given(afterReconnect)
      .when({ type: 'RecordTokenExpiring', tokenExpiresAt: laterExpiry, now: t2 })
      .then([
        {
          ...warned,
          data: { ...warned.data, tokenExpiresAt: laterExpiry, warnedAt: t2 },
        },
      ]);
    spec
      .given([connected, refreshFailed])
      .when({ type: 'RecordTokenExpiring', tokenExpiresAt: expiry, now: t2 })
      .then([]);
  });

  test('a warning does not change what the API shows (updatedAt stays)', () => {
    spec
      .given([connected])
      .when({ type: 'RecordTokenExpiring', tokenExpiresAt: expiry, now: t1 })
      .thenState((s) => expect(s.kind === 'active' && s.account.updatedAt).toBe(t0));
  });
});

describe('disconnecting and deleting', () => {
  test('a disconnect records its reason and moves the account to disconnected; twice changes nothing', () => {
    spec
      .given([connected])
      .when({ type: 'DisconnectSocialAccount', reason: 'revoked', now: t1 })
      .then([disconnected]);
    spec
      .given([connected, disconnected])
      .when({ type: 'DisconnectSocialAccount', reason: 'revoked', now: t2 })
      .then([]);
    spec.given([]).when({ type: 'DisconnectSocialAccount', reason: 'revoked', now: t1 }).thenThrows(NotFound);
  });

  test('delete removes the account; deleting again, or an unknown account, is not found', () => {
    spec.given([connected]).when({ type: 'DeleteSocialAccount', now: t1 }).then([deleted]);
    spec
      .given([connected, refreshFailed])
      .when({ type: 'DeleteSocialAccount', now: t2 })
      .then([{ type: 'SocialAccountDeleted', data: { accountId, orgId, deletedAt: t2 } }]);
    spec.given([connected, deleted]).when({ type: 'DeleteSocialAccount', now: t2 }).thenThrows(NotFound);
    spec.given([]).when({ type: 'DeleteSocialAccount', now: t1 }).thenThrows(NotFound);
  });
});

describe('the SocialAccount view', () => {
  test('xPremium is true for premium and premium_plus, false for none and basic, null when unknown', () => {
    const view = (xSubscription: PlatformProfile['xSubscription']) => {
      const s = stateOf([{ ...connected, data: { ...connected.data, xSubscription } }]);
      if (s.kind !== 'active') throw new Error('not active');
      return socialAccountView(s.account);
    };
    expect(view('premium').xPremium).toBe(true);
    expect(view('premium_plus').xPremium).toBe(true);
    expect(view('basic').xPremium).toBe(false);
    expect(view('none').xPremium).toBe(false);
    expect(view(null)).toMatchObject({ xPremium: null, xSubscription: null });
  });

  test('the view has exactly the spec fields, no internal bookkeeping', () => {
    const s = stateOf([connected]);
    if (s.kind !== 'active') throw new Error('not active');
    expect(Object.keys(socialAccountView(s.account)).sort()).toEqual(
      [
        'id',
        'orgId',
        'platform',
        'accountExternalId',
        'accountName',
        'accountHandle',
        'status',
        'scopes',
        'tokenExpiresAt',
        'lastRefreshedAt',
        'createdAt',
        'updatedAt',
        'profileImageUrl',
        'profileUrl',
        'accountBio',
        'xPremium',
        'xSubscription',
      ].sort(),
    );
  });
});
