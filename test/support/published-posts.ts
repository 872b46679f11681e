// Post groups taken through review and publishing at chosen times, and metrics readings of their posts, through the
// command handlers (the decider decides every step, as the pipeline's would): for the performance and home tests,
// whose numbers depend on when things happened.
import { randomUUID } from 'node:crypto';
import { recordPostMetrics } from '../../commands/analytics/post-metrics-commands.js';
import { postGroupStream } from '../../commands/post-groups/post-group-commands.js';
import { handleCommand, type CommandDeps } from '../../commands/shared/command-handler.js';
import type { MetricsReading } from '../../domain/analytics/post-metrics.js';
import { postGroupDecider, type PostGroupCommand } from '../../domain/post-groups/post-group.js';
import type { Platform } from '../../domain/shared/platforms.js';

export interface FixtureGroup {
  groupId: string;
  /** The posts' ids, in the order given. */
  postIds: string[];
}

export interface FixturePost {
  platform: Platform;
  contentText?: string;
}

/** A command without who takes it and when (the steps add them). */
type Step = PostGroupCommand extends infer C ? (C extends unknown ? Omit<C, 'by' | 'now'> : never) : never;

export class PublishedPosts {
  constructor(
    private readonly commands: CommandDeps,
    readonly orgId: string,
    /** The member the steps are taken as. */
    readonly by: string,
  ) {}

  private async step(groupId: string, command: Step, now: string): Promise<void> {
    await handleCommand(this.commands, {
      stream: postGroupStream(groupId),
      decider: postGroupDecider,
      command: { ...command, by: this.by, now },
      metadata: { orgId: this.orgId, actor: this.by, userId: this.by, correlationId: randomUUID(), now },
    });
  }

  /** A group of `posts` created (submitted for review) and approved at `at`, with a topic and content type. */
  async approvedGroup(input: {
    topic?: string | null;
    contentType?: string | null;
    posts: FixturePost[];
    at: string;
    title?: string;
  }): Promise<FixtureGroup> {
    const groupId = randomUUID();
    const postIds = input.posts.map(() => randomUUID());
    await this.step(
      groupId,
      {
        type: 'CreatePostGroup',
        orgId: this.orgId,
        groupId,
        fields: {
          title: input.title ?? 'Fixture group',
          topic: input.topic ?? null,
          objective: null,
          timezone: 'UTC',
          scheduledFor: null,
          tagIds: [],
        },
        strategy: {
          strategyId: null,
          strategyVersion: null,
          pillarId: null,
          priorityId: null,
          contentType: input.contentType ?? null,
          opportunityId: null,
        },
        posts: input.posts.map((p, i) => ({
          postId: postIds[i]!,
          platform: p.platform,
          socialAccountId: null,
          contentText: p.contentText ?? `Fixture post ${i + 1} on ${p.platform}`,
          media: null,
          platformPayload: null,
        })),
        origin: 'drafts',
        approvalId: randomUUID(),
      },
      input.at,
    );
    await this.step(
      groupId,
      { type: 'ApprovePostGroup', schedule: null, approvalId: randomUUID() },
      input.at,
    );
    return { groupId, postIds };
  }

  /** A group submitted for review at `at` and left there. */
  async pendingGroup(input: { title: string; topic?: string | null; posts: FixturePost[]; at: string }) {
    const groupId = randomUUID();
    const postIds = input.posts.map(() => randomUUID());
    await this.step(
      groupId,
      {
        type: 'CreatePostGroup',
        orgId: this.orgId,
        groupId,
        fields: {
          title: input.title,
          topic: input.topic ?? null,
          objective: null,
          timezone: 'UTC',
          scheduledFor: null,
          tagIds: [],
        },
        strategy: {
          strategyId: null,
          strategyVersion: null,
          pillarId: null,
          priorityId: null,
          contentType: null,
          opportunityId: null,
        },
        posts: input.posts.map((p, i) => ({
          postId: postIds[i]!,
          platform: p.platform,
          socialAccountId: null,
          contentText: p.contentText ?? `Waiting post ${i + 1} on ${p.platform}`,
          media: null,
          platformPayload: null,
        })),
        origin: 'drafts',
        approvalId: randomUUID(),
      },
      input.at,
    );
    return { groupId, postIds };
  }

  /** Schedules an approved post for `slot`, decided at `at` (before the slot). */
  async schedule(group: FixtureGroup, postId: string, slot: string, at: string): Promise<void> {
    await this.step(
      group.groupId,
      {
        type: 'SchedulePostGroup',
        postIds: [postId],
        schedule: { [postId]: { scheduledForUtc: slot, scheduleReason: 'Chosen by the fixture' } },
      },
      at,
    );
  }

  /** Publishes an approved post now (post-now, the attempt, the platform's answer), all at `at`. */
  async publish(
    group: FixtureGroup,
    postId: string,
    at: string,
  ): Promise<{ externalId: string; url: string }> {
    const externalId = `ext-${postId.slice(0, 8)}`;
    const url = `https://platform.example/${externalId}`;
    await this.step(group.groupId, { type: 'RequestPublishNow', postId }, at);
    await this.step(group.groupId, { type: 'StartPublishAttempt', postId, socialAccountId: null }, at);
    await this.step(
      group.groupId,
      { type: 'RecordPublishOutcome', postId, attempt: 1, outcome: { kind: 'published', externalId, url } },
      at,
    );
    return { externalId, url };
  }

  /** A publish-now of an approved post that fails for good at `at`. */
  async failPublishing(group: FixtureGroup, postId: string, at: string): Promise<void> {
    await this.step(group.groupId, { type: 'RequestPublishNow', postId }, at);
    await this.step(group.groupId, { type: 'StartPublishAttempt', postId, socialAccountId: null }, at);
    await this.step(
      group.groupId,
      {
        type: 'RecordPublishOutcome',
        postId,
        attempt: 1,
        outcome: { kind: 'failed', error: 'Refused by the platform', reason: 'permanent', nextRetryAt: null },
      },
      at,
    );
  }

  /** Deletes a published post after it was deleted on its platform. */
  async deleteOnPlatform(group: FixtureGroup, postId: string, externalId: string, at: string): Promise<void> {
    await this.step(group.groupId, { type: 'DeletePost', postId, deletedOnPlatform: { externalId } }, at);
  }

  /** Records a reading of a published post's lifetime numbers, taken at `fetchedAt`. */
  async reading(
    post: {
      groupId: string;
      postId: string;
      platform: Platform;
      publishedAt: string;
      contentType?: string | null;
    },
    metrics: Partial<MetricsReading>,
    fetchedAt: string,
  ): Promise<void> {
    await recordPostMetrics(
      this.commands,
      {
        orgId: this.orgId,
        postId: post.postId,
        groupId: post.groupId,
        platform: post.platform,
        socialAccountId: randomUUID(),
        externalId: `ext-${post.postId.slice(0, 8)}`,
        publishedAt: post.publishedAt,
        contentType: post.contentType ?? null,
        metrics: {
          likes: 0,
          reposts: 0,
          replies: 0,
          quotes: 0,
          bookmarks: null,
          impressions: null,
          ...metrics,
        },
        fetchedAt,
      },
      { orgId: this.orgId, actor: 'system', correlationId: randomUUID(), now: fetchedAt },
    );
  }
}
