// ORG/thoughts through the whole service (offline writer): save (201, defaults, trimming), list (status filters,
// archived hidden unless asked, newest first, paged), PATCH (edit, status as given), DELETE (drafts kept), the bad
// input battery (400 naming the field, nothing appended), roles, Idempotency-Key, read-your-writes; drafting from a
// thought into review (pending approval, the thought drafted with its group), with a carousel attached to the posts
// and a failing AI background answered as visualError; the tools of an assistant end to end.
import { mkdir, writeFile } from 'node:fs/promises';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
}, 120_000);
afterAll(async () => service?.stop());

interface Thought {
  id: string;
  orgId: string;
  text: string;
  kind: string;
  status: string;
  source: string | null;
  tags: string[];
  draftGroupIds: string[];
  lastDraftedAt: string | null;
  createdAt: string;
  updatedAt: string;
}
interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}
interface Drafts {
  thought: Thought;
  group: { id: string; status: string; title: string };
  posts: { id: string; platform: string; status: string; contentText: string; media: unknown }[];
  visual: { kind: string; images: { assetId: string }[]; documentUrl: string | null } | null;
  visualError: string | null;
  providerModel: string;
  creditsUsed: number;
  remainingCredits: number;
}
interface ErrorBody {
  error: string;
  code?: string;
  details?: { path: string; message: string }[];
}

type Role = keyof TestWorkspace['tokens'];
const call = (
  ws: TestWorkspace,
  method: string,
  rest: string,
  body?: unknown,
  options: { role?: Role; headers?: Record<string, string> } = {},
) =>
  service.request(method, `/v1/orgs/${ws.orgId}/thoughts${rest}`, {
    token: ws.tokens[options.role ?? 'owner'],
    ...(body !== undefined ? { body } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });

async function data<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return ((await res.json()) as { data: T }).data;
}
async function refused(res: Response, status: number): Promise<ErrorBody> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as ErrorBody;
}
const save = async (ws: TestWorkspace, body: Record<string, unknown>, role: Role = 'owner') =>
  data<Thought>(await call(ws, 'POST', '', body, { role }), 201);
const list = async (ws: TestWorkspace, query = '', role: Role = 'viewer') =>
  data<Page<Thought>>(await call(ws, 'GET', query, undefined, { role }));

