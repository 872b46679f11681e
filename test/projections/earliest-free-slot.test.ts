// The earliest-free-slot finder against a real database: slot claims keep concurrent requests of one workspace
// and platform on distinct quarter hours, a post placed again takes its own claim, expired claims and other
// platforms or workspaces do not block, scheduled posts in the read model do; and concurrent approvals through
// the API get distinct slots.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EarliestFreeSlotFinder, firstCandidate } from '../../projections/scheduler/earliest-free-slot.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace } from '../support/workspace.js';
import {
  data,
  workspaceClient,
  type Group,
  type GroupWithPosts,
  type Post,
} from '../api/post-groups/support.js';

const quarter = 15 * 60_000;
const reason = 'Earliest free quarter hour on this platform (at least 15 minutes ahead)';

let service: TestService;
let finder: EarliestFreeSlotFinder;

beforeAll(async () => {
  service = await startTestService();
  finder = new EarliestFreeSlotFinder(service.runtime.readModels);
});
afterAll(async () => service.stop());

const iso = (ms: number) => new Date(ms).toISOString();

/** The slot one post gets when it asks alone. */
async function slotFor(orgId: string, postId: string, platform: string, now: Date): Promise<string> {
  const found = await finder.findSlots(orgId, [{ postId, platform }], now);
  return found[postId]!.scheduledForUtc;
}

async function insertClaim(orgId: string, platform: string, slot: number, postId: string, expiresIn: string) {
  await sql`
    insert into slot_claims (org_id, platform, slot_start, post_id, expires_at)
    values (${orgId}, ${platform}, ${iso(slot)}, ${postId}, now() + ${expiresIn}::interval)`.execute(
    service.runtime.database.db,
  );
}

