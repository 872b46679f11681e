// The context library against a locally served Notion API (the documented endpoints and answers): OAuth (the
// authorize URL, the token exchange with the client's basic auth, revocation on disconnect), search paginated by
// start_cursor, a page's blocks paginated and nested (read recursively into plain text), a 429 with Retry-After
// (retried, then a page that stays limited fails alone and stops the sync), a revoked token (401: the source goes
// to error with lastError, listing answers 409, a sync fails every page; reconnecting brings it back), and a
// revocation Notion fails (the source is still disconnected, the failure in lastError).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { browserCookieOf } from '../../support/context.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

const clientId = 'served-client';
const clientSecret = 'served-secret';
const id = (n: number) => `0000000${n}-aaaa-4bbb-8ccc-00000000000${n}`;

interface Call {
  method: string;
  path: string;
  auth: string | undefined;
  version: string | undefined;
  body: Record<string, unknown> | null;
}

/** Notion's API as documented, from memory of what each endpoint answers. */
class ServedNotion {
  server!: Server;
  base = '';
  calls: Call[] = [];
  /** Access tokens Notion no longer accepts. */
  revoked = new Set<string>();
  /** Tokens revoked through POST /v1/oauth/revoke. */
  revokeCalls: string[] = [];
  failRevoke = false;
  issued = 0;
  /** Blocks-children requests answered 429 before the real answer, by block id (Infinity: always). */
  limited = new Map<string, number>();

  private pages = [1, 2, 3, 4, 5].map((n) => ({
    object: 'page',
    id: id(n),
    url: `https://www.notion.so/Page-${n}`,
    last_edited_time: `2026-11-0${n}T10:00:00.000Z`,
    properties: {
      Name: { id: 'title', type: 'title', title: [{ type: 'text', plain_text: `Served page ${n}` }] },
    },
  }));

  private text = (type: string, words: string, children = false, extra: object = {}) => ({
    object: 'block',
    id: `${type}-${words.replace(/\W+/g, '-').toLowerCase()}`,
    type,
    has_children: children,
    [type]: { rich_text: [{ type: 'text', plain_text: words }], ...extra },
  });

  /** Page 1: two answers of root blocks (pagination), a list item with a child with a child (nesting). */
  private blocks(blockId: string, cursor: string | undefined) {
    if (blockId === id(1))
      return cursor === undefined
        ? {
            results: [
              this.text('heading_2', 'Served heading'),
              this.text('bulleted_list_item', 'Outer item', true),
            ],
            has_more: true,
            next_cursor: 'root-2',
          }
        : { results: [this.text('paragraph', 'Last root paragraph')], has_more: false, next_cursor: null };
    if (blockId === 'bulleted_list_item-outer-item')
      return { results: [this.text('toggle', 'Inner toggle', true)], has_more: false, next_cursor: null };
    if (blockId === 'toggle-inner-toggle')
      return {
        results: [this.text('to_do', 'Deepest task', false, { checked: false })],
        has_more: false,
        next_cursor: null,
      };
    return { results: [this.text('paragraph', `Body of ${blockId}`)], has_more: false, next_cursor: null };
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.base);
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
    this.calls.push({
      method: req.method ?? '',
      path: url.pathname,
      auth: req.headers.authorization,
      version: req.headers['notion-version'] as string | undefined,
      body,
    });
    const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const error = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
      json(status, { object: 'error', status, code, message }, headers);
    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;

    if (url.pathname === '/v1/oauth/token' && req.method === 'POST') {
      if (req.headers.authorization !== basic) return error(401, 'unauthorized', 'Invalid client.');
      if (body?.grant_type !== 'authorization_code' || body.code !== 'good-code')
        return json(400, { error: 'invalid_grant', error_description: 'Invalid code.' });
      this.issued += 1;
      return json(200, {
        access_token: `served-token-${this.issued}`,
        token_type: 'bearer',
        refresh_token: null,
        bot_id: 'bot-1',
        workspace_id: 'served-workspace',
        workspace_name: 'Served Notion',
        workspace_icon: null,
        owner: { type: 'workspace', workspace: true },
        duplicated_template_id: null,
      });
    }
    if (url.pathname === '/v1/oauth/revoke' && req.method === 'POST') {
      if (req.headers.authorization !== basic) return error(401, 'unauthorized', 'Invalid client.');
      if (this.failRevoke) return error(503, 'service_unavailable', 'Notion is unavailable.');
      this.revokeCalls.push(String(body?.token));
      this.revoked.add(String(body?.token));
      return json(200, {});
    }
    const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
    if (!token.startsWith('served-token-') || this.revoked.has(token))
      return error(401, 'unauthorized', 'API token is invalid.');
    if (url.pathname === '/v1/search' && req.method === 'POST') {
      const query = (typeof body?.query === 'string' ? body.query : '').toLowerCase();
      const matching = this.pages.filter((p) => JSON.stringify(p.properties).toLowerCase().includes(query));
      // Two results an answer, whatever page_size asks: the client must follow next_cursor.
      const from = Number(body?.start_cursor ?? 0);
      const results = matching.slice(from, from + 2);
      const more = from + 2 < matching.length;
      return json(200, {
        object: 'list',
        type: 'page_or_data_source',
        page_or_data_source: {},
        results,
        has_more: more,
        next_cursor: more ? String(from + 2) : null,
      });
    }
    const page = /^\/v1\/pages\/([^/]+)$/.exec(url.pathname);
    if (page && req.method === 'GET') {
      const found = this.pages.find((p) => p.id === page[1]);
      return found ? json(200, found) : error(404, 'object_not_found', 'Could not find page.');
    }
    const children = /^\/v1\/blocks\/([^/]+)\/children$/.exec(url.pathname);
    if (children && req.method === 'GET') {
      const blockId = children[1]!;
      const left = this.limited.get(blockId) ?? 0;
      if (left > 0) {
        this.limited.set(blockId, left - 1);
        return error(429, 'rate_limited', 'You have been rate limited.', { 'retry-after': '1' });
      }
      return json(200, {
        object: 'list',
        type: 'block',
        block: {},
        ...this.blocks(blockId, url.searchParams.get('start_cursor') ?? undefined),
      });
    }
    return error(404, 'invalid_request_url', 'Invalid request URL.');
  }
}

