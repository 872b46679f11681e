// The notification inbox decider: read, dismiss, read-all, dismiss-all and preferences, each repeated command
// deciding nothing; and which channels a notification takes given the member's preferences.
import { describe, expect, test } from 'vitest';
import {
  channelsFor,
  defaultPreferences,
  notificationInboxDecider,
  type InboxEvent,
} from '../../domain/notifications/inbox.js';
import { InvalidFields, NotFound } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const spec = deciderSpec(notificationInboxDecider);
const who = { orgId: 'org-1', userId: 'user-1' };
const n1 = { id: 'n-1', seq: 1 };
const n2 = { id: 'n-2', seq: 2 };
const now = '2026-01-02T10:00:00.000Z';
const read = (id: string, at = '2026-01-01T10:00:00.000Z'): InboxEvent => ({
  type: 'NotificationRead',
  data: { ...who, notificationId: id, readAt: at },
});
const dismissed = (id: string, at = '2026-01-01T11:00:00.000Z'): InboxEvent => ({
  type: 'NotificationDismissed',
  data: { ...who, notificationId: id, dismissedAt: at },
});

describe('read and dismiss one', () => {
  test('reading records the time once; reading again decides nothing', () => {
    spec
      .given([])
      .when({ type: 'ReadNotification', ...who, notification: n1, now })
      .then([read('n-1', now)]);
    spec
      .given([read('n-1')])
      .when({ type: 'ReadNotification', ...who, notification: n1, now })
      .then([]);
  });

  test('an unknown notification (not the member’s) is not found', () => {
    spec
      .given([])
      .when({ type: 'ReadNotification', ...who, notification: null, now })
      .thenThrows(NotFound, /Notification not found/);
    spec
      .given([])
      .when({ type: 'DismissNotification', ...who, notification: null, now })
      .thenThrows(NotFound);
  });

  test('a dismissed notification cannot be read; dismissing it again decides nothing', () => {
    spec
      .given([dismissed('n-1')])
      .when({ type: 'ReadNotification', ...who, notification: n1, now })
      .thenThrows(NotFound);
    spec
      .given([dismissed('n-1')])
      .when({ type: 'DismissNotification', ...who, notification: n1, now })
      .then([]);
    spec
      .given([read('n-1')])
      .when({ type: 'DismissNotification', ...who, notification: n1, now })
      .then([dismissed('n-1', now)]);
  });

  test('read-all covers notifications up to its watermark, not later ones', () => {
    const all: InboxEvent = {
      type: 'NotificationsAllRead',
      data: { ...who, upToSeq: 1, markedCount: 1, readAt: '2026-01-01T12:00:00.000Z' },
    };
    spec
      .given([all])
      .when({ type: 'ReadNotification', ...who, notification: n1, now })
      .then([]);
    spec
      .given([all])
      .when({ type: 'ReadNotification', ...who, notification: n2, now })
      .then([read('n-2', now)]);
    const gone: InboxEvent = {
      type: 'NotificationsAllDismissed',
      data: { ...who, upToSeq: 1, dismissedCount: 1, dismissedAt: '2026-01-01T12:00:00.000Z' },
    };
    spec
      .given([gone])
      .when({ type: 'ReadNotification', ...who, notification: n1, now })
      .thenThrows(NotFound);
    spec
      .given([gone])
      .when({ type: 'DismissNotification', ...who, notification: n1, now })
      .then([]);
  });
});

describe('read-all and dismiss-all', () => {
  test('record the watermark and the count; nothing to mark decides nothing', () => {
    spec
      .given([])
      .when({ type: 'ReadAllNotifications', ...who, upToSeq: 7, unread: 3, now })
      .then([{ type: 'NotificationsAllRead', data: { ...who, upToSeq: 7, markedCount: 3, readAt: now } }]);
    spec
      .given([])
      .when({ type: 'ReadAllNotifications', ...who, upToSeq: 7, unread: 0, now })
      .then([]);
    spec
      .given([])
      .when({ type: 'DismissAllNotifications', ...who, upToSeq: 4, undismissed: 2, now })
      .then([
        {
          type: 'NotificationsAllDismissed',
          data: { ...who, upToSeq: 4, dismissedCount: 2, dismissedAt: now },
        },
      ]);
    spec
      .given([])
      .when({ type: 'DismissAllNotifications', ...who, upToSeq: 4, undismissed: 0, now })
      .then([]);
  });
});

describe('preferences', () => {
  test('a change records every toggle after it; omitted ones stay', () => {
    spec
      .given([])
      .when({ type: 'ChangeNotificationPreferences', ...who, changes: { routineEmail: true }, now })
      .then([
        {
          type: 'NotificationPreferencesChanged',
          data: { ...who, preferences: { ...defaultPreferences, routineEmail: true }, updatedAt: now },
        },
      ]);
  });

  test('the same values again decide nothing; an unknown toggle is refused', () => {
    const chosen: InboxEvent = {
      type: 'NotificationPreferencesChanged',
      data: { ...who, preferences: { ...defaultPreferences, digestEnabled: false }, updatedAt: now },
    };
    spec
      .given([chosen])
      .when({ type: 'ChangeNotificationPreferences', ...who, changes: { digestEnabled: false }, now })
      .then([]);
    spec
      .given([])
      .when({
        type: 'ChangeNotificationPreferences',
        ...who,
        changes: { pushEnabled: true } as never,
        now,
      })
      .thenThrows(InvalidFields, /Unknown preference/);
  });
});

describe('channels', () => {
  test('action required: immediate e-mail unless e-mail, the tier or approval reminders are off', () => {
    const approval = { tier: 'action_required', type: 'approval_requested' } as const;
    const failed = { tier: 'action_required', type: 'publish_failed' } as const;
    expect(channelsFor(approval, defaultPreferences)).toEqual({ inApp: true, email: 'immediate' });
    expect(channelsFor(approval, { ...defaultPreferences, emailEnabled: false })).toEqual({
      inApp: true,
      email: null,
    });
    expect(channelsFor(approval, { ...defaultPreferences, approvalRemindersEmail: false }).email).toBeNull();
    expect(channelsFor(failed, { ...defaultPreferences, approvalRemindersEmail: false }).email).toBe(
      'immediate',
    );
    expect(channelsFor(failed, { ...defaultPreferences, actionRequiredEmail: false }).email).toBeNull();
    expect(channelsFor(failed, { ...defaultPreferences, inAppEnabled: false })).toEqual({
      inApp: false,
      email: 'immediate',
    });
  });

  test('wins and routine news go in the digest when chosen', () => {
    const win = { tier: 'meaningful_win', type: 'first_post_published' } as const;
    const routine = { tier: 'routine', type: 'post_published' } as const;
    expect(channelsFor(win, defaultPreferences).email).toBe('digest');
    expect(channelsFor(win, { ...defaultPreferences, digestEnabled: false }).email).toBeNull();
    expect(channelsFor(routine, defaultPreferences).email).toBeNull();
    expect(channelsFor(routine, { ...defaultPreferences, routineEmail: true }).email).toBe('digest');
  });
});
