// Which events notify whom (each slice's domain/<slice>/notification-rules.ts, combined as the read model combines
// them): tier, type, dedupeKey and recipients per cause, and the recipients resolved against the active members.
import { describe, expect, test } from 'vitest';
import { billingNotificationRules } from '../../domain/billing/notification-rules.js';
import {
  notifierOf,
  resolveRecipients,
  type GroupFacts,
  type MemberFacts,
} from '../../domain/notifications/rules.js';
import {
  isPublishedMilestone,
  postGroupNotificationRules,
} from '../../domain/post-groups/notification-rules.js';
import { socialAccountNotificationRules } from '../../domain/social-accounts/notification-rules.js';

// The rules the three slices contribute to the notifications read model, as the read model combines them.
const { notificationsFor } = notifierOf([
  postGroupNotificationRules,
  socialAccountNotificationRules,
  billingNotificationRules,
]);
type NotifyingEvent =
  | Parameters<typeof postGroupNotificationRules.notify>[0]
  | Parameters<typeof socialAccountNotificationRules.notify>[0]
  | Parameters<typeof billingNotificationRules.notify>[0];

const orgId = 'org-1';
const at = '2026-03-01T09:00:00.000Z';
const by = { orgId, groupId: 'g-1', by: 'editor', at };
const group: GroupFacts = { title: 'Spring launch', createdBy: 'editor', approvers: ['reviewer'] };

const members: MemberFacts[] = [
  { userId: 'owner', role: 'owner', active: true },
  { userId: 'admin', role: 'admin', active: true },
  { userId: 'reviewer', role: 'reviewer', active: true },
  { userId: 'editor', role: 'editor', active: true },
  { userId: 'viewer', role: 'viewer', active: true },
  { userId: 'gone', role: 'admin', active: false },
];

const recipients = (event: NotifyingEvent, context = { group } as { group: GroupFacts | null }) =>
  notificationsFor(event, context).map((n) => ({
    type: n.type,
    tier: n.tier,
    dedupeKey: n.dedupeKey,
    to: resolveRecipients(n.recipients, members),
  }));

const submitted: NotifyingEvent = {
  type: 'PostGroupSubmittedForApproval',
  data: {
    ...by,
    approvalId: 'a-1',
    level: 'group',
    cause: 'submitted',
    posts: [],
    groupStatus: 'pending_approval',
  },
};

describe('action required', () => {
  test('approval requested: every active member who may approve, except who asked', () => {
    expect(recipients(submitted)).toEqual([
      {
        type: 'approval_requested',
        tier: 'action_required',
        dedupeKey: 'approval_requested:a-1',
        to: ['owner', 'admin', 'reviewer'],
      },
    ]);
    const byOwner = { ...submitted, data: { ...submitted.data, by: 'owner', approvalId: 'a-2' } };
    expect(recipients(byOwner)[0]!.to).toEqual(['admin', 'reviewer']);
    expect(notificationsFor(submitted, { group })[0]!.title).toContain('Spring launch');
  });

  test('publish failed for good: the group’s creator and approvers; a retry on its way notifies nobody', () => {
    const failed: NotifyingEvent = {
      type: 'PostPublishAttemptFailed',
      data: {
        ...by,
        by: 'system',
        postId: 'p-1',
        attempt: 3,
        error: 'refused',
        reason: 'permanent',
        nextRetryAt: null,
      },
    };
    expect(recipients(failed)).toEqual([
      {
        type: 'publish_failed',
        tier: 'action_required',
        dedupeKey: 'publish_failed:p-1:3',
        to: ['reviewer', 'editor'],
      },
    ]);
    expect(recipients({ ...failed, data: { ...failed.data, nextRetryAt: at } })).toEqual([]);
    // Nobody known (the group unknown, or its people gone): those who may publish.
    expect(recipients(failed, { group: null })[0]!.to).toEqual(['owner', 'admin', 'reviewer']);
  });

  test('account needs reconnecting and token expiring: members who manage accounts', () => {
    const notice = { accountId: 'acc-1', orgId, platform: 'x' as const, accountHandle: 'acme' };
    const failed: NotifyingEvent = {
      type: 'SocialAccountRefreshFailed',
      data: { ...notice, reason: 'revoked', failedAt: at },
    };
    const expiring: NotifyingEvent = {
      type: 'SocialAccountTokenExpiring',
      data: { ...notice, tokenExpiresAt: '2026-03-05T00:00:00.000Z', warnedAt: at },
    };
    expect(recipients(failed)).toEqual([
      {
        type: 'account_needs_reconnect',
        tier: 'action_required',
        dedupeKey: `account_needs_reconnect:acc-1:${at}`,
        to: ['owner', 'admin'],
      },
    ]);
    expect(recipients(expiring)).toEqual([
      {
        type: 'token_expiring',
        tier: 'action_required',
        dedupeKey: 'token_expiring:acc-1:2026-03-05T00:00:00.000Z',
        to: ['owner', 'admin'],
      },
    ]);
    expect(notificationsFor(failed, { group: null })[0]!.title).toContain('@acme');
  });
});

