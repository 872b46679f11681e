// Deleting a post (after it was deleted on its platform, for a published one).
import { Conflict } from '../shared/errors.js';
import type { PostGroupCommand } from './commands.js';
import type { PostGroupEvent } from './event-codec.js';
import { deriveGroupStatus, type PostGroupState } from './state.js';
import { active, by, findPost } from './decide-support.js';

export function decideDeletePost(
  command: Extract<PostGroupCommand, { type: 'DeletePost' }>,
  state: PostGroupState,
): PostGroupEvent[] {
  const group = active(state);
  const post = findPost(group, command.postId);
  if (post.status === 'publishing' || post.status === 'awaiting_platform')
    throw new Conflict('The post is being published; try again when it has finished', 'post_publishing');
  // The audit trail must not claim a platform deletion of a post that was never there under that id.
  if (command.deletedOnPlatform && post.status !== 'published')
    throw new Conflict(
      `The post is ${post.status}; only a published post is deleted on the platform`,
      'post_not_published',
    );
  if (command.deletedOnPlatform && command.deletedOnPlatform.externalId !== post.publishedExternalId)
    throw new Conflict(
      'The platform post deleted is not the one this post was published as',
      'external_id_mismatch',
    );
  const rest = group.posts.filter((p) => p.id !== post.id);
  return [
    {
      type: 'PostDeleted',
      data: {
        ...by(group, command),
        postId: post.id,
        groupStatus: deriveGroupStatus(rest, group.status),
        ...(command.deletedOnPlatform ? { deletedOnPlatform: command.deletedOnPlatform } : {}),
      },
    },
  ];
}
