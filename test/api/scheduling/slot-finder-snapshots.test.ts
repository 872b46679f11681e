// The slot finder's busy-times snapshots (projections/scheduling/busy-times.ts) through the whole service: an
// instance ranks on its snapshot while nothing else changed the workspace's schedule (its own approvals, once
// projected, move no version), and reads again when something did: a time scheduled without the finder, a time
// given up, another instance's claims. Two instances claiming at once never clash.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'kysely';
import { bestSlotFinder } from '../../../projections/scheduling/best-slot-finder.js';
import { noteBusyChanges } from '../../../projections/scheduling/busy-times.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace } from '../../support/workspace.js';
import { data, workspaceClient, type WorkspaceClient } from '../post-groups/support.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

const gapMinutes = 120;

/** A workspace whose X slots keep two hours apart, four a day, every day from 08:00 to 20:00 UTC. */
async function busyWorkspace(): Promise<WorkspaceClient> {
  const client = workspaceClient(service, await createTestWorkspace(service));
  await data(
    await client.call('PATCH', '/scheduler/settings', {
      body: {
        includeWeekends: true,
        minGapMinutes: gapMinutes,
        maxPostsPerDay: 4,
        postingWindows: { x: [{ days: [0, 1, 2, 3, 4, 5, 6], start: '08:00', end: '20:00' }] },
      },
    }),
  );
  return client;
}

/** Where this service's slot finder took its busy times from so far. */
async function busyTimesSources(): Promise<{ snapshot: number; database: number }> {
  const metric = await service.runtime.metrics.registry
    .getSingleMetric('slot_finder_busy_times_total')!
    .get();
  const count = (source: string) => metric.values.find((v) => v.labels.source === source)?.value ?? 0;
  return { snapshot: count('snapshot'), database: count('database') };
}

async function sourcesOf<T>(
  work: () => Promise<T>,
): Promise<{ result: T; snapshot: number; database: number }> {
  const before = await busyTimesSources();
  const result = await work();
  const after = await busyTimesSources();
  return { result, snapshot: after.snapshot - before.snapshot, database: after.database - before.database };
}

async function approveX(client: WorkspaceClient, title: string, body?: unknown): Promise<string> {
  const drafted = await client.draft({ title, posts: [{ platform: 'x', contentText: `${title} on X` }] });
  const group = await client.approve(drafted.group.id, body);
  expect(group.status).toBe('scheduled');
  const { posts } = await client.get(group.id);
  return posts[0]!.scheduledForUtc!;
}

async function approveWithTime(client: WorkspaceClient, title: string, at: string): Promise<string> {
  const drafted = await client.draft({ title, posts: [{ platform: 'x', contentText: `${title} on X` }] });
  await client.approve(drafted.group.id, { scheduledForUtc: at });
  return drafted.group.id;
}

async function nextFreeSlot(client: WorkspaceClient): Promise<string> {
  const res = await client.call('GET', '/scheduler/slots?platform=x&count=1', { as: 'viewer' });
  return (await data<{ slots: Array<{ scheduledForUtc: string }> }>(res)).slots[0]!.scheduledForUtc;
}

function expectApart(times: readonly string[]): void {
  const sorted = times.map((t) => Date.parse(t)).sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i++)
    expect(sorted[i]! - sorted[i - 1]!, times.join(', ')).toBeGreaterThanOrEqual(gapMinutes * 60_000);
}

describe("the slot finder's busy-times snapshot", () => {
  test('approvals one after another rank on the snapshot: its own posts, once projected, move no version', async () => {
    const client = await busyWorkspace();
    const first = await sourcesOf(() => approveX(client, 'First'));
    expect(first).toMatchObject({ database: 1, snapshot: 0 });
    const times = [first.result];
    for (const title of ['Second', 'Third', 'Fourth', 'Fifth']) {
      const next = await sourcesOf(() => approveX(client, title));
      expect(next, title).toMatchObject({ database: 0, snapshot: 1 });
      times.push(next.result);
    }
    expectApart(times);
  });

  test('a time scheduled without the finder is read again, and the next approval keeps clear of it', async () => {
    const client = await busyWorkspace();
    const first = await approveX(client, 'Placed');
    const taken = await nextFreeSlot(client);
    await approveWithTime(client, 'Given a time', taken);
    const next = await sourcesOf(() => approveX(client, 'After'));
    expect(next).toMatchObject({ database: 1, snapshot: 0 });
    expectApart([first, taken, next.result]);
  });

  test('a time given up is read again and offered to the next approval', async () => {
    const client = await busyWorkspace();
    const best = await nextFreeSlot(client);
    const groupId = await approveWithTime(client, 'Holds the best time', best);
    const aside = await approveX(client, 'Keeps clear');
    expect(aside).not.toBe(best);
    // Moved a month away without the finder: its time is free again.
    const later = new Date(Date.parse(best) + 30 * 86_400_000).toISOString();
    await client.schedule(groupId, { scheduledForUtc: later });
    const next = await sourcesOf(() => approveX(client, 'Takes it'));
    expect(next).toMatchObject({ database: 1, result: best });
  });

  test("another instance's claims are read again and kept clear of", async () => {
    const client = await busyWorkspace();
    const orgId = client.ws.orgId;
    const first = await approveX(client, 'Here');
    const elsewhere = bestSlotFinder(service.runtime.readModels);
    const claimed = await elsewhere.findSlots(orgId, [{ postId: randomUUID(), platform: 'x' }], new Date());
    const there = Object.values(claimed)[0]!.scheduledForUtc;
    const next = await sourcesOf(() => approveX(client, 'Here again'));
    expect(next).toMatchObject({ database: 1, snapshot: 0 });
    expectApart([first, there, next.result]);
  });

  test('two instances claiming at the same moment never clash', async () => {
    const client = await busyWorkspace();
    const orgId = client.ws.orgId;
    const instances = [
      bestSlotFinder(service.runtime.readModels),
      bestSlotFinder(service.runtime.readModels),
    ];
    // Each instance has a snapshot first, so the race is between snapshots and versions.
    for (const finder of instances)
      await finder.findSlots(orgId, [{ postId: randomUUID(), platform: 'x' }], new Date());
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        instances[i % 2]!.findSlots(orgId, [{ postId: randomUUID(), platform: 'x' }], new Date()),
      ),
    );
    const times = answers.map((a) => Object.values(a)[0]!.scheduledForUtc);
    expect(new Set(times).size).toBe(12);
    expectApart(times);
  });

  test('changes wholly in the past (a rebuild replaying history) move no version; one that can concern a snapshot does', async () => {
    const db = service.runtime.readModels;
    const orgId = randomUUID();
    const postsVersion = async () =>
      (
        await sql<{ version: string }>`
          select version::text from slot_versions where org_id = ${orgId} and source = 'posts'`.execute(db)
      ).rows[0]?.version ?? null;
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
    await noteBusyChanges(db, [
      { orgId, postId: randomUUID(), before: null, at: daysAgo(30) },
      { orgId, postId: randomUUID(), before: daysAgo(40), at: null },
      { orgId, postId: randomUUID(), before: daysAgo(3), at: daysAgo(5) },
    ]);
    expect(await postsVersion()).toBeNull();
    await noteBusyChanges(db, [{ orgId, postId: randomUUID(), before: daysAgo(1), at: null }]);
    const moved = await postsVersion();
    expect(moved).not.toBeNull();
    await noteBusyChanges(db, [{ orgId, postId: randomUUID(), before: null, at: daysAgo(-3) }]);
    expect(BigInt((await postsVersion())!)).toBe(BigInt(moved!) + 1n);
  });
});
