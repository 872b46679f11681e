// The social account aggregate: one connected platform account of a workspace, its status and token health.
// One stream per platform account and workspace (`socialAccount-<id>`, id derived from both), so reconnecting finds it.
import type { Platform } from '../shared/platforms.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { InvalidFields, NotFound } from '../shared/errors.js';
import { deterministicUuid } from '../shared/ids.js';
import {
  socialAccountEventCodec,
  type AccountNotice,
  type PlatformProfile,
  type SocialAccountEvent,
} from './event-codec.js';

export const socialAccountCategory = 'socialAccount';

export type { AccountNotice, PlatformProfile, SocialAccountEvent, XSubscription } from './event-codec.js';

export type SocialAccountStatus = 'connected' | 'disconnected' | 'error';

/** The same platform account connected to the same workspace always gets the same id. */
export function socialAccountId(orgId: string, platform: Platform, accountExternalId: string): string {
  return deterministicUuid('socialAccount', orgId, platform, accountExternalId);
}

/** Every social account event type, as the codec knows them. */
export const socialAccountEventTypes: ReadonlyArray<SocialAccountEvent['type']> =
  socialAccountEventCodec.types;

export type SocialAccountCommand =
  | {
      type: 'ConnectSocialAccount';
      accountId: string;
      orgId: string;
      platform: Platform;
      accountExternalId: string;
      profile: PlatformProfile;
      scopes: string[];
      tokenExpiresAt: string | null;
      now: string;
    }
  /** PATCH profileUrl: null clears it. */
  | { type: 'SetProfileUrl'; profileUrl: string | null; now: string }
  | { type: 'RecordTokensRefreshed'; tokenExpiresAt: string | null; now: string }
  | { type: 'RecordRefreshFailed'; reason: string; now: string }
  | { type: 'RecordTokenExpiring'; tokenExpiresAt: string; now: string }
  | { type: 'DisconnectSocialAccount'; reason: string; now: string }
  | { type: 'DeleteSocialAccount'; now: string };

export interface SocialAccount extends PlatformProfile {
  id: string;
  orgId: string;
  platform: Platform;
  accountExternalId: string;
  status: SocialAccountStatus;
  scopes: string[];
  tokenExpiresAt: string | null;
  lastRefreshedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** A profile URL set by PATCH (even null) wins over the platform's on a reconnect. */
  profileUrlSetByUser: boolean;
  /** The expiry time the last "token expiring" warning was for: one warning per expiry time. */
  expiryWarnedFor: string | null;
  /** Why the account is in `error` or `disconnected`; null while connected. */
  statusReason: string | null;
}

export type SocialAccountState =
  | { kind: 'absent' }
  | { kind: 'active'; account: SocialAccount }
  /** Gone from the list; kept so that a reconnect after deletion restores the same id. */
  | { kind: 'deleted'; account: SocialAccount };

/** profileUrl as PATCH takes it: an absolute http(s) URL, or null. */
export function validateProfileUrl(profileUrl: string | null): string | null {
  if (profileUrl === null) return null;
  let url: URL | null;
  try {
    url = new URL(profileUrl);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || profileUrl.length > 2048) {
    throw new InvalidFields('Invalid profile URL', [
      {
        path: 'profileUrl',
        message: 'an absolute http or https URL (at most 2048 characters), or null',
      },
    ]);
  }
  return profileUrl;
}

const sameScopes = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((s, i) => s === [...b].sort()[i]);

function liveAccount(state: SocialAccountState): SocialAccount {
  if (state.kind !== 'active') throw new NotFound('Social account not found');
  return state.account;
}

/**
 * The account a token-health record speaks about. A record that arrives after the account was deleted,
 * disconnected or failed has nothing to say (only a reconnect brings such an account back), so it is null.
 */
function connectedAccount(state: SocialAccountState): SocialAccount | null {
  return state.kind === 'active' && state.account.status === 'connected' ? state.account : null;
}

const accountNotice = (a: SocialAccount): AccountNotice => ({
  accountId: a.id,
  orgId: a.orgId,
  platform: a.platform,
  accountHandle: a.accountHandle,
});