describe('wins and routine', () => {
  const published = (count: number): NotifyingEvent[] => [
    {
      type: 'PostPublished',
      data: {
        ...by,
        by: 'system',
        postId: `p-${count}`,
        attempt: 1,
        externalId: 'e',
        url: 'https://x.com/1',
      },
    },
  ];

  test('a published post tells its creator; the first and the milestones tell every active member', () => {
    const first = notificationsFor(published(1)[0]!, { group, publishedCount: 1 });
    expect(first.map((n) => [n.type, n.tier, n.dedupeKey, resolveRecipients(n.recipients, members)])).toEqual(
      [
        ['post_published', 'routine', 'post_published:p-1', ['editor']],
        [
          'first_post_published',
          'meaningful_win',
          'milestone:posts_published:1',
          ['owner', 'admin', 'reviewer', 'editor', 'viewer'],
        ],
      ],
    );
    expect(notificationsFor(published(2)[0]!, { group, publishedCount: 2 }).map((n) => n.type)).toEqual([
      'post_published',
    ]);
    const tenth = notificationsFor(published(10)[0]!, { group, publishedCount: 10 });
    expect(tenth.map((n) => n.dedupeKey)).toEqual(['post_published:p-10', 'milestone:posts_published:10']);
    // A replayed PostPublished is not counted again (no count): no milestone.
    expect(notificationsFor(published(10)[0]!, { group }).map((n) => n.type)).toEqual(['post_published']);
  });

  test('milestones', () => {
    expect([1, 9, 10, 11, 50, 100, 999, 1000, 2000, 2500].filter(isPublishedMilestone)).toEqual([
      10, 50, 100, 1000, 2000,
    ]);
  });

  test('approved and rejected tell the creator, not the one who acted', () => {
    const approved: NotifyingEvent = {
      type: 'PostGroupApproved',
      data: {
        ...by,
        by: 'reviewer',
        level: 'group',
        records: [{ approvalId: 'a-1', postId: null, action: 'approved' }],
        posts: [],
        groupStatus: 'approved',
      },
    };
    expect(recipients(approved)).toEqual([
      { type: 'post_approved', tier: 'routine', dedupeKey: 'post_approved:g-1:a-1', to: ['editor'] },
    ]);
    const selfApproved = { ...approved, data: { ...approved.data, by: 'editor' } };
    expect(recipients(selfApproved)[0]!.to).toEqual([]);
  });
});

test('suspended or removed members are never recipients', () => {
  expect(resolveRecipients({ kind: 'everyone' }, members)).not.toContain('gone');
  expect(
    resolveRecipients({ kind: 'users', userIds: ['gone'], fallback: null, except: null }, members),
  ).toEqual([]);
});

describe('billing', () => {
  test('a failed payment tells who manages billing; read-only tells everyone; recovery tells billing again', () => {
    const failed: NotifyingEvent = {
      type: 'SubscriptionPaymentFailed',
      data: {
        orgId,
        at,
        pastDueSince: at,
        graceEndsAt: '2026-03-08T09:00:00.000Z',
        providerEventId: 'evt_1',
      },
    };
    expect(recipients(failed, { group: null })).toEqual([
      {
        type: 'payment_failed',
        tier: 'action_required',
        dedupeKey: 'payment_failed:evt_1',
        to: ['owner', 'admin'],
      },
    ]);
    expect(notificationsFor(failed, { group: null })[0]!.body).toContain('2026-03-08T09:00:00.000Z');
    const restricted: NotifyingEvent = { type: 'SubscriptionAccessRestricted', data: { orgId, at } };
    expect(recipients(restricted, { group: null })).toEqual([
      {
        type: 'workspace_read_only',
        tier: 'action_required',
        dedupeKey: `workspace_read_only:${at}`,
        to: ['owner', 'admin', 'reviewer', 'editor', 'viewer'],
      },
    ]);
    const recovered: NotifyingEvent = {
      type: 'SubscriptionRecovered',
      data: { orgId, at, periodStart: null, periodEnd: null, providerEventId: 'evt_2' },
    };
    expect(recipients(recovered, { group: null })).toEqual([
      {
        type: 'payment_recovered',
        tier: 'routine',
        dedupeKey: 'payment_recovered:evt_2',
        to: ['owner', 'admin'],
      },
    ]);
  });
});
