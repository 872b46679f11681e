// Which social account events notify whom (the social accounts slice's notification rules): an account that
// must be reconnected, now or soon. Contributed to the notifications read model by api/social-accounts/slice.ts.
import { defineNotificationRules, type NotificationIntent } from '../notifications/rules.js';
import { socialAccountEventCodec } from './event-codec.js';

const accountHref = (orgId: string, accountId: string) => `/v1/orgs/${orgId}/marketing/accounts/${accountId}`;
const accountName = (d: { platform: string; accountHandle: string | null }) =>
  d.accountHandle ? `${d.platform} account @${d.accountHandle.replace(/^@/, '')}` : `${d.platform} account`;

export const socialAccountNotificationRules = defineNotificationRules(
  socialAccountEventCodec,
  ['SocialAccountRefreshFailed', 'SocialAccountTokenExpiring', 'SocialAccountDisconnected'],
  (event): NotificationIntent[] => {
    switch (event.type) {
      case 'SocialAccountRefreshFailed':
      case 'SocialAccountDisconnected': {
        const d = event.data;
        const at =
          event.type === 'SocialAccountRefreshFailed' ? event.data.failedAt : event.data.disconnectedAt;
        return [
          {
            orgId: d.orgId,
            tier: 'action_required',
            type: 'account_needs_reconnect',
            title: `Reconnect your ${accountName(d)}`,
            body: d.reason,
            href: accountHref(d.orgId, d.accountId),
            recipients: { kind: 'permission', permission: 'accounts:manage', except: null },
            dedupeKey: `account_needs_reconnect:${d.accountId}:${at}`,
            metadata: { accountId: d.accountId, platform: d.platform },
            createdAt: at,
          },
        ];
      }
      case 'SocialAccountTokenExpiring': {
        const d = event.data;
        return [
          {
            orgId: d.orgId,
            tier: 'action_required',
            type: 'token_expiring',
            title: `Your ${accountName(d)} needs reconnecting soon`,
            body: `Its access expires at ${d.tokenExpiresAt}.`,
            href: accountHref(d.orgId, d.accountId),
            recipients: { kind: 'permission', permission: 'accounts:manage', except: null },
            dedupeKey: `token_expiring:${d.accountId}:${d.tokenExpiresAt}`,
            metadata: { accountId: d.accountId, platform: d.platform, tokenExpiresAt: d.tokenExpiresAt },
            createdAt: d.warnedAt,
          },
        ];
      }
    }
  },
);