/** An event about a live account changes these fields; one about an absent or deleted account changes nothing. */
function changeAccount(
  state: SocialAccountState,
  change: (a: SocialAccount) => Partial<SocialAccount>,
): SocialAccountState {
  if (state.kind !== 'active') return state;
  return { kind: 'active', account: { ...state.account, ...change(state.account) } };
}

export const socialAccountDecider: Decider<SocialAccountState, SocialAccountCommand, SocialAccountEvent> = {
  initialState: { kind: 'absent' },
  codec: socialAccountEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'ConnectSocialAccount': {
        const { profile } = command;
        if (state.kind !== 'active') {
          return [
            {
              type: 'SocialAccountConnected',
              data: {
                accountId: command.accountId,
                orgId: command.orgId,
                platform: command.platform,
                accountExternalId: command.accountExternalId,
                ...profile,
                scopes: command.scopes,
                tokenExpiresAt: command.tokenExpiresAt,
                connectedAt: command.now,
              },
            },
          ];
        }
        const a = state.account;
        const profileUrl = a.profileUrlSetByUser ? a.profileUrl : profile.profileUrl;
        const unchanged =
          a.status === 'connected' &&
          a.accountName === profile.accountName &&
          a.accountHandle === profile.accountHandle &&
          a.profileImageUrl === profile.profileImageUrl &&
          a.profileUrl === profileUrl &&
          a.accountBio === profile.accountBio &&
          a.xSubscription === profile.xSubscription &&
          a.tokenExpiresAt === command.tokenExpiresAt &&
          sameScopes(a.scopes, command.scopes);
        // The same connection recorded twice (a retried callback) changes nothing.
        if (unchanged) return [];
        return [
          {
            type: 'SocialAccountReconnected',
            data: {
              accountId: a.id,
              orgId: a.orgId,
              ...profile,
              scopes: command.scopes,
              tokenExpiresAt: command.tokenExpiresAt,
              reconnectedAt: command.now,
            },
          },
        ];
      }
      case 'SetProfileUrl': {
        const a = liveAccount(state);
        const profileUrl = validateProfileUrl(command.profileUrl);
        if (a.profileUrlSetByUser && a.profileUrl === profileUrl) return [];
        return [
          {
            type: 'SocialAccountProfileUrlSet',
            data: { accountId: a.id, orgId: a.orgId, profileUrl, updatedAt: command.now },
          },
        ];
      }
      case 'RecordTokensRefreshed': {
        const a = connectedAccount(state);
        if (!a) return [];
        return [
          {
            type: 'SocialAccountTokensRefreshed',
            data: {
              accountId: a.id,
              orgId: a.orgId,
              tokenExpiresAt: command.tokenExpiresAt,
              refreshedAt: command.now,
            },
          },
        ];
      }
      case 'RecordRefreshFailed': {
        // Once: an account already in error (or no longer connected) is not reported again.
        const a = connectedAccount(state);
        if (!a) return [];
        return [
          {
            type: 'SocialAccountRefreshFailed',
            data: { ...accountNotice(a), reason: command.reason, failedAt: command.now },
          },
        ];
      }
      case 'RecordTokenExpiring': {
        const a = connectedAccount(state);
        if (!a || a.expiryWarnedFor === command.tokenExpiresAt) return [];
        return [
          {
            type: 'SocialAccountTokenExpiring',
            data: { ...accountNotice(a), tokenExpiresAt: command.tokenExpiresAt, warnedAt: command.now },
          },
        ];
      }
      case 'DisconnectSocialAccount': {
        const a = liveAccount(state);
        if (a.status === 'disconnected') return [];
        return [
          {
            type: 'SocialAccountDisconnected',
            data: { ...accountNotice(a), reason: command.reason, disconnectedAt: command.now },
          },
        ];
      }
      case 'DeleteSocialAccount': {
        const a = liveAccount(state);
        return [
          { type: 'SocialAccountDeleted', data: { accountId: a.id, orgId: a.orgId, deletedAt: command.now } },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'SocialAccountConnected': {
        const d = event.data;
        // A connection after a deletion starts afresh: same id, new creation time, the platform's profile.
        return {
          kind: 'active',
          account: {
            id: d.accountId,
            orgId: d.orgId,
            platform: d.platform,
            accountExternalId: d.accountExternalId,
            accountName: d.accountName,
            accountHandle: d.accountHandle,
            profileImageUrl: d.profileImageUrl,
            profileUrl: d.profileUrl,
            accountBio: d.accountBio,
            xSubscription: d.xSubscription,
            status: 'connected',
            scopes: d.scopes,
            tokenExpiresAt: d.tokenExpiresAt,
            lastRefreshedAt: null,
            createdAt: d.connectedAt,
            updatedAt: d.connectedAt,
            profileUrlSetByUser: false,
            expiryWarnedFor: null,
            statusReason: null,
          },
        };
      }
      case 'SocialAccountReconnected': {
        const d = event.data;
        return changeAccount(state, (a) => ({
          accountName: d.accountName,
          accountHandle: d.accountHandle,
          profileImageUrl: d.profileImageUrl,
          profileUrl: a.profileUrlSetByUser ? a.profileUrl : d.profileUrl,
          accountBio: d.accountBio,
          xSubscription: d.xSubscription,
          status: 'connected',
          scopes: d.scopes,
          tokenExpiresAt: d.tokenExpiresAt,
          updatedAt: d.reconnectedAt,
          statusReason: null,
        }));
      }
      case 'SocialAccountProfileUrlSet': {
        const d = event.data;
        return changeAccount(state, () => ({
          profileUrl: d.profileUrl,
          profileUrlSetByUser: true,
          updatedAt: d.updatedAt,
        }));
      }
      case 'SocialAccountTokensRefreshed': {
        const d = event.data;
        return changeAccount(state, () => ({
          tokenExpiresAt: d.tokenExpiresAt,
          lastRefreshedAt: d.refreshedAt,
          updatedAt: d.refreshedAt,
        }));
      }
      case 'SocialAccountRefreshFailed': {
        const d = event.data;
        return changeAccount(state, () => ({
          status: 'error',
          statusReason: d.reason,
          updatedAt: d.failedAt,
        }));
      }
      case 'SocialAccountTokenExpiring':
        // A warning is bookkeeping, not a change of the account the API shows: updatedAt stays.
        return changeAccount(state, () => ({ expiryWarnedFor: event.data.tokenExpiresAt }));
      case 'SocialAccountDisconnected': {
        const d = event.data;
        return changeAccount(state, () => ({
          status: 'disconnected',
          statusReason: d.reason,
          updatedAt: d.disconnectedAt,
        }));
      }
      case 'SocialAccountDeleted': {
        if (state.kind !== 'active') return state;
        return { kind: 'deleted', account: { ...state.account, updatedAt: event.data.deletedAt } };
      }
      default:
        return assertNever(event);
    }
  },
};

