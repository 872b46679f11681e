// The context library against the sandbox Notion of the embedded default (no NOTION_CLIENT_ID), end to end as the
// README shows it: oauth/start answers the sandbox consent URL, the consent sends the browser on to the callback,
// which connects the source; its pages are listed (and searched), synced into documents (nested blocks as plain
// text), a re-sync updates rather than duplicates and keeps the person's disclosure, documents are made public or
// deleted, and disconnecting revokes the token and keeps the documents. Roles and the refused fields too.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxNotionPages } from '../../../infra/notion/sandbox.js';
import { browserCookieOf, connectSandboxNotion } from '../../support/context.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.stop());

interface Source {
  id: string;
  status: string;
  workspaceName: string | null;
  externalWorkspaceId: string | null;
  lastSyncedAt: string | null;
  lastError: string | null;
}
interface Document {
  id: string;
  sourceId: string;
  externalId: string;
  title: string;
  contentText: string;
  enabled: boolean;
  disclosure: string;
  contentUrl: string | null;
}

const req = (ws: TestWorkspace, method: string, path: string, body?: unknown, token = ws.tokens.owner) =>
  service.request(method, `/v1/orgs/${ws.orgId}/context${path}`, {
    token,
    ...(body !== undefined ? { body } : {}),
  });
async function data<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return ((await res.json()) as { data: T }).data;
}

