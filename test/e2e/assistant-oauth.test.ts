// An AI assistant connects with nothing but the service's URL, end to end over a real socket: the official
// SDK's client and its OAuth client provider discover the authorization server from /mcp's 401, register
// (dynamic registration; a client ID metadata document served locally for the second client), send the person
// to the authorize page, which Chromium drives (sign-in by e-mail link, consent with fewer scopes than asked),
// exchange the code, list exactly the granted tools, call them (a draft waits for approval, post_now refuses
// it), rotate the refresh token (the old one is refused, and presenting it again ends the connection), and
// revoke a connection.
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createOAuthSlice } from '../../api/oauth/slice.js';
import { slices } from '../../api/slices.js';
import { freePort } from '../../infra/db/embedded-postgres.js';
import type { AssistantScope } from '../../domain/shared/caller.js';
import { connectAssistant } from '../support/assistant.js';
import { connectSandboxAccount } from '../support/social-accounts.js';
import { lastSignInLink } from '../support/browser-sign-in.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);

let service: TestService;
let server: ServerType;
let base: string;
let ws: TestWorkspace;
let ownerEmail: string;
let browser: Browser;
let shots: string;
/** The assistant's redirect URI: a local server that records the query each authorization comes back with. */
let callback: { url: string; server: http.Server; last: URLSearchParams | null };
/** Client ID metadata documents, served over http on loopback (the oauth slice's test origin). */
let documents: { origin: string; server: http.Server; body: Record<string, unknown> | null };

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

beforeAll(async () => {
  if (!haveChromium) return;
  callback = { url: '', server: http.createServer(), last: null };
  callback.server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    // Only the redirect itself: Chromium also asks this origin for /favicon.ico.
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    callback.last = url.searchParams;
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>You can close this window.</p>');
  });
  callback.url = `${await listen(callback.server)}/callback`;
  documents = { origin: '', server: http.createServer(), body: null };
  documents.server.on('request', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(documents.body));
  });
  documents.origin = await listen(documents.server);

  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  service = await startTestService({
    env: { PUBLIC_BASE_URL: base },
    slices: slices.map((s) =>
      s.name === 'oauth' ? createOAuthSlice({ allowPrivate: [documents.origin] }) : s,
    ),
  });
  server = serve({ fetch: service.runtime.app.fetch, port, hostname: '127.0.0.1' });
  ws = await createTestWorkspace(service, 'Assistant Co');
  const owner = await service.request('GET', '/v1/users/me', { token: ws.tokens.owner });
  ownerEmail = ((await owner.json()) as { data: { email: string } }).data.email;
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  shots = await mkdtemp(path.join(os.tmpdir(), 'sp-consent-'));
}, 120_000);

afterAll(async () => {
  if (!haveChromium) return;
  await browser?.close();
  server?.close();
  callback?.server.close();
  documents?.server.close();
  await service?.stop();
  if (shots) await rm(shots, { recursive: true, force: true });
});

/** What an assistant keeps between runs, in memory. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  constructor(
    readonly name: string,
    info?: OAuthClientInformationMixed,
  ) {
    this.info = info;
  }
  get redirectUrl() {
    return callback.url;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [callback.url],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const transportFor = (provider: OAuthClientProvider) =>
  new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });

/** Connects; on a 401 the SDK runs discovery (and registration) and asks for the browser step. */
async function connectOrAuthorize(provider: MemoryProvider): Promise<StreamableHTTPClientTransport> {
  const transport = transportFor(provider);
  await expect(
    new Client({ name: provider.name, version: '1.0.0' }).connect(transport),
  ).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl).not.toBeNull();
  return transport;
}

async function shot(page: Page, name: string): Promise<void> {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const png = await readFile(file);
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(png.length).toBeGreaterThan(5_000);
  // KEEP_SCREENSHOTS=<dir> keeps them for a person to look at.
  const keep = process.env.KEEP_SCREENSHOTS;
  if (keep) await copyFile(file, path.join(keep, `${name}.png`));
}