describe('saving and listing thoughts', () => {
  test('POST saves a new thought (201) with defaults; GET lists it at once, newest first, for every member', async () => {
    const ws = await createTestWorkspace(service);
    const first = await save(ws, { text: '  Most teams ship too much at once.  ' });
    expect(first).toMatchObject({
      orgId: ws.orgId,
      text: 'Most teams ship too much at once.',
      kind: 'thought',
      status: 'new',
      source: null,
      tags: [],
      draftGroupIds: [],
      lastDraftedAt: null,
    });
    const second = await save(
      ws,
      {
        text: 'Write the changelog first.',
        kind: 'tip',
        source: 'Team retro',
        tags: ['process', 'Process', 'docs'],
      },
      'editor',
    );
    expect(second).toMatchObject({ kind: 'tip', source: 'Team retro', tags: ['process', 'docs'] });
    const page = await list(ws);
    expect(page).toMatchObject({ page: 1, limit: 20, total: 2, hasMore: false });
    expect(page.items).toEqual([second, first]);
  });

  test('status filter: active by default (archived hidden), new, drafted, archived, all; paged', async () => {
    const ws = await createTestWorkspace(service);
    const a = await save(ws, { text: 'A' });
    const b = await save(ws, { text: 'B' });
    const c = await save(ws, { text: 'C' });
    await data(await call(ws, 'PATCH', `/${a.id}`, { status: 'archived' }));
    await data(await call(ws, 'PATCH', `/${b.id}`, { status: 'drafted' }));
    const ids = (p: Page<Thought>) => p.items.map((t) => t.id);
    expect(ids(await list(ws))).toEqual([c.id, b.id]);
    expect(ids(await list(ws, '?status=active'))).toEqual([c.id, b.id]);
    expect(ids(await list(ws, '?status=new'))).toEqual([c.id]);
    expect(ids(await list(ws, '?status=drafted'))).toEqual([b.id]);
    expect(ids(await list(ws, '?status=archived'))).toEqual([a.id]);
    expect(ids(await list(ws, '?status=all'))).toEqual([c.id, b.id, a.id]);
    const paged = await list(ws, '?status=all&limit=2&page=2');
    expect(paged).toMatchObject({ page: 2, limit: 2, total: 3, hasMore: false });
    expect(ids(paged)).toEqual([a.id]);
    expect((await list(ws, '?status=all&limit=2')).hasMore).toBe(true);
    await refused(await call(ws, 'GET', '?status=gone'), 400);
  });

  test('bad input is refused naming the field, and appends nothing', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    const cases: [unknown, string][] = [
      [{}, 'body.text'],
      [{ text: '   ' }, 'body.text'],
      [{ text: 'x'.repeat(5001) }, 'body.text'],
      [{ text: 'ok', kind: 'rant' }, 'body.kind'],
      [{ text: 'ok', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'body.tags'],
      [{ text: 'ok', tags: ['x'.repeat(51)] }, 'body.tags.0'],
      [{ text: 'ok', source: 's'.repeat(501) }, 'body.source'],
      [{ text: 'ok', extra: true }, 'body'],
    ];
    for (const [body, path] of cases) {
      const error = await refused(await call(ws, 'POST', '', body), 400);
      expect(error.details?.map((d) => d.path).join(), JSON.stringify(body).slice(0, 80)).toContain(path);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('roles: reviewers and viewers read but do not write; an Idempotency-Key saves once', async () => {
    const ws = await createTestWorkspace(service);
    await refused(await call(ws, 'POST', '', { text: 'x' }, { role: 'viewer' }), 403);
    await refused(await call(ws, 'POST', '', { text: 'x' }, { role: 'reviewer' }), 403);
    const headers = { 'Idempotency-Key': 'save-once' };
    const first = await data<Thought>(await call(ws, 'POST', '', { text: 'Once' }, { headers }), 201);
    const again = await call(ws, 'POST', '', { text: 'Once' }, { headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await data<Thought>(again, 201)).toEqual(first);
    expect((await list(ws)).total).toBe(1);
    await refused(await call(ws, 'POST', '', { text: 'Other' }, { headers }), 422);
  });
});

describe('editing and deleting', () => {
  test('PATCH edits text, kind and tags (omitted fields stay) and sets the status as given', async () => {
    const ws = await createTestWorkspace(service);
    const t = await save(ws, { text: 'Old', tags: ['a'] });
    const edited = await data<Thought>(await call(ws, 'PATCH', `/${t.id}`, { text: 'New', kind: 'opinion' }));
    expect(edited).toMatchObject({ text: 'New', kind: 'opinion', tags: ['a'], status: 'new' });
    expect(edited.updatedAt >= t.updatedAt).toBe(true);
    const archived = await data<Thought>(
      await call(ws, 'PATCH', `/${t.id}`, { status: 'archived', tags: [] }),
    );
    expect(archived).toMatchObject({ status: 'archived', tags: [] });
    const back = await data<Thought>(
      await call(ws, 'PATCH', `/${t.id}`, { status: 'new' }, { role: 'editor' }),
    );
    expect(back.status).toBe('new');
    // Nothing changed: answered as it is, nothing appended.
    const before = await eventCount(service);
    expect(await data<Thought>(await call(ws, 'PATCH', `/${t.id}`, {}))).toEqual(back);
    expect(await eventCount(service)).toBe(before);
    await refused(await call(ws, 'PATCH', `/${t.id}`, { status: 'gone' }), 400);
    await refused(await call(ws, 'PATCH', `/${t.id}`, { text: '' }), 400);
    await refused(await call(ws, 'PATCH', `/${t.id}`, { text: 'x' }, { role: 'viewer' }), 403);
    await refused(await call(ws, 'PATCH', '/00000000-0000-4000-8000-000000000000', { text: 'x' }), 404);
    await refused(await call(ws, 'PATCH', '/not-a-uuid', { text: 'x' }), 400);
  });

  test("another workspace's thought is not found", async () => {
    const [ws, other] = await Promise.all([createTestWorkspace(service), createTestWorkspace(service)]);
    const t = await save(ws, { text: 'Mine' });
    await refused(await call(other, 'PATCH', `/${t.id}`, { text: 'Yours' }), 404);
    await refused(await call(other, 'DELETE', `/${t.id}`), 404);
    await refused(await call(other, 'POST', `/${t.id}/drafts`, {}), 404);
  });

  test('DELETE answers the thought as it was; it leaves every list; the drafts made from it stay in review', async () => {
    const ws = await createTestWorkspace(service);
    const t = await save(ws, { text: 'Delete me after drafting.' });
    const drafts = await data<Drafts>(await call(ws, 'POST', `/${t.id}/drafts`, {}));
    const gone = await data<Thought>(await call(ws, 'DELETE', `/${t.id}`));
    expect(gone).toMatchObject({ id: t.id, status: 'drafted', draftGroupIds: [drafts.group.id] });
    expect((await list(ws, '?status=all')).items).toEqual([]);
    await refused(await call(ws, 'DELETE', `/${t.id}`), 404);
    await refused(await call(ws, 'PATCH', `/${t.id}`, { text: 'x' }), 404);
    await refused(await call(ws, 'POST', `/${t.id}/drafts`, {}), 404);
    const group = await service.request('GET', `${ws.base}/post-groups/${drafts.group.id}`, {
      token: ws.tokens.viewer,
    });
    expect((await data<{ group: { status: string } }>(group)).group.status).toBe('pending_approval');
  });
});

describe('POST ORG/thoughts/{thoughtId}/drafts (offline writer)', () => {
  test('X and LinkedIn posts in review as pending approval; the thought is drafted with its group', async () => {
    const ws = await createTestWorkspace(service);
    const t = await save(ws, {
      text: 'Shipping weekly beats shipping perfectly. Small releases surface problems early. Big releases hide them.',
      kind: 'opinion',
    });
    const before = await eventCount(service);
    const res = await call(ws, 'POST', `/${t.id}/drafts`, undefined, { role: 'editor' });
    const drafts = await data<Drafts>(res);
    expect(drafts.group.status).toBe('pending_approval');
    expect(drafts.posts.map((p) => p.platform)).toEqual(['x', 'linkedin']);
    expect(drafts.posts.every((p) => p.status === 'pending_approval' && p.contentText.length > 0)).toBe(true);
    expect(drafts.posts[0]!.contentText.length).toBeLessThanOrEqual(280);
    expect(drafts.posts[1]!.contentText.toLowerCase()).toContain('shipping weekly beats shipping perfectly');
    expect(drafts).toMatchObject({
      visual: null,
      visualError: null,
      providerModel: 'offline',
      creditsUsed: 0,
      thought: { id: t.id, status: 'drafted', draftGroupIds: [drafts.group.id] },
    });
    expect(drafts.remainingCredits).toBeGreaterThan(0);
    expect(drafts.thought.lastDraftedAt).toEqual(expect.any(String));
    expect(await eventCount(service)).toBeGreaterThan(before);
    // Read-your-writes: the list shows the thought drafted at once.
    expect((await list(ws, '?status=drafted')).items.map((x) => x.id)).toEqual([t.id]);

    // Drafting again adds a second group; the thought keeps both.
    const again = await data<Drafts>(
      await call(ws, 'POST', `/${t.id}/drafts`, { platforms: ['threads'], guidance: 'shorter' }),
    );
    expect(again.posts.map((p) => p.platform)).toEqual(['threads']);
    expect(again.thought.draftGroupIds).toEqual([drafts.group.id, again.group.id]);
  });

  test('an Idempotency-Key drafts once: the same group replayed', async () => {
    const ws = await createTestWorkspace(service);
    const t = await save(ws, { text: 'Retries must be safe.' });
    const headers = { 'Idempotency-Key': 'draft-once' };
    const first = await data<Drafts>(await call(ws, 'POST', `/${t.id}/drafts`, {}, { headers }));
    const again = await call(ws, 'POST', `/${t.id}/drafts`, {}, { headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await data<Drafts>(again)).group.id).toBe(first.group.id);
    const thought = (await list(ws)).items[0]!;
    expect(thought.draftGroupIds).toEqual([first.group.id]);
  });

  test('refusals: archived 409, unknown 404, bad platforms or visual 400, viewers and reviewers 403; nothing appended', async () => {
    const ws = await createTestWorkspace(service);
    const t = await save(ws, { text: 'Archived idea' });
    await data(await call(ws, 'PATCH', `/${t.id}`, { status: 'archived' }));
    const before = await eventCount(service);
    const archived = await refused(await call(ws, 'POST', `/${t.id}/drafts`, {}), 409);
    expect(archived.code).toBe('thought_archived');
    await refused(await call(ws, 'POST', '/00000000-0000-4000-8000-000000000000/drafts', {}), 404);
    const live = await save(ws, { text: 'Live idea' });
    const afterSave = await eventCount(service);
    const bad: [unknown, string][] = [
      [{ platforms: ['tiktok'] }, 'body.platforms.0'],
      [{ platforms: [] }, 'body.platforms'],
      [{ visual: 'video' }, 'body.visual'],
      [{ aiBackground: 'yes' }, 'body.aiBackground'],
    ];
    for (const [body, path] of bad) {
      const error = await refused(await call(ws, 'POST', `/${live.id}/drafts`, body), 400);
      expect(error.details?.map((d) => d.path)).toContain(path);
    }
    await refused(await call(ws, 'POST', `/${live.id}/drafts`, {}, { role: 'viewer' }), 403);
    await refused(await call(ws, 'POST', `/${live.id}/drafts`, {}, { role: 'reviewer' }), 403);
    expect(await eventCount(service)).toBe(afterSave);
    expect(afterSave - before).toBeGreaterThan(0);
  });

  test('a carousel is rendered from the drafts and attached to the posts (a PDF on LinkedIn, slides on X)', async () => {
    const ws = await createTestWorkspace(service);
    const t = await save(ws, {
      text: 'Three habits of calm teams. They write things down. They ship small. They say no often.',
      kind: 'tip',
    });
    const drafts = await data<Drafts>(await call(ws, 'POST', `/${t.id}/drafts`, { visual: 'carousel' }));
    expect(drafts.visualError).toBeNull();
    expect(drafts.visual?.kind).toBe('carousel');
    expect(drafts.visual?.images.length).toBeGreaterThanOrEqual(2);
    expect(drafts.visual?.documentUrl).toEqual(expect.any(String));
    const media = Object.fromEntries(
      drafts.posts.map((p) => [p.platform, p.media as { kind: string } | null]),
    );
    expect(media.linkedin?.kind).toBe('document');
    expect(media.x?.kind).toBe('images');
    expect(drafts.group.status).toBe('pending_approval');
  }, 60_000);

  test("the docs example's carousel: one PNG slide per slide, in the carousel format's size (UPDATE_EXAMPLES=1 writes them to docs/examples/thought-drafts/)", async () => {
    const ws = await createTestWorkspace(service, 'Ledgerly');
    // The third fixture thought of docs/examples/offline-thought-drafts.md.
    const t = await save(ws, {
      text:
        'Make the close checklist the single source of truth. Give every task one owner. Put the due day next to ' +
        'each task. Review what slipped in a 15-minute retro after each close.',
      kind: 'tip',
    });
    const drafts = await data<Drafts>(await call(ws, 'POST', `/${t.id}/drafts`, { visual: 'carousel' }));
    expect(drafts.visualError).toBeNull();
    const images = (
      drafts.visual as unknown as { images: { url: string; width: number; height: number; page?: number }[] }
    ).images;
    expect(images.length).toBeGreaterThanOrEqual(3);
    const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const folder = 'docs/examples/thought-drafts';
    if (process.env.UPDATE_EXAMPLES === '1') await mkdir(folder, { recursive: true });
    for (const [i, image] of images.entries()) {
      // The asset URL redirects to the stored file's signed URL (both served by the app here).
      const get = (href: string) => {
        const url = new URL(href, 'http://localhost');
        return service.request('GET', url.pathname + url.search, { token: ws.tokens.owner });
      };
      let res = await get(image.url);
      if (res.status === 302) res = await get(res.headers.get('location')!);
      expect(res.status, image.url).toBe(200);
      const png = Buffer.from(await res.arrayBuffer());
      expect(png.subarray(0, 8).equals(pngSignature)).toBe(true);
      // The IHDR chunk's width and height.
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([image.width, image.height]);
      if (process.env.UPDATE_EXAMPLES === '1') await writeFile(`${folder}/slide-${i + 1}.png`, png);
    }
  }, 60_000);

  test('a visual that fails (an AI background with no image provider) leaves the text drafts and answers visualError', async () => {
    const ws = await createTestWorkspace(service);
    const t = await save(ws, { text: 'Good defaults beat settings.' });
    const drafts = await data<Drafts>(
      await call(ws, 'POST', `/${t.id}/drafts`, { visual: 'image', aiBackground: true }),
    );
    expect(drafts.visual).toBeNull();
    expect(drafts.visualError).toMatch(/AI backgrounds are not available/);
    expect(drafts.posts).toHaveLength(2);
    expect(drafts.posts.every((p) => p.media === null)).toBe(true);
    expect(drafts.thought.status).toBe('drafted');
  });
});

describe('the tools', () => {
  test('an assistant saves a thought, drafts from it and the group waits in review', async () => {
    const ws = await createTestWorkspace(service);
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const names = (await assistant.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['list_thoughts', 'save_thought', 'update_thought', 'draft_post_from_thought']),
    );
    const saved = (await assistant.client.callTool({
      name: 'save_thought',
      arguments: { text: 'Docs are a product.', kind: 'opinion', tags: ['docs'] },
    })) as CallToolResult;
    expect(saved.isError).toBeFalsy();
    const thought = saved.structuredContent as unknown as Thought;
    expect(thought).toMatchObject({ text: 'Docs are a product.', status: 'new' });

    const drafted = (await assistant.client.callTool({
      name: 'draft_post_from_thought',
      arguments: { thoughtId: thought.id, platforms: ['x', 'linkedin'] },
    })) as CallToolResult;
    expect(drafted.isError, JSON.stringify(drafted.content)).toBeFalsy();
    const out = drafted.structuredContent as unknown as Drafts;
    expect(out.group.status).toBe('pending_approval');
    expect((drafted.content[0] as { text: string }).text).toMatch(/pending_approval/);
    const group = await service.request('GET', `${ws.base}/post-groups/${out.group.id}`, {
      token: ws.tokens.reviewer,
    });
    expect((await data<{ group: { status: string } }>(group)).group.status).toBe('pending_approval');

    const updated = (await assistant.client.callTool({
      name: 'update_thought',
      arguments: { thoughtId: thought.id, status: 'archived' },
    })) as CallToolResult;
    expect((updated.structuredContent as unknown as Thought).status).toBe('archived');
    const listed = (await assistant.client.callTool({
      name: 'list_thoughts',
      arguments: { status: 'all' },
    })) as CallToolResult;
    expect((listed.structuredContent as unknown as Page<Thought>).items.map((t) => t.id)).toEqual([
      thought.id,
    ]);
  });

  test('without posts:write an assistant lists thoughts but has no writing tools', async () => {
    const ws = await createTestWorkspace(service);
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: [],
    });
    const names = (await assistant.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_thoughts');
    for (const name of ['save_thought', 'update_thought', 'draft_post_from_thought'])
      expect(names).not.toContain(name);
  });
});
