// ORG/marketing/tags through the whole service: the four endpoints, read-your-writes, sorting, the bad-input
// battery (each answer and no event appended), workspace isolation, roles, conflicts and Idempotency-Key.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { billingSettled } from '../support/workspace.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

interface TagBody {
  id: string;
  orgId: string;
  name: string;
  color: string | null;
  createdAt: string;
  updatedAt: string;
}
interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}

/** A fresh workspace and an owner's token scoped to it, so each test starts from no tags. */
async function newWorkspace(): Promise<{ orgId: string; token: string; email: string }> {
  const owner = await service.userToken();
  const slug = `ws-${randomUUID().slice(0, 8)}`;
  const res = await service.request('POST', '/v1/orgs', { token: owner.token, body: { name: slug, slug } });
  expect(res.status).toBe(201);
  const { data } = (await res.json()) as { data: { id: string } };
  const scoped = await service.userToken(owner.email, { orgId: data.id, role: 'owner' });
  await billingSettled(service, data.id);
  return { orgId: data.id, token: scoped.token, email: owner.email };
}

const tagsPath = (orgId: string) => `/v1/orgs/${orgId}/marketing/tags`;
const tagPath = (orgId: string, tagId: string) => `${tagsPath(orgId)}/${tagId}`;

async function createTag(
  ws: { orgId: string; token: string },
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return service.request('POST', tagsPath(ws.orgId), { token: ws.token, body, headers });
}

async function created(ws: { orgId: string; token: string }, body: unknown): Promise<TagBody> {
  const res = await createTag(ws, body);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: TagBody }).data;
}

async function list(ws: { orgId: string; token: string }): Promise<TagBody[]> {
  const res = await service.request('GET', tagsPath(ws.orgId), { token: ws.token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: TagBody[] }).data;
}

describe('the four endpoints', () => {
  test('create (200), list at once, update, clear the colour, delete (answers the tag), gone afterwards', async () => {
    const ws = await newWorkspace();
    const res = await createTag(ws, { name: '  Launch ', color: '#FF8800' });
    expect(res.status).toBe(200);
    const tag = ((await res.json()) as { data: TagBody }).data;
    expect(tag).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      orgId: ws.orgId,
      name: 'Launch',
      color: '#ff8800',
      createdAt: expect.any(String),
      updatedAt: tag.createdAt,
    });

    // Read-your-writes: the list shows the tag right after the POST answered.
    expect(await list(ws)).toEqual([tag]);

    const renamed = await service.request('PATCH', tagPath(ws.orgId, tag.id), {
      token: ws.token,
      body: { name: 'Product launch' },
    });
    expect(renamed.status).toBe(200);
    const afterRename = ((await renamed.json()) as { data: TagBody }).data;
    expect(afterRename).toMatchObject({ id: tag.id, name: 'Product launch', color: '#ff8800' });
    expect(afterRename.createdAt).toBe(tag.createdAt);
    expect(Date.parse(afterRename.updatedAt)).toBeGreaterThanOrEqual(Date.parse(tag.createdAt));

    const cleared = await service.request('PATCH', tagPath(ws.orgId, tag.id), {
      token: ws.token,
      body: { color: null },
    });
    expect(cleared.status).toBe(200);
    const afterClear = ((await cleared.json()) as { data: TagBody }).data;
    expect(afterClear).toMatchObject({ name: 'Product launch', color: null });
    expect(await list(ws)).toEqual([afterClear]);

    const deleted = await service.request('DELETE', tagPath(ws.orgId, tag.id), { token: ws.token });
    expect(deleted.status).toBe(200);
    expect(((await deleted.json()) as { data: TagBody }).data).toEqual(afterClear);
    expect(await list(ws)).toEqual([]);

    for (const method of ['PATCH', 'DELETE']) {
      const again = await service.request(method, tagPath(ws.orgId, tag.id), {
        token: ws.token,
        ...(method === 'PATCH' ? { body: { name: 'X' } } : {}),
      });
      expect(again.status).toBe(404);
    }
  });

  test('the list is sorted by name, case-insensitively', async () => {
    const ws = await newWorkspace();
    for (const name of ['banana', 'Cherry', 'apple', 'Apricot', 'blueberry']) await created(ws, { name });
    expect((await list(ws)).map((t) => t.name)).toEqual([
      'apple',
      'Apricot',
      'banana',
      'blueberry',
      'Cherry',
    ]);
  });

  test('a tag created without a colour has color null; an empty PATCH changes nothing and answers the tag', async () => {
    const ws = await newWorkspace();
    const tag = await created(ws, { name: 'Plain' });
    expect(tag.color).toBeNull();
    const before = await eventCount(service);
    for (const body of [{}, { name: 'Plain' }, { name: ' Plain ', color: null }]) {
      const res = await service.request('PATCH', tagPath(ws.orgId, tag.id), { token: ws.token, body });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: TagBody }).data).toEqual(tag);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('renaming a tag to its own name in another case is allowed', async () => {
    const ws = await newWorkspace();
    const tag = await created(ws, { name: 'sales' });
    const res = await service.request('PATCH', tagPath(ws.orgId, tag.id), {
      token: ws.token,
      body: { name: 'Sales' },
    });
    expect(res.status).toBe(200);
    expect((await list(ws)).map((t) => t.name)).toEqual(['Sales']);
  });
});

