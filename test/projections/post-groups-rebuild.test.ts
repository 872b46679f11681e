// The post-group read models rebuilt from the log (as `projections rebuild post_groups` does) answer list posts
// and the calendar exactly as before, including a tag deleted after it was put on groups.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { rebuildProjection } from '../../projections/engine/rebuild.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
});
afterAll(async () => service.stop());

// Answers are read loosely here: the comparison is between two whole answers, not of their fields.
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(method: string, path: string, body?: unknown): Promise<Loose> {
  const res = await service.request(method, `${ws.base}${path}`, { token: ws.tokens.owner, body });
  const json = (await res.json()) as { data: Loose };
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

test('rebuilding post_groups reproduces every list, filter and the calendar', async () => {
  const keep = await call('POST', '/tags', { name: 'Launch' });
  const gone = await call('POST', '/tags', { name: 'Old' });
  for (let i = 0; i < 6; i++) {
    const { group, posts } = await call('POST', '/post-groups', {
      title: `Group ${i}`,
      tagIds: i % 2 === 0 ? [keep.id, gone.id] : [keep.id],
      posts: [
        { platform: 'x', contentText: `x ${i}` },
        { platform: 'linkedin', contentText: `linkedin ${i}` },
      ],
    });
    if (i >= 1) await call('PATCH', `/post-groups/${group.id}`, { status: 'pending_approval' });
    if (i >= 2)
      await call('POST', `/post-groups/${group.id}/approve`, i === 2 ? { autoSchedule: false } : {});
    if (i === 4) await call('PATCH', `/posts/${posts[0].id}`, { contentText: 'edited after approval' });
    if (i === 5) await call('POST', `/posts/${posts[1].id}/post-now`);
  }
  await call('DELETE', `/tags/${gone.id}`);

  const queries = [
    '/posts?limit=100',
    '/posts?filter[status]=scheduled&sortBy=scheduledForUtc',
    `/posts?filter[tagId]=${keep.id}`,
    `/posts?filter[tagId]=${gone.id}`,
    '/posts?filter[platform]=x,linkedin&filterOp[platform]=in&sortBy=platform&sortDir=desc',
    '/scheduler/events',
  ];
  const before = await Promise.all(queries.map((q) => call('GET', q)));
  expect(before[3]!.total).toBe(0);
  expect(before[0]!.total).toBe(12);

  const { runtime } = service;
  const result = await rebuildProjection(
    {
      db: runtime.database.db,
      eventStore: runtime.eventStore,
      projections: runtime.projections,
      logger: runtime.logger,
    },
    'post_groups',
  );
  expect(result).toBeTruthy();
  const after = await Promise.all(queries.map((q) => call('GET', q)));
  expect(after).toEqual(before);
});
