// A member's notification inbox in one workspace: what they read and dismissed, and their notification
// preferences. Stream `notificationInbox-<orgId>_<userId>`; the notifications themselves are derived from other
// events by the notifications read model, so commands carry the notification as the read model shows it.
import { InvalidFields, NotFound } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { inboxEventCodec, type InboxEvent } from './event-codec.js';
import type { Tier } from './rules.js';

export const notificationInboxCategory = 'notificationInbox';

export type { InboxEvent } from './event-codec.js';

export const preferenceToggles = [
  'emailEnabled',
  'inAppEnabled',
  'actionRequiredEmail',
  'meaningfulWinEmail',
  'routineEmail',
  'digestEnabled',
  'approvalRemindersEmail',
] as const;
export type PreferenceToggle = (typeof preferenceToggles)[number];
export type PreferenceValues = Record<PreferenceToggle, boolean>;

/** What a member gets before they choose: everything in-app, e-mail for what needs them and a daily digest of wins. */
export const defaultPreferences: PreferenceValues = {
  emailEnabled: true,
  inAppEnabled: true,
  actionRequiredEmail: true,
  meaningfulWinEmail: true,
  routineEmail: false,
  digestEnabled: true,
  approvalRemindersEmail: true,
};

/** A notification as the read model shows it to its recipient (null: not theirs, or no such notification). */
export interface KnownNotification {
  id: string;
  /** The member's inbox sequence number: read-all and dismiss-all cover everything up to one. */
  seq: number;
}

export type InboxCommand =
  | {
      type: 'ReadNotification';
      orgId: string;
      userId: string;
      notification: KnownNotification | null;
      now: string;
    }
  | {
      type: 'DismissNotification';
      orgId: string;
      userId: string;
      notification: KnownNotification | null;
      now: string;
    }
  /** `upToSeq`: the newest notification the member has; `unread`: how many up to it are neither read nor dismissed. */
  | {
      type: 'ReadAllNotifications';
      orgId: string;
      userId: string;
      upToSeq: number;
      unread: number;
      now: string;
    }
  | {
      type: 'DismissAllNotifications';
      orgId: string;
      userId: string;
      upToSeq: number;
      undismissed: number;
      now: string;
    }
  | {
      type: 'ChangeNotificationPreferences';
      orgId: string;
      userId: string;
      changes: Partial<PreferenceValues>;
      now: string;
    };

export interface InboxState {
  /** Read one by one: id → readAt. */
  read: Readonly<Record<string, string>>;
  dismissed: Readonly<Record<string, string>>;
  /** Everything up to this sequence number was read (at readAllAt) or dismissed. */
  readUpTo: { seq: number; at: string } | null;
  dismissedUpTo: { seq: number; at: string } | null;
  preferences: PreferenceValues;
  preferencesUpdatedAt: string | null;
}

export const initialInboxState: InboxState = {
  read: {},
  dismissed: {},
  readUpTo: null,
  dismissedUpTo: null,
  preferences: defaultPreferences,
  preferencesUpdatedAt: null,
};

/** When the notification was read, per the inbox (individually or by a read-all), else null. */
export function readAtOf(state: InboxState, n: KnownNotification): string | null {
  const single = state.read[n.id];
  if (single) return single;
  return state.readUpTo && n.seq <= state.readUpTo.seq ? state.readUpTo.at : null;
}

export function dismissedAtOf(state: InboxState, n: KnownNotification): string | null {
  const single = state.dismissed[n.id];
  if (single) return single;
  return state.dismissedUpTo && n.seq <= state.dismissedUpTo.seq ? state.dismissedUpTo.at : null;
}

function known(n: KnownNotification | null): KnownNotification {
  if (!n) throw new NotFound('Notification not found');
  return n;
}

