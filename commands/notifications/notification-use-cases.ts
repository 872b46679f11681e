// Notification use cases for a member: read, dismiss, read all, dismiss all and change preferences, each on the
// member's inbox stream (`notificationInbox-<orgId>_<userId>`) through the write pipeline. The notification is
// looked up in the read model first: another member's or another workspace's id is a 404.
import type { Kysely } from 'kysely';
import {
  dismissedAtOf,
  notificationInboxCategory,
  notificationInboxDecider,
  readAtOf,
  type InboxCommand,
  type InboxState,
  type KnownNotification,
  type PreferenceValues,
} from '../../domain/notifications/inbox.js';
import type { PreferencesView } from '../../domain/notifications/views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  findNotification,
  inboxWatermark,
  preferencesView,
} from '../../projections/notifications/queries.js';
import { awaitReadModels, handleCommand, type CommandMetadata } from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { RecordAnswer } from '../shared/idempotent.js';

export interface NotificationDeps extends WriteDeps {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readModels: Kysely<any>;
}

export const notificationInboxStream = (orgId: string, userId: string) =>
  streamName(notificationInboxCategory, `${orgId}_${userId}`);

/** Every member may manage their own notifications; assistants are not given them. */
const own = (orgId: string) => ({ orgId, permission: 'workspace:read', scope: null }) as const;

async function runInbox<Output>(
  deps: NotificationDeps,
  caller: Caller,
  orgId: string,
  command: (metadata: CommandMetadata) => InboxCommand | Promise<InboxCommand>,
  answer: (state: InboxState, appended: boolean) => Output,
  step: { metadata: CommandMetadata; record: RecordAnswer<Output> | undefined; idempotencySeed?: string },
): Promise<Output> {
  const record = step.record;
  const outcome = await handleCommand(deps.commands, {
    stream: notificationInboxStream(orgId, caller.userId),
    decider: notificationInboxDecider,
    // Decided again on each attempt (a concurrent write to the inbox), with what the read model shows then.
    command: () => command(step.metadata),
    metadata: { ...step.metadata, orgId },
    eventId: deterministicEventIds(step.idempotencySeed, 'notification-inbox'),
    sideWrite: record ? (trx, o) => record(trx, answer(o.state, o.events.length > 0)) : undefined,
  });
  return answer(outcome.state, outcome.events.length > 0);
}

async function lookup(
  deps: NotificationDeps,
  caller: Caller,
  orgId: string,
  notificationId: string,
): Promise<KnownNotification | null> {
  return findNotification(deps.readModels, { orgId, userId: caller.userId, notificationId });
}

/** Read or dismiss one notification of the caller's, answered with what the inbox state says of it. */
async function markOne<Output>(
  deps: NotificationDeps,
  caller: Caller,
  input: { orgId: string; notificationId: string },
  request: WriteRequest,
  type: 'ReadNotification' | 'DismissNotification',
  answer: (state: InboxState, notification: KnownNotification) => Output,
): Promise<Written<Output>> {
  authorize(caller, own(input.orgId));
  return runWrite(deps.idempotency, caller, request, async (step) => {
    const notification = await lookup(deps, caller, input.orgId, input.notificationId);
    return runInbox(
      deps,
      caller,
      input.orgId,
      ({ now }) => ({ type, orgId: input.orgId, userId: caller.userId, notification, now }),
      (state) => answer(state, notification!),
      step,
    );
  });
}

export async function readNotification(
  deps: NotificationDeps,
  caller: Caller,
  input: { orgId: string; notificationId: string },
  request: WriteRequest,
): Promise<Written<{ id: string; readAt: string; status: 'read' }>> {
  return markOne(deps, caller, input, request, 'ReadNotification', (state, notification) => ({
    id: notification.id,
    readAt: readAtOf(state, notification)!,
    status: 'read' as const,
  }));
}

export async function dismissNotification(
  deps: NotificationDeps,
  caller: Caller,
  input: { orgId: string; notificationId: string },
  request: WriteRequest,
): Promise<Written<{ id: string; dismissedAt: string }>> {
  return markOne(deps, caller, input, request, 'DismissNotification', (state, notification) => ({
    id: notification.id,
    dismissedAt: dismissedAtOf(state, notification)!,
  }));
}

/**
 * The inbox's watermark as the read model shows it once it has folded every event of the member's inbox stream: a
 * read or dismiss appended after this is a concurrent write, so the append deciding on this count fails on the
 * stream's revision and is decided again. The count answered is then exactly what the fold applies.
 */
async function settledWatermark(deps: NotificationDeps, orgId: string, userId: string) {
  // The stream's last event alone (the stream grows with every read and dismiss).
  const store = deps.commands.eventStore;
  const stream = notificationInboxStream(orgId, userId);
  const revision = await store.streamRevision(stream);
  const [last] =
    revision === null ? [] : await store.readStream(stream, { fromRevision: revision, maxCount: 1 });
  if (last) await awaitReadModels(deps.commands, last.position, [last.type]);
  return inboxWatermark(deps.readModels, { orgId, userId });
}

/**
 * Read-all or dismiss-all: everything in the member's inbox up to the newest notification, counted with the
 * predicate the fold applies (in-app and not yet read, or not yet dismissed).
 */
async function markAll(
  deps: NotificationDeps,
  caller: Caller,
  orgId: string,
  request: WriteRequest,
  kind: 'read' | 'dismiss',
): Promise<Written<number>> {
  authorize(caller, own(orgId));
  return runWrite(deps.idempotency, caller, request, async (step) => {
    let count = 0;
    return runInbox(
      deps,
      caller,
      orgId,
      async ({ now }) => {
        const mark = await settledWatermark(deps, orgId, caller.userId);
        const common = { orgId, userId: caller.userId, upToSeq: mark.upToSeq, now };
        if (kind === 'read') {
          count = mark.unread;
          return { type: 'ReadAllNotifications' as const, ...common, unread: mark.unread };
        }
        count = mark.undismissed;
        return { type: 'DismissAllNotifications' as const, ...common, undismissed: mark.undismissed };
      },
      (_state, appended) => (appended ? count : 0),
      step,
    );
  });
}

export async function readAllNotifications(
  deps: NotificationDeps,
  caller: Caller,
  input: { orgId: string },
  request: WriteRequest,
): Promise<Written<{ markedCount: number }>> {
  const written = await markAll(deps, caller, input.orgId, request, 'read');
  return { ...written, output: { markedCount: written.output } };
}

export async function dismissAllNotifications(
  deps: NotificationDeps,
  caller: Caller,
  input: { orgId: string },
  request: WriteRequest,
): Promise<Written<{ dismissedCount: number }>> {
  const written = await markAll(deps, caller, input.orgId, request, 'dismiss');
  return { ...written, output: { dismissedCount: written.output } };
}

export async function updateNotificationPreferences(
  deps: NotificationDeps,
  caller: Caller,
  input: { orgId: string; changes: Partial<PreferenceValues> },
  request: WriteRequest,
): Promise<Written<PreferencesView>> {
  authorize(caller, own(input.orgId));
  return runWrite(deps.idempotency, caller, request, async (step) =>
    runInbox(
      deps,
      caller,
      input.orgId,
      ({ now }) => ({
        type: 'ChangeNotificationPreferences',
        orgId: input.orgId,
        userId: caller.userId,
        changes: input.changes,
        now,
      }),
      (state) => preferencesView(input.orgId, caller.userId, state.preferences, state.preferencesUpdatedAt),
      step,
    ),
  );
}
