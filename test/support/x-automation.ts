// X automation test helpers: an X post published through post-now with one reading of its metrics (what a run
// evaluates), and a run's dependencies built from a test service (the sandbox X connector, the x-posts deletion).
import { randomUUID } from 'node:crypto';
import { recordPostMetrics } from '../../commands/analytics/post-metrics-commands.js';
import type { AutomationRunDeps } from '../../commands/automation/run-x-automation.js';
import { xAutomationEffects } from '../../commands/automation/x-automation-effects.js';
import type { PostView } from '../../domain/post-groups/views.js';
import type { SocialAccountView } from '../../domain/social-accounts/social-account.js';
import { xPostCandidates } from '../../projections/automation/queries.js';
import { bestSlotFinder } from '../../projections/scheduling/best-slot-finder.js';
import type { TestService } from './runtime.js';
import type { TestWorkspace } from './workspace.js';

export interface PostMetricsFixture {
  impressions: number | null;
  likes: number;
  replies?: number;
  /** How long before now the reading was taken; 0 by default. */
  fetchedHoursAgo?: number;
}

/** An X post of the workspace published now (approved, post-now) with one reading of its metrics. */
export async function publishedXPost(
  service: TestService,
  w: TestWorkspace,
  account: SocialAccountView,
  metrics: PostMetricsFixture,
): Promise<PostView> {
  const created = await service.request('POST', `${w.base}/post-groups`, {
    token: w.tokens.owner,
    body: {
      title: 'T',
      posts: [{ platform: 'x', contentText: `Post ${randomUUID()}`, socialAccountId: account.id }],
    },
  });
  if (created.status !== 200 && created.status !== 201)
    throw new Error(`creating a post group answered ${created.status}: ${await created.text()}`);
  const { group, posts } = ((await created.json()) as { data: { group: { id: string }; posts: PostView[] } })
    .data;
  const postId = posts[0]!.id;
  await service.request('POST', `${w.base}/post-groups/${group.id}/approve`, {
    token: w.tokens.owner,
    body: { autoSchedule: false },
  });
  const posted = await service.request('POST', `${w.base}/posts/${postId}/post-now`, {
    token: w.tokens.owner,
  });
  const post = ((await posted.json()) as { data: PostView }).data;
  if (post.status !== 'published') throw new Error(`post-now left the post ${post.status}`);
  const now = new Date();
  await recordPostMetrics(
    service.runtime.commands,
    {
      orgId: w.orgId,
      postId,
      groupId: group.id,
      platform: 'x',
      socialAccountId: account.id,
      externalId: post.publishedExternalId!,
      publishedAt: now.toISOString(),
      contentType: null,
      metrics: {
        likes: metrics.likes,
        reposts: 0,
        replies: metrics.replies ?? 0,
        quotes: 0,
        bookmarks: null,
        impressions: metrics.impressions,
      },
      fetchedAt: new Date(now.getTime() - (metrics.fetchedHoursAgo ?? 0) * 3_600_000).toISOString(),
    },
    { orgId: w.orgId, actor: 'system', correlationId: randomUUID(), now: now.toISOString() },
  );
  return post;
}

/** What a run needs, from a test service, on the given clock. */
export function testRunDeps(service: TestService, now: () => Date): AutomationRunDeps {
  const { runtime } = service;
  return {
    commands: runtime.commands,
    candidates: (orgId, since) => xPostCandidates(runtime.readModels, orgId, since),
    effects: xAutomationEffects({
      postGroups: { ...runtime.commands, slotFinder: bestSlotFinder(runtime.readModels) },
      readModels: runtime.readModels,
      accounts: runtime.accounts,
      connectors: runtime.connectors,
      callTimeoutMs: 10_000,
    }),
    now,
  };
}