describe('refused requests: right status and body, no event appended', () => {
  let ws: { orgId: string; token: string; email: string };
  let other: { orgId: string; token: string; email: string };
  let tag: TagBody;
  let otherTag: TagBody;
  let viewerToken: string;

  beforeAll(async () => {
    ws = await newWorkspace();
    other = await newWorkspace();
    tag = await created(ws, { name: 'Sales', color: '#0af' });
    await created(ws, { name: 'Launch' });
    otherTag = await created(other, { name: 'Theirs' });
    viewerToken = (await service.userToken(undefined, { orgId: ws.orgId, role: 'viewer' })).token;
  });

  const cases: Array<{
    name: string;
    run: () => Promise<Response>;
    status: number;
    check?: (body: ErrorBody) => void;
  }> = [
    {
      name: 'malformed JSON',
      run: () => createTag(ws, '{"name": '),
      status: 400,
    },
    {
      name: 'a missing name',
      run: () => createTag(ws, { color: '#fff' }),
      status: 400,
      check: (b) => expect(b.details).toEqual([{ path: 'body.name', message: 'Required' }]),
    },
    {
      name: 'a name of the wrong type',
      run: () => createTag(ws, { name: 42 }),
      status: 400,
      check: (b) => expect(b.details?.map((d) => d.path)).toEqual(['body.name']),
    },
    {
      name: 'a blank name',
      run: () => createTag(ws, { name: '   ' }),
      status: 400,
      check: (b) => expect(b.details?.map((d) => d.path)).toEqual(['body.name']),
    },
    {
      name: 'a name longer than 50 characters',
      run: () => createTag(ws, { name: 'x'.repeat(51) }),
      status: 400,
      check: (b) => expect(b.details?.map((d) => d.path)).toEqual(['body.name']),
    },
    {
      name: 'an unknown field on create',
      run: () => createTag(ws, { name: 'New', colour: '#fff' }),
      status: 400,
      check: (b) => expect(b.details).toEqual([{ path: 'body.colour', message: 'Unknown field' }]),
    },
    {
      name: 'an unknown field on update',
      run: () =>
        service.request('PATCH', tagPath(ws.orgId, tag.id), {
          token: ws.token,
          body: { orgId: other.orgId },
        }),
      status: 400,
      check: (b) => expect(b.details).toEqual([{ path: 'body.orgId', message: 'Unknown field' }]),
    },
    {
      name: 'a bad colour on create',
      run: () => createTag(ws, { name: 'New', color: 'orange' }),
      status: 400,
      check: (b) => expect(b.details?.map((d) => d.path)).toEqual(['body.color']),
    },
    {
      name: 'a bad colour on update',
      run: () =>
        service.request('PATCH', tagPath(ws.orgId, tag.id), { token: ws.token, body: { color: '#12345' } }),
      status: 400,
      check: (b) => expect(b.details?.map((d) => d.path)).toEqual(['body.color']),
    },
    {
      name: 'a null name on update',
      run: () =>
        service.request('PATCH', tagPath(ws.orgId, tag.id), { token: ws.token, body: { name: null } }),
      status: 400,
      check: (b) => expect(b.details?.map((d) => d.path)).toEqual(['body.name']),
    },
    {
      name: 'a tag id that is not a uuid (PATCH)',
      run: () => service.request('PATCH', tagPath(ws.orgId, 'not-a-uuid'), { token: ws.token, body: {} }),
      status: 400,
      check: (b) => expect(b.details?.map((d) => d.path)).toEqual(['param.tagId']),
    },
    {
      name: 'a tag id that is not a uuid (DELETE)',
      run: () => service.request('DELETE', tagPath(ws.orgId, '123'), { token: ws.token }),
      status: 400,
      check: (b) => expect(b.details?.map((d) => d.path)).toEqual(['param.tagId']),
    },
    {
      name: 'an unknown tag id (PATCH)',
      run: () =>
        service.request('PATCH', tagPath(ws.orgId, randomUUID()), { token: ws.token, body: { name: 'X' } }),
      status: 404,
      check: (b) => expect(b.error).toBe('Tag not found'),
    },
    {
      name: 'an unknown tag id (DELETE)',
      run: () => service.request('DELETE', tagPath(ws.orgId, randomUUID()), { token: ws.token }),
      status: 404,
    },
    {
      name: "another workspace's tag id with this workspace's token (PATCH)",
      run: () =>
        service.request('PATCH', tagPath(ws.orgId, otherTag.id), { token: ws.token, body: { name: 'Mine' } }),
      status: 404,
    },
    {
      name: "another workspace's tag id with this workspace's token (DELETE)",
      run: () => service.request('DELETE', tagPath(ws.orgId, otherTag.id), { token: ws.token }),
      status: 404,
    },
    {
      name: 'a token of another workspace (GET)',
      run: () => service.request('GET', tagsPath(ws.orgId), { token: other.token }),
      status: 403,
    },
    {
      name: 'a token of another workspace (POST)',
      run: () =>
        service.request('POST', tagsPath(ws.orgId), { token: other.token, body: { name: 'Intruder' } }),
      status: 403,
    },
    {
      name: 'a token of another workspace (DELETE)',
      run: () => service.request('DELETE', tagPath(ws.orgId, tag.id), { token: other.token }),
      status: 403,
    },
    {
      name: 'a viewer creating',
      run: () =>
        service.request('POST', tagsPath(ws.orgId), { token: viewerToken, body: { name: 'Viewer' } }),
      status: 403,
    },
    {
      name: 'a viewer renaming',
      run: () =>
        service.request('PATCH', tagPath(ws.orgId, tag.id), { token: viewerToken, body: { name: 'Viewer' } }),
      status: 403,
    },
    {
      name: 'a viewer deleting',
      run: () => service.request('DELETE', tagPath(ws.orgId, tag.id), { token: viewerToken }),
      status: 403,
    },
    {
      name: 'no token (GET)',
      run: () => service.request('GET', tagsPath(ws.orgId)),
      status: 401,
    },
    {
      name: 'no token (POST)',
      run: () => service.request('POST', tagsPath(ws.orgId), { body: { name: 'Anonymous' } }),
      status: 401,
    },
    {
      name: 'a duplicate name, in another case and with spaces',
      run: () => createTag(ws, { name: '  SALES ' }),
      status: 409,
      check: (b) =>
        expect(b).toMatchObject({ code: 'tag_name_taken', error: expect.stringContaining('"Sales"') }),
    },
    {
      name: 'a rename to a name another tag has',
      run: () =>
        service.request('PATCH', tagPath(ws.orgId, tag.id), { token: ws.token, body: { name: 'launch' } }),
      status: 409,
      check: (b) =>
        expect(b).toMatchObject({ code: 'tag_name_taken', error: expect.stringContaining('"Launch"') }),
    },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const before = await eventCount(service);
      const listBefore = await list(ws);
      const res = await c.run();
      expect(res.status).toBe(c.status);
      const body = (await res.json()) as ErrorBody;
      expect(typeof body.error).toBe('string');
      c.check?.(body);
      expect(await eventCount(service)).toBe(before);
      expect(await list(ws)).toEqual(listBefore);
      expect(await list(other)).toEqual([otherTag]);
    });
  }

  test('a viewer may list', async () => {
    const res = await service.request('GET', tagsPath(ws.orgId), { token: viewerToken });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: TagBody[] }).data.map((t) => t.name)).toEqual(['Launch', 'Sales']);
  });

  test('an editor may write', async () => {
    const editor = await service.userToken(undefined, { orgId: ws.orgId, role: 'editor' });
    const res = await createTag({ orgId: ws.orgId, token: editor.token }, { name: 'By editor' });
    expect(res.status).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  test('POST: the same key and body answers the first response and creates one tag; another body is refused', async () => {
    const ws = await newWorkspace();
    const key = `tag-${randomUUID()}`;
    const first = await createTag(ws, { name: 'Once', color: '#abc' }, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    const again = await createTag(ws, { name: 'Once', color: '#abc' }, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);
    expect(await list(ws)).toHaveLength(1);

    const before = await eventCount(service);
    const other = await createTag(ws, { name: 'Twice' }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await eventCount(service)).toBe(before);
  });

  test('POST: concurrent requests with one key create one tag and answer alike', async () => {
    const ws = await newWorkspace();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => createTag(ws, { name: 'Race' }, { 'idempotency-key': 'race-key' })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
    const bodies = await Promise.all(responses.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(await list(ws)).toHaveLength(1);
  });

  test('PATCH and DELETE replay their first answer, also once the tag is gone', async () => {
    const ws = await newWorkspace();
    const tag = await created(ws, { name: 'Temp' });
    const patch = () =>
      service.request('PATCH', tagPath(ws.orgId, tag.id), {
        token: ws.token,
        body: { color: '#123456' },
        headers: { 'idempotency-key': 'patch-1' },
      });
    const firstPatch = await patch();
    expect(firstPatch.status).toBe(200);
    const patchBody = await firstPatch.text();
    const del = () =>
      service.request('DELETE', tagPath(ws.orgId, tag.id), {
        token: ws.token,
        headers: { 'idempotency-key': 'delete-1' },
      });
    const firstDelete = await del();
    expect(firstDelete.status).toBe(200);
    const deleteBody = await firstDelete.text();

    const before = await eventCount(service);
    const patchAgain = await patch();
    expect(patchAgain.status).toBe(200);
    expect(patchAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(await patchAgain.text()).toBe(patchBody);
    const deleteAgain = await del();
    expect(deleteAgain.status).toBe(200);
    expect(deleteAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(await deleteAgain.text()).toBe(deleteBody);
    expect(await eventCount(service)).toBe(before);
  });

  test('DELETE: concurrent requests with one key all answer the deleted tag', async () => {
    const ws = await newWorkspace();
    const tag = await created(ws, { name: 'Doomed' });
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        service.request('DELETE', tagPath(ws.orgId, tag.id), {
          token: ws.token,
          headers: { 'idempotency-key': 'delete-race' },
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
    const bodies = await Promise.all(responses.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toEqual({ data: tag });
    expect(await list(ws)).toEqual([]);
  });
});
