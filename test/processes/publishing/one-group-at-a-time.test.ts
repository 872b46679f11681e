// The posts of one group are due together and all append to the group's stream: a worker runs the jobs of one
// group one after another (jobs of different groups side by side), so they do not conflict on the stream and
// re-read it on every claim.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { PostView } from '../../../domain/post-groups/views.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;
/** Platform calls in flight, by group, and the most seen at once (per group and overall). */
const inFlight = new Map<string, number>();
let mostInOneGroup = 0;
let mostOverall = 0;

beforeAll(async () => {
  service = await startTestService({
    env: { PUBLISH_SWEEP_INTERVAL_MS: '50', PUBLISH_CONCURRENCY: '8' },
    publishing: {
      hooks: {
        beforeCall: async (job) => {
          const now = (inFlight.get(job.groupId) ?? 0) + 1;
          inFlight.set(job.groupId, now);
          mostInOneGroup = Math.max(mostInOneGroup, now);
          mostOverall = Math.max(
            mostOverall,
            [...inFlight.values()].reduce((a, b) => a + b, 0),
          );
          // Long enough that jobs which may overlap do.
          await new Promise((r) => setTimeout(r, 150));
        },
        afterCall: async (job) => {
          inFlight.set(job.groupId, (inFlight.get(job.groupId) ?? 1) - 1);
        },
      },
    },
  });
  ws = await createTestWorkspace(service);
});
afterAll(async () => service?.stop());

test('three posts of each of two groups due at once: one call per group at a time, the groups in parallel', async () => {
  const owner = { orgId: ws.orgId, userId: ws.userIds.owner };
  const accounts = await Promise.all(
    (['x', 'linkedin', 'bluesky'] as const).map((p) => connectSandboxAccount(service, owner, p)),
  );
  const groups: string[] = [];
  for (const title of ['One', 'Two']) {
    const created = await service.request('POST', `${ws.base}/post-groups`, {
      token: ws.tokens.owner,
      body: {
        title,
        posts: accounts.map((a) => ({
          platform: a.platform,
          contentText: `${title} on ${a.platform}`,
          socialAccountId: a.id,
        })),
      },
    });
    groups.push(((await created.json()) as { data: { group: { id: string } } }).data.group.id);
  }
  // Both groups due at the same moment, set once both exist (a loaded machine may take seconds to draft them).
  const at = new Date(Date.now() + 2500).toISOString();
  for (const groupId of groups) {
    const approved = await service.request('POST', `${ws.base}/post-groups/${groupId}/approve`, {
      token: ws.tokens.owner,
      body: { scheduledForUtc: at },
    });
    expect(approved.status, await approved.clone().text()).toBe(200);
  }
  await waitUntil(
    async () => {
      const res = await service.request('GET', `${ws.base}/posts?filter[status]=published&limit=100`, {
        token: ws.tokens.owner,
      });
      return ((await res.json()) as { data: { items: PostView[] } }).data.items.length === 6;
    },
    { timeoutMs: 20_000, what: 'six posts published' },
  );
  expect(mostInOneGroup).toBe(1);
  expect(mostOverall).toBe(2);
  // Each post: one attempt, one outcome; nothing decided twice.
  for (const groupId of groups) {
    const events = await service.runtime.eventStore.readStream(`postGroup-${groupId}`);
    expect(events.filter((e) => e.type === 'PostPublishAttemptStarted')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'PostPublished')).toHaveLength(3);
  }
});