let notion: ServedNotion;
let service: TestService;
beforeAll(async () => {
  notion = new ServedNotion();
  await notion.start();
  service = await startTestService({
    env: { NOTION_CLIENT_ID: clientId, NOTION_CLIENT_SECRET: clientSecret, NOTION_API_BASE_URL: notion.base },
  });
});
afterAll(async () => {
  await service?.stop();
  await new Promise((resolve) => notion?.server.close(resolve));
});

interface Source {
  id: string;
  status: string;
  workspaceName: string | null;
  lastError: string | null;
  lastSyncedAt: string | null;
}
interface Document {
  id: string;
  title: string;
  contentText: string;
  contentUrl: string | null;
  externalId: string;
}
interface Sync {
  synced: Document[];
  failed: { pageId: string; error: string }[];
}

const req = (ws: TestWorkspace, method: string, path: string, body?: unknown) =>
  service.request(method, `/v1/orgs/${ws.orgId}/context${path}`, {
    token: ws.tokens.owner,
    ...(body !== undefined ? { body } : {}),
  });
async function data<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return ((await res.json()) as { data: T }).data;
}

/** oauth/start, then Notion's redirect to our callback with the code (the consent itself is Notion's page). */
async function connect(ws: TestWorkspace, code = 'good-code') {
  const started = await req(ws, 'POST', '/sources/notion/oauth/start', {
    redirectUri: 'http://localhost:3000/back',
  });
  const cookie = browserCookieOf(started);
  const start = await data<{ authorizationUrl: string; state: string }>(started);
  const authorize = new URL(start.authorizationUrl);
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${notion.base}/v1/oauth/authorize`);
  expect(Object.fromEntries(authorize.searchParams)).toEqual({
    client_id: clientId,
    response_type: 'code',
    owner: 'user',
    redirect_uri: 'http://localhost:3000/v1/context/oauth/notion/callback',
    state: start.state,
  });
  const callback = new URLSearchParams({ state: start.state, code });
  return data<{ status: string; error?: string; source?: Source }>(
    await service.request('GET', `/v1/context/oauth/notion/callback?${callback.toString()}`, {
      headers: { cookie },
    }),
  );
}

const sourcesOf = async (ws: TestWorkspace) =>
  (await data<{ sources: Source[] }>(await req(ws, 'GET', '/sources'))).sources;

describe('against a locally served Notion', () => {
  test('OAuth exchanges the code with basic auth; a refused code connects nothing', async () => {
    const ws = await createTestWorkspace(service);
    const refused = await connect(ws, 'bad-code');
    expect(refused).toMatchObject({ status: 'error', error: 'notion_authorization_failed' });
    expect(await sourcesOf(ws)).toEqual([]);
    const from = notion.calls.length;
    const connected = await connect(ws);
    expect(connected.status).toBe('connected');
    expect(connected.source).toMatchObject({ status: 'connected', workspaceName: 'Served Notion' });
    const exchange = notion.calls.slice(from).find((c) => c.path === '/v1/oauth/token')!;
    expect(exchange.body).toEqual({
      grant_type: 'authorization_code',
      code: 'good-code',
      redirect_uri: 'http://localhost:3000/v1/context/oauth/notion/callback',
    });
  });

  test('search follows next_cursor; a page is read through paginated, nested blocks into plain text', async () => {
    const ws = await createTestWorkspace(service);
    const { source } = await connect(ws);
    const from = notion.calls.length;
    const { pages } = await data<{
      pages: { id: string; title: string; url: string; lastEditedTime: string }[];
    }>(await req(ws, 'GET', `/sources/${source!.id}/pages`));
    expect(pages.map((p) => p.title)).toEqual([1, 2, 3, 4, 5].map((n) => `Served page ${n}`));
    expect(pages[0]).toEqual({
      id: id(1),
      title: 'Served page 1',
      url: 'https://www.notion.so/Page-1',
      lastEditedTime: '2026-11-01T10:00:00.000Z',
    });
    const searches = notion.calls.slice(from).filter((c) => c.path === '/v1/search');
    expect(searches.map((c) => c.body?.start_cursor ?? null)).toEqual([null, '2', '4']);
    expect(searches[0]!.body?.filter).toEqual({ property: 'object', value: 'page' });
    expect(searches[0]!.auth).toBe('Bearer served-token-' + String(notion.issued));
    expect(searches[0]!.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const queried = await data<{ pages: { title: string }[] }>(
      await req(ws, 'GET', `/sources/${source!.id}/pages?query=page%203`),
    );
    expect(queried.pages.map((p) => p.title)).toEqual(['Served page 3']);

    const sync = await data<Sync>(await req(ws, 'POST', `/sources/${source!.id}/sync`, { pageIds: [id(1)] }));
    expect(sync.failed).toEqual([]);
    expect(sync.synced[0]).toMatchObject({
      title: 'Served page 1',
      externalId: id(1),
      contentUrl: 'https://www.notion.so/Page-1',
      contentText: [
        'Served heading',
        '- Outer item',
        '  Inner toggle',
        '    [ ] Deepest task',
        'Last root paragraph',
      ].join('\n'),
    });
    expect((await sourcesOf(ws))[0]).toMatchObject({ status: 'connected', lastError: null });
    expect((await sourcesOf(ws))[0]!.lastSyncedAt).not.toBeNull();
  });

  test('a 429 with Retry-After is waited out; a page that stays limited fails and stops the sync', async () => {
    const ws = await createTestWorkspace(service);
    const { source } = await connect(ws);
    notion.limited.set(id(2), 1);
    notion.limited.set(id(3), Number.POSITIVE_INFINITY);
    const started = Date.now();
    const sync = await data<Sync>(
      await req(ws, 'POST', `/sources/${source!.id}/sync`, { pageIds: [id(2), id(3), id(4)] }),
    );
    notion.limited.clear();
    // Page 2 was limited once and read after the wait; page 3 stayed limited; page 4 was not asked for.
    expect(sync.synced.map((d) => d.title)).toEqual(['Served page 2']);
    expect(sync.failed).toEqual([
      { pageId: id(3), error: 'notion_rate_limited' },
      { pageId: id(4), error: 'notion_rate_limited' },
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(notion.calls.filter((c) => c.path === `/v1/pages/${id(4)}`)).toEqual([]);
    expect((await sourcesOf(ws))[0]).toMatchObject({ status: 'connected' });
  });

  test('a revoked token puts the source in error; listing answers 409, a sync fails every page; reconnecting heals it', async () => {
    const ws = await createTestWorkspace(service);
    const { source } = await connect(ws);
    notion.revoked.add(`served-token-${notion.issued}`);
    const listing = await req(ws, 'GET', `/sources/${source!.id}/pages`);
    expect(listing.status).toBe(409);
    expect(((await listing.json()) as { code: string }).code).toBe('notion_token_revoked');
    const [errored] = await sourcesOf(ws);
    expect(errored).toMatchObject({ id: source!.id, status: 'error' });
    expect(errored!.lastError).toMatch(/refused the access token/);
    const sync = await data<Sync>(
      await req(ws, 'POST', `/sources/${source!.id}/sync`, { pageIds: [id(1), id(2)] }),
    );
    expect(sync).toEqual({
      synced: [],
      failed: [
        { pageId: id(1), error: 'notion_token_revoked' },
        { pageId: id(2), error: 'notion_token_revoked' },
      ],
    });
    expect((await sourcesOf(ws))[0]!.status).toBe('error');
    // Connecting again: a new token, the same source, connected, lastError cleared.
    const back = await connect(ws);
    expect(back.source).toMatchObject({ id: source!.id, status: 'connected', lastError: null });
    expect(
      (await data<Sync>(await req(ws, 'POST', `/sources/${source!.id}/sync`, { pageIds: [id(1)] }))).synced,
    ).toHaveLength(1);
  });

  test('disconnecting revokes the token at Notion; a revocation Notion fails still disconnects, recorded', async () => {
    const ws = await createTestWorkspace(service);
    const { source } = await connect(ws);
    const token = `served-token-${notion.issued}`;
    const gone = await data<Source>(await req(ws, 'DELETE', `/sources/${source!.id}`));
    expect(gone).toMatchObject({ status: 'disconnected', lastError: null });
    expect(notion.revokeCalls).toContain(token);

    const other = await createTestWorkspace(service);
    const second = await connect(other);
    notion.failRevoke = true;
    try {
      const disconnected = await data<Source>(await req(other, 'DELETE', `/sources/${second.source!.id}`));
      expect(disconnected.status).toBe('disconnected');
      expect(disconnected.lastError).toMatch(/^Revoking the token failed/);
    } finally {
      notion.failRevoke = false;
    }
  });
});
