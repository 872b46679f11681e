// LinkedIn pages: oauth/start with linkedinTarget page → the linkedin-pages callback offers a choice →
// GET and POST ORG/marketing/linkedin-pages against it. The choice is bound to its workspace and user,
// stored hashed with sealed tokens, closed once used and expiring; unknown organization ids are named.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SocialAccountView } from '../../../commands/social-accounts/social-account-commands.js';
import { sandboxLinkedinOrganizations } from '../../../infra/connectors/sandbox/index.js';
import { Browser } from '../../support/browser.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { APP_ORIGINS: 'https://app.example.org' } });
});
afterAll(async () => service?.stop());

interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}
interface Page {
  id: string;
  name: string;
  vanityName: string | null;
}

const redirectUri = 'https://app.example.org/accounts';
const pages: Page[] = sandboxLinkedinOrganizations.map((o) => ({ ...o }));

/** The whole grant: start as `role`, follow the sandbox's authorization URL, answer the callback. */
async function choosePages(w: TestWorkspace, role: 'owner' | 'admin' = 'owner') {
  // One browser throughout: oauth/start's answer binds the authorization to it, begin and the callback want
  // its cookie.
  const browser = new Browser((url, init) => service.runtime.app.request(url, init));
  const res = await browser.post(
    `http://localhost:3000${w.base}/accounts/linkedin/oauth/start`,
    { redirectUri, linkedinTarget: 'page' },
    { authorization: `Bearer ${w.tokens[role]}` },
  );
  expect(res.status).toBe(200);
  const { authorizationUrl } = ((await res.json()) as { data: { authorizationUrl: string } }).data;
  const begun = await browser.redirectFrom(authorizationUrl);
  expect(begun.status).toBe(302);
  const granted = await browser.redirectFrom(begun.location!);
  expect(granted.status).toBe(302);
  const location = granted.location!;
  expect(new URL(location).pathname).toBe('/v1/marketing/oauth/linkedin-pages/callback');
  const callback = await browser.get(location);
  expect(callback.status).toBe(200);
  return (
    (await callback.json()) as {
      data: { status: string; platform: string; choice: string; pages: Page[]; redirectUri: string };
    }
  ).data;
}

const listPages = (w: TestWorkspace, choice: string, token = w.tokens.owner) =>
  service.request('GET', `${w.base}/linkedin-pages?choice=${encodeURIComponent(choice)}`, { token });

const connectPages = (
  w: TestWorkspace,
  body: unknown,
  token = w.tokens.owner,
  headers: Record<string, string> = {},
) => service.request('POST', `${w.base}/linkedin-pages`, { token, body, headers });

async function listAccounts(w: TestWorkspace): Promise<SocialAccountView[]> {
  const res = await service.request('GET', `${w.base}/accounts`, { token: w.tokens.owner });
  return ((await res.json()) as { data: SocialAccountView[] }).data;
}

describe('the choice', () => {
  test('the callback offers the pages and connects nothing yet; GET lists them', async () => {
    const w = await createTestWorkspace(service);
    const choice = await choosePages(w);
    expect(choice).toEqual({
      status: 'choose_pages',
      platform: 'linkedin',
      choice: expect.any(String),
      pages,
      redirectUri,
    });
    expect(await listAccounts(w)).toEqual([]);
    const res = await listPages(w, choice.choice);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { pages } });
  });

  test('is stored as a digest with sealed tokens', async () => {
    const w = await createTestWorkspace(service);
    const { choice } = await choosePages(w);
    const { rows } = await service.runtime.database.pool.query<Record<string, unknown>>(
      'select * from oauth_linkedin_page_choices where choice_hash = $1',
      [createHash('sha256').update(choice).digest('hex')],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ org_id: w.orgId, user_id: w.userIds.owner, options: pages });
    expect(JSON.stringify(rows)).not.toContain(choice);
    expect(String(rows[0]!.sealed_tokens)).toMatch(/^v\d+\./);
    expect(String(rows[0]!.sealed_tokens)).not.toMatch(/access|refresh|urn:li/i);
    const lifetimeMs = Date.parse(String(rows[0]!.expires_at)) - Date.parse(String(rows[0]!.created_at));
    expect(lifetimeMs).toBe(30 * 60_000);
  });

  test("another user's or another workspace's choice is not found (404); a token for another workspace is 403", async () => {
    const a = await createTestWorkspace(service, 'A');
    const b = await createTestWorkspace(service, 'B');
    const { choice } = await choosePages(a);
    // Another manager of the same workspace did not make this choice.
    expect((await listPages(a, choice, a.tokens.admin)).status).toBe(404);
    expect((await connectPages(a, { choice, organizationIds: ['90000001'] }, a.tokens.admin)).status).toBe(
      404,
    );
    // Another workspace, through its own path.
    expect((await listPages(b, choice)).status).toBe(404);
    expect((await connectPages(b, { choice, organizationIds: ['90000001'] })).status).toBe(404);
    expect((await listPages(a, choice, b.tokens.owner)).status).toBe(403);
    expect(await listAccounts(b)).toEqual([]);
    // Still open for its owner.
    expect((await listPages(a, choice)).status).toBe(200);
  });

  test('an unknown choice is 404; a missing one 400', async () => {
    const w = await createTestWorkspace(service);
    expect((await listPages(w, 'no-such-choice')).status).toBe(404);
    const missing = await service.request('GET', `${w.base}/linkedin-pages`, { token: w.tokens.owner });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ErrorBody).details?.[0]?.path).toBe('query.choice');
  });

  test('an expired choice is not found', async () => {
    const w = await createTestWorkspace(service);
    const { choice } = await choosePages(w);
    await service.runtime.database.pool.query(
      `update oauth_linkedin_page_choices set expires_at = now() - interval '1 second' where choice_hash = $1`,
      [createHash('sha256').update(choice).digest('hex')],
    );
    expect((await listPages(w, choice)).status).toBe(404);
    expect((await connectPages(w, { choice, organizationIds: ['90000001'] })).status).toBe(404);
  });

  test('roles: editor and viewer 403, no token 401', async () => {
    const w = await createTestWorkspace(service);
    const { choice } = await choosePages(w);
    for (const role of ['editor', 'viewer'] as const) {
      expect((await listPages(w, choice, w.tokens[role])).status).toBe(403);
      expect((await connectPages(w, { choice, organizationIds: ['90000001'] }, w.tokens[role])).status).toBe(
        403,
      );
    }
    expect((await service.request('GET', `${w.base}/linkedin-pages?choice=${choice}`)).status).toBe(401);
  });
});

