// The approval history auditors ask for, replayed from the group's own stream (never from a read model), and
// the group with its posts as they stood at a revision or an instant, folded by the domain's evolve.
import { streamName, type EventStore, type RecordedEvent } from '../../infra/event-store/port.js';
import {
  combinedContentHash,
  postGroupCategory,
  postGroupDecider,
  postGroupEventCodec,
  type ActivePostGroup,
  type ApprovalAction,
  type ApprovalLevel,
  type PostGroupEvent,
  type PostGroupState,
} from '../../domain/post-groups/post-group.js';
import { assertNever, fold } from '../../domain/shared/decider.js';
import { NotFound, ValidationError } from '../../domain/shared/errors.js';

export type AuditActor =
  | { type: 'user'; userId: string }
  | { type: 'assistant'; clientId: string; clientName: string | null; userId: string }
  | { type: 'system'; userId: null };

export interface AuditEntry {
  revision: number;
  occurredAt: string;
  actor: AuditActor;
  action: ApprovalAction;
  level: ApprovalLevel;
  postId: string | null;
  reason: string | null;
  note: string | null;
  /** Why a submission happened: created, submitted, or an edit that withdrew an approval. */
  cause: string | null;
  /** Hash of the content acted on: the post's, or for a group-level entry one hash over all its posts. */
  contentHash: string;
  posts: Array<{ postId: string; contentHash: string }>;
}

export interface AuditTrail {
  groupId: string;
  /** Revision the trail and the state stand at. */
  revision: number;
  asOf: string | null;
  entries: AuditEntry[];
  group: ActivePostGroup;
}

function actorOf(event: RecordedEvent, userId: string): AuditActor {
  const actor = event.metadata.actor;
  if (actor.startsWith('assistant:')) {
    const assistant = event.metadata.assistant as { clientName?: string } | undefined;
    return {
      type: 'assistant',
      clientId: actor.slice(10),
      clientName: assistant?.clientName ?? null,
      userId,
    };
  }
  if (actor === 'system') return { type: 'system', userId: null };
  return { type: 'user', userId: actor };
}

function entriesOf(recorded: RecordedEvent, event: PostGroupEvent): AuditEntry[] {
  const common = { revision: recorded.revision, occurredAt: recorded.metadata.occurredAt };
  switch (event.type) {
    case 'PostGroupSubmittedForApproval': {
      const d = event.data;
      const base = { ...common, actor: actorOf(recorded, d.by), action: 'submit_for_approval' as const };
      if (d.level === 'group')
        return [
          {
            ...base,
            level: 'group',
            postId: null,
            reason: null,
            note: null,
            cause: d.cause,
            contentHash: combinedContentHash(d.posts),
            posts: d.posts,
          },
        ];
      return d.posts.map((p) => ({
        ...base,
        level: 'post',
        postId: p.postId,
        reason: null,
        note: null,
        cause: d.cause,
        contentHash: p.contentHash,
        posts: [p],
      }));
    }
    case 'PostGroupApproved':
    case 'PostGroupRejected': {
      const d = event.data;
      return d.records.map((r) => {
        const posts = r.postId === null ? d.posts : d.posts.filter((p) => p.postId === r.postId);
        return {
          ...common,
          actor: actorOf(recorded, d.by),
          action: event.type === 'PostGroupRejected' ? 'rejected' : (r as { action: ApprovalAction }).action,
          level: d.level,
          postId: r.postId,
          reason: event.type === 'PostGroupRejected' ? event.data.reason : null,
          note: event.type === 'PostGroupRejected' ? event.data.note : null,
          cause: null,
          contentHash: r.postId === null ? combinedContentHash(posts) : (posts[0]?.contentHash ?? ''),
          posts,
        };
      });
    }
    case 'PostGroupCreated':
    case 'PostGroupUpdated':
    case 'PreferenceSignalRecorded':
    case 'PostsScheduled':
    case 'PostsStatusChanged':
    case 'PostEdited':
    case 'PostPublishRequested':
    case 'PostDeleted':
    case 'PostPublishAttemptStarted':
    case 'PostPublished':
    case 'PostAwaitingPlatform':
    case 'PostPublishAttemptFailed':
    case 'PostsAccountRemoved':
      return [];
    default:
      return assertNever(event);
  }
}

/**
 * Replays `postGroup-<groupId>` up to `revision` (inclusive) or up to the last event that occurred at or before
 * `asOf`, or the whole stream. Another workspace's group is not found.
 */
export async function postGroupAuditTrail(
  eventStore: EventStore<unknown>,
  orgId: string,
  groupId: string,
  at: { revision?: number; asOf?: string } = {},
): Promise<AuditTrail> {
  const stream = streamName(postGroupCategory, groupId);
  const all = await eventStore.readStream(
    stream,
    at.revision !== undefined ? { toRevision: at.revision } : {},
  );
  // Decoded once, on the way in: upcast to today's shapes and checked.
  const decoded = postGroupEventCodec.decodeAll(all);
  const first = decoded[0];
  if (!first || first.data.orgId !== orgId) throw new NotFound('Post group not found');
  let events = all;
  if (at.revision !== undefined && all[all.length - 1]!.revision < at.revision) {
    throw new ValidationError('No such revision', undefined, [
      {
        path: 'query.revision',
        message: `the group's history has revisions 0 to ${all[all.length - 1]!.revision}`,
      },
    ]);
  }
  if (at.asOf !== undefined) {
    const limit = Date.parse(at.asOf);
    const cut = events.findIndex((e) => Date.parse(e.metadata.occurredAt) > limit);
    if (cut === 0) throw new NotFound('The post group did not exist at that time');
    if (cut > 0) events = events.slice(0, cut);
  }
  const state: PostGroupState = fold(postGroupDecider, decoded.slice(0, events.length));
  if (state.kind === 'absent') throw new NotFound('Post group not found');
  return {
    groupId,
    revision: events[events.length - 1]!.revision,
    asOf: at.asOf ?? null,
    entries: events.flatMap((recorded, index) => entriesOf(recorded, decoded[index]!)),
    group: state,
  };
}
