// Which post-group events notify whom (the post-groups slice's notification rules): a review asked for, an
// approval or rejection, a post that failed for good, a publication and the workspace's publishing milestones.
// Contributed to the notifications read model by api/post-groups/slice.ts (docs/decisions.md, issue 25).
import { defineNotificationRules, type GroupFacts, type NotificationIntent } from '../notifications/rules.js';
import { postGroupEventCodec } from './event-codec.js';

/** Published-post counts worth celebrating (1 is the first post); beyond the list, every thousand. */
export const publishedMilestones = [10, 50, 100, 250, 500, 1000] as const;

export function isPublishedMilestone(count: number): boolean {
  return (publishedMilestones as readonly number[]).includes(count) || (count > 1000 && count % 1000 === 0);
}

const groupHref = (orgId: string, groupId: string) => `/v1/orgs/${orgId}/marketing/post-groups/${groupId}`;
const postHref = (orgId: string, postId: string) => `/v1/orgs/${orgId}/marketing/posts/${postId}`;
const quoted = (group: GroupFacts | null) => (group ? `“${group.title}”` : 'A post');

export const postGroupNotificationRules = defineNotificationRules(
  postGroupEventCodec,
  [
    'PostGroupSubmittedForApproval',
    'PostGroupApproved',
    'PostGroupRejected',
    'PostPublished',
    'PostPublishAttemptFailed',
  ],
  (event, context): NotificationIntent[] => {
    switch (event.type) {
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
    }
  },
);