describe('POST linkedin-pages', () => {
  test('connects the picked pages, by the user who chose, and closes the choice', async () => {
    const w = await createTestWorkspace(service);
    const { choice } = await choosePages(w);
    const res = await connectPages(w, { choice, organizationIds: ['90000003', '90000001'] });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: SocialAccountView[] };
    expect(data).toHaveLength(2);
    expect(data.map((a) => [a.platform, a.status, a.accountName])).toEqual([
      ['linkedin', 'connected', 'Sandbox Community Choir'],
      ['linkedin', 'connected', 'Sandbox Bakery'],
    ]);
    expect(data[0]!.accountExternalId).toContain('90000003');
    expect(data[1]!.accountExternalId).toContain('90000001');
    const listed = await listAccounts(w);
    expect(listed.map((a) => a.id).sort()).toEqual(data.map((a) => a.id).sort());
    const { rows } = await service.runtime.database.pool.query<{ metadata: { actor: string } }>(
      `select metadata from es_events where stream_name = any($1)`,
      [data.map((a) => `socialAccount-${a.id}`)],
    );
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) expect(row.metadata.actor).toBe(w.userIds.owner);

    // Used up: neither listing nor connecting again.
    expect((await listPages(w, choice)).status).toBe(404);
    expect((await connectPages(w, { choice, organizationIds: ['90000002'] })).status).toBe(404);
  });

  test('an organization id that is not in the choice is a 400 naming it; nothing connected', async () => {
    const w = await createTestWorkspace(service);
    const { choice } = await choosePages(w);
    const events = await eventCount(service);
    const res = await connectPages(w, { choice, organizationIds: ['90000001', '12345'] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toContain('12345');
    expect(body.details).toEqual([
      { path: 'body.organizationIds.1', message: '12345 is not a page of this choice' },
    ]);
    expect(await eventCount(service)).toBe(events);
    expect(await listAccounts(w)).toEqual([]);
    // The choice stays open.
    expect((await listPages(w, choice)).status).toBe(200);
  });

  test('validation: no ids, not an array, unknown field → 400 and nothing changes', async () => {
    const w = await createTestWorkspace(service);
    const { choice } = await choosePages(w);
    const events = await eventCount(service);
    for (const body of [
      { choice, organizationIds: [] },
      { choice, organizationIds: '90000001' },
      { choice },
      { choice, organizationIds: ['90000001'], extra: 1 },
    ]) {
      const res = await connectPages(w, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(await eventCount(service)).toBe(events);
  });

  test('an Idempotency-Key replay answers the first response, even after the choice closed', async () => {
    const w = await createTestWorkspace(service);
    const { choice } = await choosePages(w);
    const body = { choice, organizationIds: ['90000002'] };
    const first = await connectPages(w, body, w.tokens.owner, { 'Idempotency-Key': 'pages-1' });
    expect(first.status).toBe(200);
    const events = await eventCount(service);
    const again = await connectPages(w, body, w.tokens.owner, { 'Idempotency-Key': 'pages-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await eventCount(service)).toBe(events);
  });
});
