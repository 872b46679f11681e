// Which events notify whom: a pure function from a domain event (and the facts the notifications read model keeps
// about its group and workspace) to notifications, each with its tier, recipients rule and dedupeKey.
import type { SubscriptionEvent } from '../billing/subscription.js';
import type { PostGroupEvent } from '../post-groups/event-codec.js';
import type { SocialAccountEvent } from '../social-accounts/social-account.js';
import { rolePermissions, type Permission, type Role } from '../workspaces/roles.js';

export const tiers = ['action_required', 'meaningful_win', 'routine'] as const;
export type Tier = (typeof tiers)[number];

/** The notification types this service creates (the spec leaves the values open). */
export const notificationTypes = [
  'approval_requested',
  'publish_failed',
  'account_needs_reconnect',
  'token_expiring',
  'first_post_published',
  'posts_published_milestone',
  'post_published',
  'post_approved',
  'post_rejected',
  'payment_failed',
  'workspace_read_only',
  'payment_recovered',
] as const;
export type NotificationType = (typeof notificationTypes)[number];

/** Who is to be told, resolved against the workspace's active members at that point of the log. */
export type RecipientRule =
  /** Members whose role grants the permission, except the one who acted. */
  | { kind: 'permission'; permission: Permission; except: string | null }
  /** These users (those still active members), or when none of them is, members with the fallback permission. */
  | { kind: 'users'; userIds: readonly string[]; fallback: Permission | null; except: string | null }
  /** Every active member. */
  | { kind: 'everyone' };

export interface NotificationIntent {
  orgId: string;
  tier: Tier;
  type: NotificationType;
  title: string;
  body: string | null;
  href: string | null;
  recipients: RecipientRule;
  /** One cause notifies once: the key is unique per workspace, and each recipient gets one row for it. */
  dedupeKey: string;
  metadata: Record<string, string | number | null>;
  /** When the cause happened (the event's time). */
  createdAt: string;
}

/** What the read model knows of a post group: who drafted it, who approved it, its title. */
export interface GroupFacts {
  title: string;
  createdBy: string;
  approvers: readonly string[];
}

export interface RuleContext {
  /** The event's post group, when it has one and the group is known. */
  group: GroupFacts | null;
  /** For PostPublished: how many distinct posts the workspace has published, this one included. */
  publishedCount?: number;
}

export type NotifyingEvent =
  | Extract<
      PostGroupEvent,
      {
        type:
          | 'PostGroupSubmittedForApproval'
          | 'PostGroupApproved'
          | 'PostGroupRejected'
          | 'PostPublished'
          | 'PostPublishAttemptFailed';
      }
    >
  | Extract<
      SocialAccountEvent,
      { type: 'SocialAccountRefreshFailed' | 'SocialAccountTokenExpiring' | 'SocialAccountDisconnected' }
    >
  | Extract<
      SubscriptionEvent,
      { type: 'SubscriptionPaymentFailed' | 'SubscriptionAccessRestricted' | 'SubscriptionRecovered' }
    >;

export const notifyingEventTypes: readonly NotifyingEvent['type'][] = [
  'PostGroupSubmittedForApproval',
  'PostGroupApproved',
  'PostGroupRejected',
  'PostPublished',
  'PostPublishAttemptFailed',
  'SocialAccountRefreshFailed',
  'SocialAccountTokenExpiring',
  'SocialAccountDisconnected',
  'SubscriptionPaymentFailed',
  'SubscriptionAccessRestricted',
  'SubscriptionRecovered',
];

/** Published-post counts worth celebrating (1 is the first post); beyond the list, every thousand. */
export const publishedMilestones = [10, 50, 100, 250, 500, 1000] as const;

export function isPublishedMilestone(count: number): boolean {
  return (publishedMilestones as readonly number[]).includes(count) || (count > 1000 && count % 1000 === 0);
}