export const notificationInboxDecider: Decider<InboxState, InboxCommand, InboxEvent> = {
  initialState: initialInboxState,
  codec: inboxEventCodec,

  decide(command, state) {
    const who = { orgId: command.orgId, userId: command.userId };
    switch (command.type) {
      case 'ReadNotification': {
        const n = known(command.notification);
        // A dismissed notification is gone from the inbox: there is nothing to read.
        if (dismissedAtOf(state, n)) throw new NotFound('Notification not found');
        if (readAtOf(state, n)) return [];
        return [{ type: 'NotificationRead', data: { ...who, notificationId: n.id, readAt: command.now } }];
      }
      case 'DismissNotification': {
        const n = known(command.notification);
        if (dismissedAtOf(state, n)) return [];
        return [
          { type: 'NotificationDismissed', data: { ...who, notificationId: n.id, dismissedAt: command.now } },
        ];
      }
      case 'ReadAllNotifications': {
        if (command.unread === 0) return [];
        return [
          {
            type: 'NotificationsAllRead',
            data: { ...who, upToSeq: command.upToSeq, markedCount: command.unread, readAt: command.now },
          },
        ];
      }
      case 'DismissAllNotifications': {
        if (command.undismissed === 0) return [];
        return [
          {
            type: 'NotificationsAllDismissed',
            data: {
              ...who,
              upToSeq: command.upToSeq,
              dismissedCount: command.undismissed,
              dismissedAt: command.now,
            },
          },
        ];
      }
      case 'ChangeNotificationPreferences': {
        const unknown = Object.keys(command.changes).filter(
          (k) => !(preferenceToggles as readonly string[]).includes(k),
        );
        if (unknown.length > 0)
          throw new InvalidFields(
            'Unknown preference',
            unknown.map((path) => ({ path, message: 'not a notification preference' })),
          );
        const next = { ...state.preferences };
        for (const toggle of preferenceToggles) {
          const value = command.changes[toggle];
          if (value !== undefined) next[toggle] = value;
        }
        const unchanged = preferenceToggles.every((t) => next[t] === state.preferences[t]);
        // The first choice is recorded even when it matches the defaults, so updatedAt says the member chose.
        if (unchanged && state.preferencesUpdatedAt !== null) return [];
        return [
          {
            type: 'NotificationPreferencesChanged',
            data: { ...who, preferences: next, updatedAt: command.now },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'NotificationRead':
        return { ...state, read: { ...state.read, [event.data.notificationId]: event.data.readAt } };
      case 'NotificationDismissed':
        return {
          ...state,
          dismissed: { ...state.dismissed, [event.data.notificationId]: event.data.dismissedAt },
        };
      case 'NotificationsAllRead':
        return { ...state, readUpTo: { seq: event.data.upToSeq, at: event.data.readAt } };
      case 'NotificationsAllDismissed':
        return { ...state, dismissedUpTo: { seq: event.data.upToSeq, at: event.data.dismissedAt } };
      case 'NotificationPreferencesChanged':
        return {
          ...state,
          preferences: event.data.preferences,
          preferencesUpdatedAt: event.data.updatedAt,
        };
      default:
        return assertNever(event);
    }
  },
};

export type EmailMode = 'immediate' | 'digest';

/**
 * How long after its notification an e-mail may still go out: an immediate one found later (after downtime) is not
 * sent, nor is a digest line older than two days. Past it, a notification without an e-mail counts as delivered.
 */
export const emailWindowMs: Record<EmailMode, number> = {
  immediate: 24 * 3_600_000,
  digest: 48 * 3_600_000,
};

/** How a notification reaches its recipient given their preferences when it is created. */
export function channelsFor(
  notification: { tier: Tier; type: string },
  preferences: PreferenceValues,
): { inApp: boolean; email: EmailMode | null } {
  const inApp = preferences.inAppEnabled;
  if (!preferences.emailEnabled) return { inApp, email: null };
  switch (notification.tier) {
    case 'action_required': {
      const wanted =
        preferences.actionRequiredEmail &&
        (notification.type !== 'approval_requested' || preferences.approvalRemindersEmail);
      return { inApp, email: wanted ? 'immediate' : null };
    }
    case 'meaningful_win':
      return { inApp, email: preferences.meaningfulWinEmail && preferences.digestEnabled ? 'digest' : null };
    case 'routine':
      return { inApp, email: preferences.routineEmail && preferences.digestEnabled ? 'digest' : null };
    default:
      return assertNever(notification.tier);
  }
}