describe('the sandbox Notion, end to end', () => {
  test('connect, list pages, sync, make one public, re-sync, delete, disconnect', async () => {
    const ws = await createTestWorkspace(service);
    const connected = await connectSandboxNotion(service, ws);
    expect(connected.status).toBe('connected');
    expect(connected.redirectUri).toBe('http://localhost:3000/settings/context');
    expect(connected.source).toMatchObject({
      status: 'connected',
      sourceType: 'notion',
      workspaceName: 'Sandbox Notion',
      externalWorkspaceId: 'sandbox-notion-workspace',
      lastError: null,
    });
    const sourceId = connected.source.id;
    const { sources } = await data<{ sources: Source[] }>(await req(ws, 'GET', '/sources'));
    expect(sources.map((s) => [s.id, s.status])).toEqual([[sourceId, 'connected']]);

    // The token is sealed: the row holds the cipher's output, not the sandbox token.
    const row = await service.runtime.database.db
      .withTables<{ context_source_tokens: { source_id: string; sealed: string } }>()
      .selectFrom('context_source_tokens')
      .select('sealed')
      .where('source_id', '=', sourceId)
      .executeTakeFirstOrThrow();
    expect(row.sealed).toMatch(/^v\d+\./);
    expect(row.sealed).not.toContain('sandbox-notion-token');

    const { pages } = await data<{ pages: { id: string; title: string }[] }>(
      await req(ws, 'GET', `/sources/${sourceId}/pages`),
    );
    expect(pages.map((p) => p.title)).toEqual(sandboxNotionPages.map((p) => p.title));
    const searched = await data<{ pages: { title: string }[] }>(
      await req(ws, 'GET', `/sources/${sourceId}/pages?query=principles`),
    );
    expect(searched.pages.map((p) => p.title)).toEqual(['Product principles']);

    const [overview, principles, pricing] = pages;
    const unknown = '5a1d0c1e-0009-4c3b-9e55-0000000000ff';
    const sync = await data<{ synced: Document[]; failed: { pageId: string; error: string }[] }>(
      await req(ws, 'POST', `/sources/${sourceId}/sync`, {
        // Dashes or none, one page twice: one document.
        pageIds: [overview!.id, principles!.id, principles!.id.replace(/-/g, ''), pricing!.id, unknown],
      }),
    );
    expect(sync.synced.map((d) => d.title)).toEqual([
      'Company overview',
      'Product principles',
      'Pricing notes (internal)',
    ]);
    expect(sync.failed).toEqual([{ pageId: unknown, error: 'page_not_shared' }]);
    // New documents are enabled and private until a person makes them public.
    expect(sync.synced.every((d) => d.enabled && d.disclosure === 'private')).toBe(true);
    // Nested blocks as plain text: a nested list item indented, a numbered list, a toggle's children, a to-do.
    expect(sync.synced[0]!.contentText).toBe(
      [
        'Who we are',
        'Acme Studio builds a scheduling tool for small design teams.',
        '- Founded in Lisbon in 2021',
        '  - Twelve people, fully remote',
        '- Customers in 30 countries',
        '> Plan less, ship more.',
      ].join('\n'),
    );
    expect(sync.synced[1]!.contentText).toContain(
      '1. Every feature ships behind a weekly release train\n2. Defaults',
    );
    expect(sync.synced[1]!.contentText).toContain('Why weekly releases\n  Small releases are easy');
    expect(sync.synced[1]!.contentText).toContain('  [x] Write the release notes on Friday');
    expect(sync.synced[2]!.contentText).toContain('Plan | Price\nSolo | 9 EUR\nTeam | 29 EUR');

    const overviewDoc = sync.synced[0]!;
    const made = await data<Document>(
      await req(ws, 'PATCH', `/documents/${overviewDoc.id}`, { disclosure: 'public' }),
    );
    expect(made).toMatchObject({ id: overviewDoc.id, disclosure: 'public', enabled: true });

    // A re-sync updates the same documents and keeps the person's disclosure.
    const again = await data<{ synced: Document[] }>(
      await req(ws, 'POST', `/sources/${sourceId}/sync`, { pageIds: [overview!.id] }),
    );
    expect(again.synced).toEqual([expect.objectContaining({ id: overviewDoc.id, disclosure: 'public' })]);
    const listed = await data<{ documents: Document[] }>(await req(ws, 'GET', '/documents'));
    expect(listed.documents).toHaveLength(3);

    const pricingDoc = sync.synced[2]!;
    const deleted = await data<Document>(await req(ws, 'DELETE', `/documents/${pricingDoc.id}`));
    expect(deleted.id).toBe(pricingDoc.id);
    expect((await req(ws, 'DELETE', `/documents/${pricingDoc.id}`)).status).toBe(404);
    expect(
      (await data<{ documents: Document[] }>(await req(ws, 'GET', '/documents'))).documents,
    ).toHaveLength(2);

    const source = await data<Source>(await req(ws, 'DELETE', `/sources/${sourceId}`));
    expect(source).toMatchObject({ id: sourceId, status: 'disconnected', lastError: null });
    // Disconnecting again answers the source as it is.
    expect((await data<Source>(await req(ws, 'DELETE', `/sources/${sourceId}`))).status).toBe('disconnected');
    // The token is forgotten; pages and syncs are refused; the documents stay.
    const tokens = await service.runtime.database.db
      .withTables<{ context_source_tokens: { source_id: string } }>()
      .selectFrom('context_source_tokens')
      .select('source_id')
      .where('source_id', '=', sourceId)
      .execute();
    expect(tokens).toEqual([]);
    const refused = await req(ws, 'GET', `/sources/${sourceId}/pages`);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe('source_disconnected');
    expect(
      (await data<{ documents: Document[] }>(await req(ws, 'GET', '/documents'))).documents,
    ).toHaveLength(2);

    // Connecting the same Notion workspace again reconnects the same source.
    const back = await connectSandboxNotion(service, ws);
    expect(back.source).toMatchObject({ id: sourceId, status: 'connected' });
  });

  test('oauth/start refuses the social accounts’ fields and foreign redirects, naming them; the state is single use', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    const res = await req(ws, 'POST', '/sources/notion/oauth/start', {
      redirectUri: 'https://evil.example/steal',
      linkedinTarget: 'page',
      blueskyHandle: 'me.bsky.social',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: { path: string }[] };
    expect(body.details.map((d) => d.path).sort()).toEqual([
      'body.blueskyHandle',
      'body.linkedinTarget',
      'body.redirectUri',
    ]);
    expect(await eventCount(service)).toBe(before);

    const started = await req(ws, 'POST', '/sources/notion/oauth/start', {
      redirectUri: 'http://localhost:3000/back',
    });
    const cookie = browserCookieOf(started);
    const start = await data<{ authorizationUrl: string; state: string }>(started);
    const consent = new URL(start.authorizationUrl);
    // The consent sends the browser only to this service's callback.
    const wrong = new URL(consent);
    wrong.searchParams.set('redirect_uri', 'https://evil.example/callback');
    expect((await service.request('GET', `${wrong.pathname}${wrong.search}`)).status).toBe(400);
    // Denied: nothing is connected.
    const denied = new URL(consent);
    denied.searchParams.set('deny', '1');
    const deniedRedirect = new URL(
      (await service.request('GET', `${denied.pathname}${denied.search}`)).headers.get('location')!,
    );
    const deniedAnswer = await data<{ status: string; error: string }>(
      await service.request('GET', `${deniedRedirect.pathname}${deniedRedirect.search}`, {
        headers: { cookie },
      }),
    );
    expect(deniedAnswer).toMatchObject({ status: 'denied', error: 'access_denied' });
    // The state is used up: the grant that follows finds nothing to complete.
    const granted = new URL(
      (await service.request('GET', `${consent.pathname}${consent.search}`)).headers.get('location')!,
    );
    const late = await data<{ status: string; error: string }>(
      await service.request('GET', `${granted.pathname}${granted.search}`, { headers: { cookie } }),
    );
    expect(late).toMatchObject({ status: 'error', error: 'invalid_state' });
    expect((await data<{ sources: Source[] }>(await req(ws, 'GET', '/sources'))).sources).toEqual([]);
    // A malformed callback is answered in the same shape.
    const malformed = await data<{ status: string; error: string }>(
      await service.request('GET', '/v1/context/oauth/notion/callback?state=x'),
    );
    expect(malformed).toMatchObject({ status: 'error', error: 'invalid_request' });
  });

  test('only the browser that called oauth/start completes it; another one connects nothing and leaves the state open', async () => {
    const ws = await createTestWorkspace(service);
    const started = await req(ws, 'POST', '/sources/notion/oauth/start', {
      redirectUri: 'http://localhost:3000/back',
    });
    const cookie = browserCookieOf(started);
    const { authorizationUrl } = await data<{ authorizationUrl: string }>(started);
    const consent = new URL(authorizationUrl);
    const callback = new URL(
      (await service.request('GET', `${consent.pathname}${consent.search}`)).headers.get('location')!,
    );
    const path = `${callback.pathname}${callback.search}`;
    // A forwarded link opened in another browser (no cookie, or another authorization's).
    for (const headers of [{}, { cookie: cookie.replace(/=.*/, '=someone-elses-state') }] as Record<
      string,
      string
    >[])
      expect(
        await data<{ status: string; error: string; redirectUri: string }>(
          await service.request('GET', path, { headers }),
        ),
      ).toMatchObject({
        status: 'error',
        error: 'browser_mismatch',
        redirectUri: 'http://localhost:3000/back',
      });
    expect((await data<{ sources: unknown[] }>(await req(ws, 'GET', '/sources'))).sources).toEqual([]);
    // The starter's browser still completes it, and the cookie is cleared.
    const done = await service.request('GET', path, { headers: { cookie } });
    expect(done.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await data<{ status: string }>(done)).status).toBe('connected');
  });

  test('roles: editors sync and curate documents, only owners and admins connect and disconnect, viewers read', async () => {
    const ws = await createTestWorkspace(service);
    const { source } = await connectSandboxNotion(service, ws);
    const page = sandboxNotionPages[1]!.id;
    for (const role of ['editor', 'reviewer', 'viewer'] as const)
      expect(
        (
          await req(
            ws,
            'POST',
            '/sources/notion/oauth/start',
            { redirectUri: 'http://localhost:3000/x' },
            ws.tokens[role],
          )
        ).status,
        role,
      ).toBe(403);
    expect(
      (
        await req(
          ws,
          'POST',
          '/sources/notion/oauth/start',
          { redirectUri: 'http://localhost:3000/x' },
          ws.tokens.admin,
        )
      ).status,
    ).toBe(200);
    const synced = await data<{ synced: Document[] }>(
      await req(ws, 'POST', `/sources/${source.id}/sync`, { pageIds: [page] }, ws.tokens.editor),
    );
    const doc = synced.synced[0]!;
    expect(
      (await req(ws, 'PATCH', `/documents/${doc.id}`, { enabled: false }, ws.tokens.editor)).status,
    ).toBe(200);
    for (const role of ['reviewer', 'viewer'] as const) {
      expect(
        (await req(ws, 'PATCH', `/documents/${doc.id}`, { enabled: true }, ws.tokens[role])).status,
      ).toBe(403);
      expect(
        (await req(ws, 'POST', `/sources/${source.id}/sync`, { pageIds: [page] }, ws.tokens[role])).status,
      ).toBe(403);
      expect((await req(ws, 'GET', `/sources/${source.id}/pages`, undefined, ws.tokens[role])).status).toBe(
        403,
      );
      expect((await req(ws, 'GET', '/documents', undefined, ws.tokens[role])).status).toBe(200);
      expect((await req(ws, 'GET', '/sources', undefined, ws.tokens[role])).status).toBe(200);
    }
    expect((await req(ws, 'DELETE', `/sources/${source.id}`, undefined, ws.tokens.editor)).status).toBe(403);
    expect((await req(ws, 'DELETE', `/sources/${source.id}`, undefined, ws.tokens.admin)).status).toBe(200);
  });

  test('sync checks its page ids: at most 50, Notion ids only, named', async () => {
    const ws = await createTestWorkspace(service);
    const { source } = await connectSandboxNotion(service, ws);
    const tooMany = await req(ws, 'POST', `/sources/${source.id}/sync`, {
      pageIds: Array.from({ length: 51 }, () => sandboxNotionPages[0]!.id),
    });
    expect(tooMany.status).toBe(400);
    const bad = await req(ws, 'POST', `/sources/${source.id}/sync`, {
      pageIds: [sandboxNotionPages[0]!.id, 'nope'],
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { details: { path: string }[] }).details.map((d) => d.path)).toEqual([
      'body.pageIds.1',
    ]);
  });
});