/** The spec's SocialAccount: the account without its bookkeeping, and whether X Premium applies. */
export type SocialAccountView = Omit<
  SocialAccount,
  'profileUrlSetByUser' | 'expiryWarnedFor' | 'statusReason'
> & {
  xPremium: boolean | null;
};

export function socialAccountView(a: SocialAccount): SocialAccountView {
  return {
    id: a.id,
    orgId: a.orgId,
    platform: a.platform,
    accountExternalId: a.accountExternalId,
    accountName: a.accountName,
    accountHandle: a.accountHandle,
    status: a.status,
    scopes: a.scopes,
    tokenExpiresAt: a.tokenExpiresAt,
    lastRefreshedAt: a.lastRefreshedAt,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
    profileImageUrl: a.profileImageUrl,
    profileUrl: a.profileUrl,
    accountBio: a.accountBio,
    // Only X has subscriptions; unknown stays null rather than a guessed false.
    xPremium:
      a.platform === 'x' && a.xSubscription !== null
        ? a.xSubscription === 'premium' || a.xSubscription === 'premium_plus'
        : null,
    xSubscription: a.platform === 'x' ? a.xSubscription : null,
  };
}

/** How to name an account in messages: `@handle`, else its name, else its platform id. */
export function accountLabel(a: {
  accountHandle: string | null;
  accountName?: string | null;
  accountExternalId: string;
}): string {
  if (a.accountHandle) return a.accountHandle.startsWith('@') ? a.accountHandle : `@${a.accountHandle}`;
  return a.accountName ?? a.accountExternalId;
}
