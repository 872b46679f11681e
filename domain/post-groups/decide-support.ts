// Helpers every part of the post group's decide shares: finding the group and its posts, the group status a move
// leads to, the checks of times and content, and folding a decision's events to see where it leads.
import { InvalidFields, NotFound, type ErrorDetail } from '../shared/errors.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { checkPostContent, type ContentContext } from './content-rules.js';
import type { PostContent } from './post-content.js';
import type { Common } from './commands.js';
import type { By, PostGroupEvent } from './event-codec.js';
import { evolvePostGroup } from './evolve.js';
import {
  deriveGroupStatus,
  type ActivePostGroup,
  type GroupStatus,
  type PostGroupState,
  type PostState,
  type PostStatus,
} from './state.js';

/** The group status once the given posts have moved to `status`. */
export function groupStatusAfter(
  group: ActivePostGroup,
  postIds: readonly string[],
  status: PostStatus,
  fallback: GroupStatus = group.status,
): GroupStatus {
  const moved = new Set(postIds);
  return deriveGroupStatus(
    group.posts.map((p) => (moved.has(p.id) ? { ...p, status } : p)),
    fallback,
  );
}

export const ids = (posts: readonly PostState[]) => posts.map((p) => p.id);

export function active(state: PostGroupState): ActivePostGroup {
  if (state.kind === 'absent') throw new NotFound('Post group not found');
  return state;
}

export function findPost(group: ActivePostGroup, postId: string): PostState {
  const post = group.posts.find((p) => p.id === postId);
  if (!post) throw new NotFound('Post not found');
  return post;
}

/** Posts a command names in a list must belong to the group: an unknown id is a bad request, not a 404. */
export function namedPosts(group: ActivePostGroup, ids: readonly string[], field: string): PostState[] {
  const details: ErrorDetail[] = [];
  const posts: PostState[] = [];
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) return;
    seen.add(id);
    const post = group.posts.find((p) => p.id === id);
    if (!post) details.push({ path: `${field}.${index}`, message: 'Not a post of this group' });
    else posts.push(post);
  });
  if (details.length > 0) throw new InvalidFields('Unknown post ids', details);
  return posts;
}

export function assertFuture(time: string, now: string, path: string): void {
  if (!(Date.parse(time) > Date.parse(now))) {
    throw new InvalidFields('The time must be in the future', [
      { path, message: `must be later than now (${now})` },
    ]);
  }
}

/** Applies the events a decision produced to the state, to derive the group status that follows. */
export function simulate(group: ActivePostGroup, events: PostGroupEvent[]): ActivePostGroup {
  return events.reduce((s, e) => evolvePostGroup(s, e), group as PostGroupState) as ActivePostGroup;
}

export function postHashes(posts: readonly PostState[]) {
  return posts.map((p) => ({ postId: p.id, contentHash: p.contentHash }));
}

export function by(group: ActivePostGroup, command: Common): By {
  return {
    orgId: group.orgId,
    groupId: group.id,
    by: command.by,
    at: command.now,
    ...(command.assistant ? { assistant: command.assistant } : {}),
  };
}

/** Content rules hold for every caller; the API checks them first to name fields the way it received them. */
export function assertContent(
  content: PostContent & { socialAccountId?: string | null },
  context: ContentContext,
  prefix: string,
  rename: (path: string) => string = (path) => path,
): void {
  const problems = checkPostContent(content, context);
  if (problems.length > 0) {
    throw new InvalidFields(
      'The content does not meet the platform rules',
      problems.map((p) => ({ path: `${prefix}${rename(p.path)}`, message: p.message })),
    );
  }
}

export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