describe('EarliestFreeSlotFinder', () => {
  test('20 concurrent requests for different posts of one workspace and platform get 20 distinct slots', async () => {
    const orgId = randomUUID();
    const now = new Date();
    const from = firstCandidate(now);
    const slots = await Promise.all(Array.from({ length: 20 }, () => slotFor(orgId, randomUUID(), 'x', now)));
    expect(new Set(slots).size).toBe(20);
    // No gaps either: the first 20 quarter hours from the first candidate.
    expect([...slots].sort()).toEqual(Array.from({ length: 20 }, (_, i) => iso(from + i * quarter)));
  });

  test('other platforms and other workspaces do not block each other', async () => {
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    const now = new Date();
    const from = iso(firstCandidate(now));
    const slots = await Promise.all([
      slotFor(orgA, randomUUID(), 'x', now),
      slotFor(orgA, randomUUID(), 'linkedin', now),
      slotFor(orgB, randomUUID(), 'x', now),
      slotFor(orgB, randomUUID(), 'linkedin', now),
    ]);
    expect(slots).toEqual([from, from, from, from]);
  });

  test('two posts of one request on one platform get different slots, another platform the first', async () => {
    const orgId = randomUUID();
    const now = new Date();
    const from = firstCandidate(now);
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const found = await finder.findSlots(
      orgId,
      [
        { postId: a, platform: 'x' },
        { postId: b, platform: 'x' },
        { postId: c, platform: 'linkedin' },
      ],
      now,
    );
    expect(found).toEqual({
      [a]: { scheduledForUtc: iso(from), scheduleReason: reason },
      [b]: { scheduledForUtc: iso(from + quarter), scheduleReason: reason },
      [c]: { scheduledForUtc: iso(from), scheduleReason: reason },
    });
  });

  test('a post placed again (a retried command) gets its own claimed slot', async () => {
    const orgId = randomUUID();
    const now = new Date();
    const from = firstCandidate(now);
    const [first, second] = [randomUUID(), randomUUID()];
    expect(await slotFor(orgId, first, 'x', now)).toBe(iso(from));
    expect(await slotFor(orgId, second, 'x', now)).toBe(iso(from + quarter));
    expect(await slotFor(orgId, first, 'x', now)).toBe(iso(from));
    expect(await slotFor(orgId, second, 'x', now)).toBe(iso(from + quarter));
    // Both placed again at once, in one request: each keeps its own.
    const again = await finder.findSlots(
      orgId,
      [
        { postId: second, platform: 'x' },
        { postId: first, platform: 'x' },
      ],
      now,
    );
    expect(again[first]!.scheduledForUtc).toBe(iso(from));
    expect(again[second]!.scheduledForUtc).toBe(iso(from + quarter));
    // Another post still does not get either.
    expect(await slotFor(orgId, randomUUID(), 'x', now)).toBe(iso(from + 2 * quarter));
  });

  test('a live claim of another post blocks its slot; an expired one does not and is cleared', async () => {
    const orgId = randomUUID();
    const now = new Date();
    const from = firstCandidate(now);
    const stale = randomUUID();
    await insertClaim(orgId, 'x', from, stale, '-1 second');
    await insertClaim(orgId, 'x', from + quarter, randomUUID(), '5 minutes');
    const post = randomUUID();
    expect(await slotFor(orgId, post, 'x', now)).toBe(iso(from));
    expect(await slotFor(orgId, randomUUID(), 'x', now)).toBe(iso(from + 2 * quarter));
    const { rows } = await sql<{ post_id: string; slot_start: string; live: boolean }>`
      select post_id, slot_start, expires_at > now() as live from slot_claims
      where org_id = ${orgId} order by slot_start`.execute(service.runtime.database.db);
    expect(rows.map((r) => r.post_id)).not.toContain(stale);
    expect(rows[0]).toEqual({ post_id: post, slot_start: iso(from), live: true });
    expect(rows.every((r) => r.live)).toBe(true);
  });

  test('a claim lives about ten minutes by the database clock', async () => {
    const orgId = randomUUID();
    await slotFor(orgId, randomUUID(), 'x', new Date());
    const { rows } = await sql<{ seconds: number }>`
      select extract(epoch from expires_at - now())::float8 as seconds from slot_claims
      where org_id = ${orgId}`.execute(service.runtime.database.db);
    expect(rows[0]!.seconds).toBeGreaterThan(590);
    expect(rows[0]!.seconds).toBeLessThanOrEqual(600);
  });

  test('a slot held by a scheduled post in the read model is skipped, except by that post itself', async () => {
    const ws = await createTestWorkspace(service, 'Slots');
    const api = workspaceClient(service, ws);
    const now = new Date();
    const from = firstCandidate(now);
    const drafted = await api.draft({
      title: 'Held slot',
      topic: 'launch',
      objective: 'awareness',
      posts: [{ platform: 'x', contentText: 'A post at seven past' }],
    });
    // Seven past the first candidate holds the first candidate's quarter hour.
    const group = await api.approve(drafted.group.id, { scheduledForUtc: iso(from + 7 * 60_000) });
    expect(group.status).toBe('scheduled');
    const scheduled = drafted.posts[0]!.id;

    expect(await slotFor(ws.orgId, randomUUID(), 'x', now)).toBe(iso(from + quarter));
    expect(await slotFor(ws.orgId, randomUUID(), 'linkedin', now)).toBe(iso(from));
    // The post being rescheduled does not block itself.
    expect(await slotFor(ws.orgId, scheduled, 'x', now)).toBe(iso(from));
  });

  test('the first candidate is the quarter hour at least 15 minutes ahead', async () => {
    const at = (t: string) => iso(firstCandidate(new Date(t)));
    expect(at('2031-03-01T10:00:00.000Z')).toBe('2031-03-01T10:15:00.000Z');
    expect(at('2031-03-01T10:00:00.001Z')).toBe('2031-03-01T10:30:00.000Z');
    expect(at('2031-03-01T10:05:00.000Z')).toBe('2031-03-01T10:30:00.000Z');
    expect(at('2031-03-01T09:59:59.999Z')).toBe('2031-03-01T10:15:00.000Z');
    expect(at('2031-03-01T10:14:59.999Z')).toBe('2031-03-01T10:30:00.000Z');
    const postId = randomUUID();
    const found = await finder.findSlots(
      randomUUID(),
      [{ postId, platform: 'x' }],
      new Date('2031-03-01T10:05:00.000Z'),
    );
    expect(found).toEqual({
      [postId]: { scheduledForUtc: '2031-03-01T10:30:00.000Z', scheduleReason: reason },
    });
  });
});

describe('POST …/post-groups/{id}/approve', () => {
  test('12 concurrent approvals of one-X-post drafts in one workspace get 12 distinct slots', async () => {
    const ws = await createTestWorkspace(service, 'Busy');
    const api = workspaceClient(service, ws);
    const drafts: GroupWithPosts[] = [];
    for (let i = 0; i < 12; i++) {
      drafts.push(
        await api.draft({
          title: `Launch ${i}`,
          topic: 'launch',
          objective: 'awareness',
          posts: [{ platform: 'x', contentText: `Launch ${i}: the scheduler is live` }],
        }),
      );
    }
    const groups = await Promise.all(
      drafts.map(async (d) =>
        data<Group>(
          await api.call('POST', `/post-groups/${d.group.id}/approve`, { as: 'reviewer', body: {} }),
        ),
      ),
    );
    expect(groups.every((g) => g.status === 'scheduled')).toBe(true);
    const posts: Post[] = await api.posts('?filter[status]=scheduled&limit=100');
    expect(posts).toHaveLength(12);
    const slots = posts.map((p) => p.scheduledForUtc);
    expect(new Set(slots).size).toBe(12);
    for (const slot of slots) expect(Date.parse(slot!) % quarter).toBe(0);
    expect(new Set(groups.map((g) => g.scheduledFor))).toEqual(new Set(slots));
  });
});