/** The person's side in Chromium: sign in by e-mail link (unless signed in), then the consent page. */
async function consentInBrowser(
  page: Page,
  authorizationUrl: URL,
  choice: {
    uncheck: readonly string[];
    /** Scopes that act beyond recall start unticked: the person ticks the ones to grant. */
    check?: readonly string[];
    decision: 'Allow' | 'Deny';
    signIn: boolean;
    screenshots?: string;
  },
): Promise<URLSearchParams> {
  callback.last = null;
  await page.goto(authorizationUrl.toString());
  if (choice.signIn) {
    await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
    if (choice.screenshots) await shot(page, `${choice.screenshots}-sign-in`);
    await page.getByLabel('E-mail address').fill(ownerEmail);
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
    await page.waitForLoadState();
    await page.goto(`${base}${await lastSignInLink(service, ownerEmail)}`);
    await page.getByRole('button', { name: 'Continue' }).click();
  }
  await expect.poll(() => new URL(page.url()).pathname).toBe('/oauth/authorize');
  expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(1);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toMatch(/Assistant/);
  await page.getByRole('radio', { name: /Assistant Co/ }).check();
  for (const scope of choice.uncheck)
    await page.locator(`input[name="granted_scope"][value="${scope}"]`).uncheck();
  for (const scope of choice.check ?? [])
    await page.locator(`input[name="granted_scope"][value="${scope}"]`).check();
  if (choice.screenshots) await shot(page, `${choice.screenshots}-consent`);
  await page.getByRole('button', { name: choice.decision }).click();
  await expect.poll(() => callback.last, { timeout: 15_000 }).not.toBeNull();
  return callback.last!;
}

function structured(result: unknown): Record<string, unknown> {
  return (result as CallToolResult).structuredContent as Record<string, unknown>;
}