const groupHref = (orgId: string, groupId: string) => `/v1/orgs/${orgId}/marketing/post-groups/${groupId}`;
const postHref = (orgId: string, postId: string) => `/v1/orgs/${orgId}/marketing/posts/${postId}`;
const billingHref = (orgId: string) => `/v1/orgs/${orgId}/billing`;
const accountHref = (orgId: string, accountId: string) => `/v1/orgs/${orgId}/marketing/accounts/${accountId}`;
const quoted = (group: GroupFacts | null) => (group ? `“${group.title}”` : 'A post');
const accountName = (d: { platform: string; accountHandle: string | null }) =>
  d.accountHandle ? `${d.platform} account @${d.accountHandle.replace(/^@/, '')}` : `${d.platform} account`;

export function notificationsFor(event: NotifyingEvent, context: RuleContext): NotificationIntent[] {
  switch (event.type) {
    case 'SubscriptionPaymentFailed': {
      const d = event.data;
      return [
        {
          orgId: d.orgId,
          tier: 'action_required',
          type: 'payment_failed',
          title: 'A payment for this workspace failed',
          body: `Update the payment method by ${d.graceEndsAt}; after that the workspace becomes read-only.`,
          href: billingHref(d.orgId),
          recipients: { kind: 'permission', permission: 'billing:manage', except: null },
          dedupeKey: `payment_failed:${d.providerEventId}`,
          metadata: { pastDueSince: d.pastDueSince, graceEndsAt: d.graceEndsAt },
          createdAt: d.at,
        },
      ];
    }
    case 'SubscriptionAccessRestricted': {
      const d = event.data;
      // Everyone's writes are refused from now on, so everyone is told why.
      return [
        {
          orgId: d.orgId,
          tier: 'action_required',
          type: 'workspace_read_only',
          title: 'This workspace is read-only until its payment is fixed',
          body: 'Everything can still be read; changes and new posts wait until the overdue payment is made.',
          href: billingHref(d.orgId),
          recipients: { kind: 'everyone' },
          dedupeKey: `workspace_read_only:${d.at}`,
          metadata: { since: d.at },
          createdAt: d.at,
        },
      ];
    }
    case 'SubscriptionRecovered': {
      const d = event.data;
      return [
        {
          orgId: d.orgId,
          tier: 'routine',
          type: 'payment_recovered',
          title: 'The payment went through; the workspace is fully usable again',
          body: null,
          href: billingHref(d.orgId),
          recipients: { kind: 'permission', permission: 'billing:manage', except: null },
          dedupeKey: `payment_recovered:${d.providerEventId}`,
          metadata: {},
          createdAt: d.at,
        },
      ];
    }
    case 'PostGroupSubmittedForApproval': {
      const d = event.data;
      return [
        {
          orgId: d.orgId,
          tier: 'action_required',
          type: 'approval_requested',
          title: `${quoted(context.group)} is waiting for your review`,
          body:
            d.cause === 'submitted' || d.cause === 'created'
              ? 'Submitted for approval.'
              : 'It was edited after approval and needs approving again.',
          href: groupHref(d.orgId, d.groupId),
          recipients: { kind: 'permission', permission: 'posts:approve', except: d.by },
          dedupeKey: `approval_requested:${d.approvalId}`,
          metadata: { groupId: d.groupId, approvalId: d.approvalId, requestedBy: d.by },
          createdAt: d.at,
        },
      ];
    }
    case 'PostGroupApproved': {
      const d = event.data;
      if (!context.group) return [];
      return [
        {
          orgId: d.orgId,
          tier: 'routine',
          type: 'post_approved',
          title: `${quoted(context.group)} was approved`,
          body: null,
          href: groupHref(d.orgId, d.groupId),
          recipients: { kind: 'users', userIds: [context.group.createdBy], fallback: null, except: d.by },
          dedupeKey: `post_approved:${d.groupId}:${d.records[0]?.approvalId ?? d.at}`,
          metadata: { groupId: d.groupId, approvedBy: d.by },
          createdAt: d.at,
        },
      ];
    }
    case 'PostGroupRejected': {
      const d = event.data;
      if (!context.group) return [];
      return [
        {
          orgId: d.orgId,
          tier: 'routine',
          type: 'post_rejected',
          title: `${quoted(context.group)} was sent back`,
          body: d.note ?? (d.reason ? `Reason: ${d.reason.replace(/_/g, ' ')}.` : null),
          href: groupHref(d.orgId, d.groupId),
          recipients: { kind: 'users', userIds: [context.group.createdBy], fallback: null, except: d.by },
          dedupeKey: `post_rejected:${d.groupId}:${d.records[0]?.approvalId ?? d.at}`,
          metadata: { groupId: d.groupId, rejectedBy: d.by, reason: d.reason },
          createdAt: d.at,
        },
      ];
    }
    case 'PostPublishAttemptFailed': {
      const d = event.data;
      // Only a post that failed for good asks for someone to act; a retry on its way does not.
      if (d.nextRetryAt !== null) return [];
      const people = context.group ? [context.group.createdBy, ...context.group.approvers] : [];
      return [
        {
          orgId: d.orgId,
          tier: 'action_required',
          type: 'publish_failed',
          title: `${quoted(context.group)} could not be published`,
          body: d.error,
          href: postHref(d.orgId, d.postId),
          recipients: { kind: 'users', userIds: people, fallback: 'posts:publish', except: null },
          dedupeKey: `publish_failed:${d.postId}:${d.attempt}`,
          metadata: { groupId: d.groupId, postId: d.postId, attempt: d.attempt, reason: d.reason },
          createdAt: d.at,
        },
      ];
    }
    case 'PostPublished': {
      const d = event.data;
      const intents: NotificationIntent[] = [];
      if (context.group) {
        intents.push({
          orgId: d.orgId,
          tier: 'routine',
          type: 'post_published',
          title: `${quoted(context.group)} was published`,
          body: d.url,
          href: postHref(d.orgId, d.postId),
          recipients: { kind: 'users', userIds: [context.group.createdBy], fallback: null, except: null },
          dedupeKey: `post_published:${d.postId}`,
          metadata: { groupId: d.groupId, postId: d.postId, url: d.url },
          createdAt: d.at,
        });
      }
      const count = context.publishedCount;
      if (count === 1) {
        intents.push({
          orgId: d.orgId,
          tier: 'meaningful_win',
          type: 'first_post_published',
          title: 'Your first post is live',
          body: d.url,
          href: postHref(d.orgId, d.postId),
          recipients: { kind: 'everyone' },
          dedupeKey: 'milestone:posts_published:1',
          metadata: { postId: d.postId, count: 1 },
          createdAt: d.at,
        });
      } else if (count !== undefined && isPublishedMilestone(count)) {
        intents.push({
          orgId: d.orgId,
          tier: 'meaningful_win',
          type: 'posts_published_milestone',
          title: `${count.toLocaleString('en-US')} posts published`,
          body: `The workspace has published its ${count.toLocaleString('en-US')}th post.`,
          href: postHref(d.orgId, d.postId),
          recipients: { kind: 'everyone' },
          dedupeKey: `milestone:posts_published:${count}`,
          metadata: { postId: d.postId, count },
          createdAt: d.at,
        });
      }
      return intents;
    }
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
    default: {
      const never: never = event;
      throw new Error(`Unexpected event ${JSON.stringify(never)}`);
    }
  }
}

/** A member as the notifications read model keeps them. */
export interface MemberFacts {
  userId: string;
  role: Role;
  active: boolean;
}

/** The users a rule names, among the active members, in a stable order (member order as given). */
export function resolveRecipients(rule: RecipientRule, members: readonly MemberFacts[]): string[] {
  const active = members.filter((m) => m.active);
  const withPermission = (permission: Permission, except: string | null) =>
    active
      .filter((m) => m.userId !== except && rolePermissions[m.role].includes(permission))
      .map((m) => m.userId);
  switch (rule.kind) {
    case 'everyone':
      return active.map((m) => m.userId);
    case 'permission':
      return withPermission(rule.permission, rule.except);
    case 'users': {
      const wanted = new Set(rule.userIds);
      const named = active.filter((m) => wanted.has(m.userId)).map((m) => m.userId);
      if (named.length > 0 || rule.fallback === null) return named.filter((u) => u !== rule.except);
      return withPermission(rule.fallback, rule.except);
    }
    default: {
      const never: never = rule;
      throw new Error(`Unexpected rule ${JSON.stringify(never)}`);
    }
  }
}
