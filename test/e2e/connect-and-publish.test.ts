// As a new user on the embedded default, over a real socket: a token from the CLI, a workspace, oauth/start
// for X, its authorization URL followed by hand in a browser with a cookie jar (our begin URL sets the cookie
// binding the authorization to that browser, 302 to the sandbox, 302 to our callback), the callback connecting
// the account (and refusing a browser without the cookie), the account listed as connected; then a group approved for two seconds ahead is published with its
// URL, and post-now of an approved post publishes at once.
import type { ChildProcess } from 'node:child_process';
import { afterAll, expect, test } from 'vitest';
import { Browser } from '../support/browser.js';
import { cleanUp, newUserSetup, runCli, startService, type E2eSetup } from './support/service.js';

// What a new user gets: no database, bus, platform mode or public address configured.
const unconfigured = ['DATABASE_URL', 'NATS_URL', 'BUS', 'PLATFORM_MODE', 'PUBLIC_BASE_URL', 'APP_ORIGINS'];
let machine: E2eSetup | undefined;
let server: ChildProcess | null = null;

afterAll(() => cleanUp(machine, server));

test(
  'a new user connects an X account in the sandbox and publishes through HTTP',
  { timeout: 240_000 },
  async () => {
    const setup = (machine = await newUserSetup('sp-e2e-connect-', unconfigured));
    const { port } = setup;
    const base = `http://127.0.0.1:${port}`;
    server = (await startService(setup, '/readyz')).child;

    const userToken = (await runCli(setup, 'token', '--email', 'connector@example.org')).stdout
      .trim()
      .split('\n')
      .at(-1)!;
    const created = await fetch(`${base}/v1/orgs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Connector Co', slug: 'connector-co' }),
    });
    expect(created.status).toBe(201);
    const orgId = ((await created.json()) as { data: { id: string } }).data.id;
    const issued = await runCli(
      setup,
      'token',
      '--email',
      'connector@example.org',
      '--workspace',
      'connector-co',
    );
    expect(issued.code, issued.stderr).toBe(0);
    const token = issued.stdout.trim().split('\n').at(-1)!;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    // Nothing configured: redirectUri may be on the service's own address only (APP_ORIGINS is unset).
    const refused = await fetch(`${base}/v1/orgs/${orgId}/marketing/accounts/x/oauth/start`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ redirectUri: 'https://app.example.org/accounts' }),
    });
    expect(refused.status).toBe(400);
    const redirectUri = `http://localhost:${port}/accounts`;
    // The web app calls oauth/start from the user's browser: the answer's cookie binds the authorization to it.
    const browser = new Browser(fetch);
    const startRes = await browser.post(
      `${base}/v1/orgs/${orgId}/marketing/accounts/x/oauth/start`,
      { redirectUri },
      auth,
    );
    expect(startRes.status).toBe(200);
    expect(browser.cookies).toHaveLength(1);
    const { authorizationUrl, state } = (
      (await startRes.json()) as { data: { authorizationUrl: string; state: string } }
    ).data;
    // The service's own address by default (PUBLIC_BASE_URL unset): http://localhost:<PORT>.
    expect(new URL(authorizationUrl).origin).toBe(`http://localhost:${port}`);

    // Another browser (no cookie) opening the authorization URL is refused; the starter's is sent on to the
    // sandbox, which grants and sends it back to our callback.
    expect((await fetch(authorizationUrl, { redirect: 'manual' })).status).toBe(403);
    const begun = await browser.redirectFrom(authorizationUrl);
    expect(begun.status).toBe(302);
    const granted = await browser.redirectFrom(begun.location!);
    expect(granted.status).toBe(302);
    const location = granted.location!;
    const back = new URL(location);
    expect(`${back.origin}${back.pathname}`).toBe(`http://localhost:${port}/v1/marketing/oauth/x/callback`);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('code')).toBeTruthy();

    // Another browser (no cookie) with the same callback URL connects nothing (the callback shape, status error).
    const elsewhere = await fetch(location);
    expect(elsewhere.status).toBe(200);
    expect(((await elsewhere.json()) as { data: unknown }).data).toMatchObject({
      status: 'error',
      error: 'browser_mismatch',
    });
    const callback = await browser.get(location);
    expect(callback.status).toBe(200);
    const answer = (await callback.json()) as {
      data: {
        status: string;
        platform: string;
        accounts: Array<{ id: string; status: string }>;
        redirectUri: string;
      };
    };
    expect(answer.data).toMatchObject({
      status: 'connected',
      platform: 'x',
      redirectUri,
    });
    expect(answer.data.accounts).toHaveLength(1);

    const listed = await fetch(`${base}/v1/orgs/${orgId}/marketing/accounts`, { headers: auth });
    expect(listed.status).toBe(200);
    const accounts = (
      (await listed.json()) as { data: Array<{ id: string; platform: string; status: string }> }
    ).data;
    expect(accounts).toEqual([
      expect.objectContaining({ id: answer.data.accounts[0]!.id, platform: 'x', status: 'connected' }),
    ]);

    // The callback again: the state was single use.
    const again = await fetch(location);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { data: unknown }).data).toMatchObject({
      status: 'error',
      error: 'invalid_state',
    });

    // A group approved for two seconds from now is published at its time, with a URL.
    const mk = `${base}/v1/orgs/${orgId}/marketing`;
    const group = await fetch(`${mk}/post-groups`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        title: 'Soon',
        posts: [{ platform: 'x', contentText: 'Two seconds from now', socialAccountId: accounts[0]!.id }],
      }),
    });
    expect(group.status).toBe(200);
    const made = (await group.json()) as { data: { group: { id: string }; posts: Array<{ id: string }> } };
    const at = new Date(Date.now() + 2000).toISOString();
    const approved = await fetch(`${mk}/post-groups/${made.data.group.id}/approve`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ scheduledForUtc: at }),
    });
    expect(approved.status).toBe(200);
    type Post = {
      id: string;
      status: string;
      publishedUrl: string | null;
      lastAttemptAt: string | null;
      attemptCount: number;
    };
    const postOf = async (id: string) => {
      const res = await fetch(`${mk}/posts?limit=100`, { headers: auth });
      return ((await res.json()) as { data: { items: Post[] } }).data.items.find((p) => p.id === id)!;
    };
    const postId = made.data.posts[0]!.id;
    expect((await postOf(postId)).status).toBe('scheduled');
    let published: Post | undefined;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const p = await postOf(postId);
      if (p.status === 'published') {
        published = p;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(published, 'the scheduled post was published').toBeDefined();
    expect(published!.publishedUrl).toMatch(new RegExp(`^http://localhost:${port}/v1/sandbox/x/posts/`));
    expect(published!.attemptCount).toBe(1);
    // Claimed at or after its time (the lag is measured by `npm run bench -- publishing`, not asserted here).
    expect(Date.parse(published!.lastAttemptAt!)).toBeGreaterThanOrEqual(Date.parse(at));
    console.info(
      `e2e: published ${Date.parse(published!.lastAttemptAt!) - Date.parse(at)} ms after its time`,
    );
    const page = await fetch(published!.publishedUrl!);
    expect(page.status).toBe(200);

    // Post-now of an approved post: the answer is the published post.
    const second = await fetch(`${mk}/post-groups`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ title: 'Now', posts: [{ platform: 'x', contentText: 'Right now' }] }),
    });
    const now = (await second.json()) as { data: { group: { id: string }; posts: Array<{ id: string }> } };
    await fetch(`${mk}/post-groups/${now.data.group.id}/approve`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ autoSchedule: false }),
    });
    const postNow = await fetch(`${mk}/posts/${now.data.posts[0]!.id}/post-now`, {
      method: 'POST',
      headers: auth,
    });
    expect(postNow.status).toBe(200);
    const answered = ((await postNow.json()) as { data: Post }).data;
    expect(answered.status).toBe('published');
    expect(answered.publishedUrl).toMatch(/\/v1\/sandbox\/x\/posts\//);
  },
);