async function tokenRequest(fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

describe.skipIf(!haveChromium)('an assistant connects with nothing but the URL', () => {
  const first = new MemoryProvider('E2E Assistant');

  test(
    'discovery, registration, sign-in and consent with fewer scopes, token exchange, granted tools, calls',
    { timeout: 120_000 },
    async () => {
      const transport = await connectOrAuthorize(first);
      // Dynamic registration happened; the authorize URL carries PKCE S256 and the resource.
      expect(first.info?.client_id).toBeTruthy();
      const asked = first.authorizationUrl!;
      expect(asked.origin + asked.pathname).toBe(`${base}/oauth/authorize`);
      expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
      expect(asked.searchParams.get('resource')).toBe(`${base}/mcp`);

      const page = await browser.newPage();
      const answer = await consentInBrowser(page, asked, {
        uncheck: [],
        check: ['posts:schedule', 'posts:publish'],
        decision: 'Allow',
        signIn: true,
        screenshots: 'dcr',
      });
      expect(answer.get('iss')).toBe(base);
      await transport.finishAuth(answer.get('code')!);
      expect(first.saved?.scope?.split(' ').sort()).toEqual([
        'mcp:read',
        'posts:publish',
        'posts:schedule',
        'posts:write',
      ]);

      const client = new Client({ name: 'E2E Assistant', version: '1.0.0' });
      await client.connect(transportFor(first));
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual([
        'add_dm_conversation',
        'approve_post_group',
        'complete_media_upload',
        'create_app_screenshot',
        'create_branded_image',
        'create_carousel',
        'create_draft_post',
        'create_launch_kit',
        'create_media_upload',
        'create_x_thread',
        'draft_dm',
        'draft_post_from_thought',
        'draft_reply',
        'find_brand_kit_on_website',
        'find_trending_topics',
        'get_brand_kit',
        'get_engagement_settings',
        'get_home_summary',
        'get_launch_kit',
        'get_newsjacking_settings',
        'get_niche_news',
        'get_performance_summary',
        'get_platform_algorithm_hints',
        'get_strategy',
        'get_trending_topics',
        'get_usage',
        'get_x_account_analytics',
        'get_x_automation_rules',
        'get_x_post',
        'get_x_thread',
        'import_media_from_url',
        'list_dm_conversations',
        'list_inspiration_opportunities',
        'list_launch_kits',
        'list_media',
        'list_posts',
        'list_reply_inbox',
        'list_social_accounts',
        'list_thoughts',
        'list_top_posts',
        'list_viral_post_formats',
        'list_visual_options',
        'list_x_automation_runs',
        'post_now',
        'refresh_reply_inbox',
        'reject_post_group',
        'rewrite_post',
        'run_x_automation',
        'save_thought',
        'schedule_post_group',
        'send_reply',
        'suggest_reddit_listening',
        'suggest_slots',
        'suggest_x_accounts',
        'update_dm_conversation',
        'update_engagement_settings',
        'update_launch_step',
        'update_newsjacking_settings',
        'update_post',
        'update_post_group',
        'update_reply_draft',
        'update_thought',
        'update_x_automation_rules',
      ]);
      const created = structured(
        await client.callTool({
          name: 'create_draft_post',
          arguments: {
            title: 'From the assistant',
            posts: [{ platform: 'x', contentText: 'Hello from MCP' }],
          },
        }),
      ) as { group: { status: string }; posts: Array<{ id: string }> };
      expect(created.group.status).toBe('pending_approval');
      const refused = (await client.callTool({
        name: 'post_now',
        arguments: { postId: created.posts[0]!.id },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ status: 409 });

      // Issue 29: save a thought, draft from it, and find the drafts in review.
      const thought = structured(
        await client.callTool({
          name: 'save_thought',
          arguments: { text: 'Ship small changes daily. Big releases hide big mistakes.', kind: 'opinion' },
        }),
      ) as { id: string; status: string };
      expect(thought.status).toBe('new');
      const drafted = structured(
        await client.callTool({
          name: 'draft_post_from_thought',
          arguments: { thoughtId: thought.id, platforms: ['x', 'linkedin'] },
        }),
      ) as {
        thought: { status: string };
        group: { id: string; status: string };
        posts: Array<{ id: string }>;
      };
      expect(drafted.group.status).toBe('pending_approval');
      expect(drafted.thought.status).toBe('drafted');
      const inReview = structured(
        await client.callTool({ name: 'list_posts', arguments: { 'filter[status]': 'pending_approval' } }),
      ) as { items: Array<{ id: string; groupId: string; status: string }> };
      const mine = inReview.items.filter((p) => p.groupId === drafted.group.id);
      expect(mine.map((p) => p.id).sort()).toEqual(drafted.posts.map((p) => p.id).sort());

      // Issue 31: posts saved to the inspiration library (in the app) are the assistant's opportunities, the
      // most relevant to the strategy first; a hidden one is not.
      const saveInspiration = async (contentText: string) => {
        const res = await service.request('POST', `/v1/orgs/${ws.orgId}/inspiration`, {
          token: ws.tokens.owner,
          body: { contentText, platform: 'linkedin' },
        });
        expect(res.status).toBe(201);
        return ((await res.json()) as { data: { id: string } }).data.id;
      };
      await service.request('PATCH', `/v1/orgs/${ws.orgId}/strategy`, {
        token: ws.tokens.owner,
        body: { pillars: [{ name: 'Release engineering', keywords: ['releases', 'shipping'] }] },
      });
      const unrelated = await saveInspiration('A photo of our team lunch.');
      const relevant = await saveInspiration(
        'Shipping small releases daily beats one big launch. Here is how.',
      );
      const hidden = await saveInspiration('Shipping releases: an old post we hid.');
      await service.request('POST', `/v1/orgs/${ws.orgId}/inspiration/${hidden}/opportunity`, {
        token: ws.tokens.owner,
        body: { status: 'hidden' },
      });
      const opportunities = await client.callTool({ name: 'list_inspiration_opportunities', arguments: {} });
      const found = structured(opportunities) as {
        items: Array<{ id: string; matchedPillars: string[]; relevanceScore: number }>;
        total: number;
      };
      expect(found.items.map((i) => i.id)).toEqual([relevant, unrelated]);
      expect(found.items[0]!.matchedPillars).toEqual(['Release engineering']);
      expect(JSON.stringify((opportunities as CallToolResult).content)).toContain(relevant);
      await client.close();
      await page.close();
    },
  );

  test(
    'the research tools (issue 31): each called through MCP; a posts:write one refused without that scope',
    { timeout: 60_000 },
    async () => {
      // No X account is connected here: the research tools answer the curated set, labelled and dated, and charge
      // nothing (test/api/research/research.test.ts reads the sandbox X and a served X API).
      const client = new Client({ name: 'E2E Assistant', version: '1.0.0' });
      await client.connect(transportFor(first));
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        return structured(result) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      };
      const settings = await call('update_newsjacking_settings', {
        keywords: ['scheduling'],
        alertThreshold: 50,
      });
      expect(settings).toMatchObject({ keywords: ['scheduling'], alertThreshold: 50, enabled: true });
      expect(await call('get_newsjacking_settings')).toMatchObject({ keywords: ['scheduling'] });
      const curated = { kind: 'curated', asOf: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) };
      const found = await call('find_trending_topics', { topics: ['scheduling'] });
      expect(found.source).toMatchObject(curated);
      expect(found.creditsUsed).toBe(0);
      expect(found.warnings[0]).toMatch(/^X: .*curated set answers/);
      const trends = await call('get_trending_topics');
      expect(trends.source).toMatchObject(curated);
      expect(trends.topics.length).toBeGreaterThan(0);
      const news = await call('get_niche_news', { matchedOnly: 'false' });
      expect(news.sources[0]).toMatchObject({
        kind: 'curated',
        asOf: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      });
      expect(news.items.length).toBeGreaterThan(0);
      const formats = await call('list_viral_post_formats');
      expect(formats.items).toHaveLength(8);
      const hints = await call('get_platform_algorithm_hints', { platform: 'linkedin' });
      expect(hints.platforms[0].hints[0].reference.url).toMatch(/^https:/);
      const accounts = await call('suggest_x_accounts', { topics: ['developer'], limit: 3 });
      expect(accounts.source).toMatchObject(curated);
      expect(accounts.accounts[0]).toMatchObject({
        handle: expect.any(String),
        profileUrl: expect.stringMatching(/^https:\/\/x\.com\//),
      });
      await client.close();

      // A connection granted only mcp:read, over the same socket: the reads work, posts:write research is refused.
      const limited = await connectAssistant(service, {
        userId: ws.userIds.owner,
        orgId: ws.orgId,
        scopes: ['mcp:read'],
      });
      await limited.client.close();
      const reader = new Client({ name: 'Reader', version: '1.0.0' });
      await reader.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${limited.accessToken}` } },
        }),
      );
      const names = (await reader.listTools()).tools.map((t) => t.name);
      expect(names).toContain('get_trending_topics');
      expect(names).not.toContain('find_trending_topics');
      const refused = (await reader.callTool({
        name: 'find_trending_topics',
        arguments: { topics: ['scheduling'] },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ status: 403, code: 'insufficient_scope' });
      await reader.close();
    },
  );

  test(
    "the reply inbox (issue 30): refresh, draft and update with posts:write; send with posts:publish only, never an assistant's own draft",
    { timeout: 60_000 },
    async () => {
      await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
      const overSocket = async (scopes: AssistantScope[], name: string) => {
        const grant = await connectAssistant(service, {
          userId: ws.userIds.owner,
          orgId: ws.orgId,
          scopes,
          clientName: name,
        });
        await grant.client.close();
        const client = new Client({ name, version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
            requestInit: { headers: { Authorization: `Bearer ${grant.accessToken}` } },
          }),
        );
        const call = async (tool: string, args: Record<string, unknown> = {}) =>
          (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
        const ok = async (tool: string, args: Record<string, unknown> = {}) => {
          const result = await call(tool, args);
          expect(result.isError, `${tool}: ${JSON.stringify(result.content)}`).toBeFalsy();
          return structured(result) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
        };
        return { client, call, ok };
      };

      const writer = await overSocket(['posts:write'], 'Inbox Writer');
      await writer.ok('update_engagement_settings', { keywords: ['scheduling'] });
      const refreshed = await writer.ok('refresh_reply_inbox');
      expect(refreshed.added).toBeGreaterThan(0);
      const inbox = await writer.ok('list_reply_inbox', { platform: 'x', kind: 'mention' });
      const item = inbox.items[0] as { id: string; externalPostId: string };
      const drafted = await writer.ok('draft_reply', { itemId: item.id, guidance: 'Offer the docs link' });
      expect(drafted.status).toBe('drafted');
      const edited = `${String(drafted.draftText).slice(0, 200)} (edited)`;
      expect(await writer.ok('update_reply_draft', { itemId: item.id, draftText: edited })).toMatchObject({
        status: 'drafted',
        draftText: edited,
      });
      // Sending needs posts:publish, which this connection lacks.
      const unscoped = await writer.call('send_reply', { itemId: item.id, text: edited });
      expect(unscoped.isError).toBe(true);
      expect(unscoped.structuredContent).toMatchObject({ status: 403, code: 'insufficient_scope' });
      await writer.client.close();

      const sender = await overSocket(['posts:publish'], 'Inbox Sender');
      const names = (await sender.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('send_reply');
      expect(names).not.toContain('refresh_reply_inbox');
      // Sending is the approval: an assistant never approves what an assistant wrote.
      const own = await sender.call('send_reply', { itemId: item.id, text: edited });
      expect(own.isError).toBe(true);
      expect(own.structuredContent).toMatchObject({
        status: 403,
        code: 'assistant_cannot_approve_assistant_content',
      });
      // A member writes the reply; the assistant with posts:publish sends exactly it, once.
      const approved = 'Thanks for asking! Threads go out in order, one post after the other.';
      const patched = await service.request('PATCH', `/v1/orgs/${ws.orgId}/engagement/${item.id}`, {
        token: ws.tokens.owner,
        body: { draftText: approved },
      });
      expect(patched.status).toBe(200);
      const sent = await sender.ok('send_reply', { itemId: item.id, text: approved });
      expect(sent).toMatchObject({ status: 'sent', sentUrl: expect.any(String) });
      expect(await sender.ok('send_reply', { itemId: item.id, text: approved })).toMatchObject({
        status: 'sent',
      });
      const { rows } = await service.runtime.database.pool.query<{ text: string }>(
        'select text from sandbox_publications where post_id = $1',
        [`engagement-reply:${item.externalPostId}`],
      );
      expect(rows).toEqual([{ text: approved }]);
      await sender.client.close();
    },
  );

  test('refresh rotation: a new pair each time; the used refresh token is refused and ends the connection', async () => {
    const clientId = first.info!.client_id;
    const original = first.saved!;
    const rotated = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: original.refresh_token!,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as OAuthTokens;
    expect(next.refresh_token).not.toBe(original.refresh_token);
    const client = new Client({ name: 'E2E Assistant', version: '1.0.0' });
    first.saved = next;
    await client.connect(transportFor(first));
    await client.close();

    // The old refresh token again: refused, and the whole connection ends (its newest tokens too).
    const replay = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: original.refresh_token!,
      client_id: clientId,
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    const after = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${next.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(after.status).toBe(401);
    expect(
      (
        await tokenRequest({
          grant_type: 'refresh_token',
          refresh_token: next.refresh_token!,
          client_id: clientId,
        })
      ).status,
    ).toBe(400);
  });

  test(
    'a client ID metadata document (served locally) instead of registration; Deny, then Allow; revoke ends it',
    { timeout: 120_000 },
    async () => {
      const documentUrl = `${documents.origin}/assistant/client.json`;
      documents.body = {
        client_id: documentUrl,
        client_name: 'Metadata Assistant',
        redirect_uris: [callback.url],
        token_endpoint_auth_method: 'none',
      };
      // The SDK sends only https URLs as client ids on its own; this client is configured with the document's.
      const second = new MemoryProvider('Metadata Assistant', { client_id: documentUrl });
      const page = await browser.newPage();
      await connectOrAuthorize(second);
      const denied = await consentInBrowser(page, second.authorizationUrl!, {
        uncheck: [],
        decision: 'Deny',
        signIn: true,
      });
      expect(denied.get('error')).toBe('access_denied');
      expect(denied.get('code')).toBeNull();

      const again = await connectOrAuthorize(second);
      // Still signed in in this browser: straight to the consent page.
      const answer = await consentInBrowser(page, second.authorizationUrl!, {
        uncheck: ['posts:write', 'posts:schedule', 'posts:publish', 'posts:delete', 'brand:write'],
        decision: 'Allow',
        signIn: false,
        screenshots: 'cimd',
      });
      await again.finishAuth(answer.get('code')!);
      const client = new Client({ name: 'Metadata Assistant', version: '1.0.0' });
      await client.connect(transportFor(second));
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'find_brand_kit_on_website',
        'get_brand_kit',
        'get_engagement_settings',
        'get_home_summary',
        'get_launch_kit',
        'get_newsjacking_settings',
        'get_niche_news',
        'get_performance_summary',
        'get_platform_algorithm_hints',
        'get_strategy',
        'get_trending_topics',
        'get_usage',
        'get_x_account_analytics',
        'get_x_automation_rules',
        'list_dm_conversations',
        'list_inspiration_opportunities',
        'list_launch_kits',
        'list_media',
        'list_posts',
        'list_reply_inbox',
        'list_social_accounts',
        'list_thoughts',
        'list_top_posts',
        'list_viral_post_formats',
        'list_visual_options',
        'list_x_automation_runs',
        'suggest_slots',
      ]);
      await client.close();

      const revoked = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: second.saved!.refresh_token!, client_id: documentUrl }).toString(),
      });
      expect(revoked.status).toBe(200);
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${second.saved!.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.status).toBe(401);
      await page.close();
    },
  );
});

test.skipIf(haveChromium)(
  'without Chromium the browser flow cannot run: allowed on a laptop, never in CI',
  () => {
    // .ci/run installs Debian's chromium; a CI run without it must not pass by skipping the flow above.
    expect(process.env.CI, `no Chromium at ${chromiumPath}`).toBeFalsy();
  },
);
