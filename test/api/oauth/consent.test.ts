// The consent page behind a browser session (signed in through the real e-mail link flow): what it shows, the
// CSRF check, Deny, and Allow with the scopes the person left checked.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signInBrowser } from '../../support/browser-sign-in.js';
import type { TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import {
  authorizeCode,
  authorizeUrl,
  base,
  exchange,
  hiddenFields,
  issuedCounts,
  pkce,
  postPairs,
  registerClient,
  startDocumentServer,
  startOAuthService,
  type RegisteredClient,
} from './helpers.js';

let service: TestService;
let documents: Awaited<ReturnType<typeof startDocumentServer>>;
let acme: TestWorkspace;
let globex: TestWorkspace;
let ownerEmail: string;
let cookie: string;
let client: RegisteredClient;
const redirectUri = 'http://127.0.0.1:33418/callback';

beforeAll(async () => {
  documents = await startDocumentServer();
  service = await startOAuthService({ allowPrivate: [documents.origin] });
  acme = await createTestWorkspace(service, 'Acme Corp');
  globex = await createTestWorkspace(service, 'Globex');
  const owner = await service.request('GET', '/v1/users/me', { token: acme.tokens.owner });
  ownerEmail = ((await owner.json()) as { data: { email: string } }).data.email;
  // The Acme owner is an editor of Globex as well: two workspaces to choose from.
  const { addMember } = await import('../../../commands/workspaces/workspace-commands.js');
  await addMember(
    service.runtime.commands,
    globex.orgId,
    { userId: acme.userIds.owner, role: 'editor' },
    { orgId: globex.orgId, actor: 'system', correlationId: randomUUID(), now: new Date().toISOString() },
  );
  ({ cookie } = await signInBrowser(service, ownerEmail));
  client = await registerClient(service, { client_name: 'Claude <Desktop>', redirect_uris: [redirectUri] });
});
afterAll(async () => {
  await service?.stop();
  await documents?.close();
});

function request(overrides: Record<string, string | undefined> = {}) {
  const { challenge } = pkce();
  return authorizeUrl({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    state: 'xyz',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'mcp:read posts:write posts:publish',
    ...overrides,
  });
}

async function consentPage(url = request(), browserCookie = cookie): Promise<string> {
  const res = await service.request('GET', url, { headers: { cookie: browserCookie } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  return res.text();
}

describe('the consent page', () => {
  test('names the client, its kind and redirect host, lists the workspaces and the requested scopes', async () => {
    const html = await consentPage();
    // The name is the client's own words, escaped.
    expect(html).toContain('Claude &#60;Desktop&#62;');
    expect(html).not.toContain('Claude <Desktop>');
    expect(html).toContain('registered itself');
    expect(html).toContain('127.0.0.1:33418');
    expect(html).toContain(ownerEmail);
    // One workspace to pick, by radio buttons.
    const radios = [...html.matchAll(/<input type="radio" name="org_id" value="([^"]+)"/g)].map((m) => m[1]);
    expect(radios.sort()).toEqual([acme.orgId, globex.orgId].sort());
    expect(html).toContain('Acme Corp');
    expect(html).toContain('Globex');
    // mcp:read always granted: a disabled checked box and a hidden field; drafting checked by default,
    // publishing left for the person to tick.
    expect(html).toMatch(/<input type="checkbox" checked disabled[^>]*> <code>mcp:read<\/code>/);
    expect(hiddenFields(html)).toContainEqual(['granted_scope', 'mcp:read']);
    expect(html).toContain('name="granted_scope" value="posts:write" checked');
    expect(html).toContain('name="granted_scope" value="posts:publish"> ');
    expect(html).not.toContain('value="posts:delete"');
    // CSRF token, Allow and Deny; no script.
    expect(hiddenFields(html).some(([name, value]) => name === 'csrf_token' && value.length > 20)).toBe(true);
    expect(html).toContain('<button type="submit" name="decision" value="allow">Allow</button>');
    expect(html).toContain('value="deny"');
    expect(html).not.toContain('<script');
  });

  test('an omitted scope asks for every scope, and only the ones that act beyond recall start unticked', async () => {
    const html = await consentPage(request({ scope: undefined }));
    expect(html).toContain('value="posts:write" checked');
    // Approving and scheduling, publishing, deleting, replacing the brand kit: the person ticks each.
    for (const scope of ['posts:schedule', 'posts:publish', 'posts:delete', 'brand:write']) {
      expect(html).toContain(`name="granted_scope" value="${scope}">`);
      expect(html).not.toContain(`value="${scope}" checked`);
    }
  });

  test('destructive scopes asked for by name start unticked too', async () => {
    const html = await consentPage(request({ scope: 'mcp:read posts:publish posts:delete' }));
    expect(html).toContain('name="granted_scope" value="posts:publish">');
    expect(html).toContain('name="granted_scope" value="posts:delete">');
    expect(html).not.toMatch(/value="posts:(publish|delete)" checked/);
  });

  test('a person in no workspace is told so and cannot allow', async () => {
    const loner = `loner-${randomUUID().slice(0, 8)}@example.org`;
    const { cookie: lonerCookie } = await signInBrowser(service, loner);
    const html = await consentPage(request(), lonerCookie);
    expect(html).toContain('not a member of any workspace');
    expect(html).not.toContain('value="allow"');
  });

  test('a metadata-document client is named as one, with its document URL', async () => {
    const clientId = `${documents.origin}/cimd/assistant.json`;
    documents.documents.set('/cimd/assistant.json', {
      client_id: clientId,
      client_name: 'Doc Assistant',
      redirect_uris: ['https://assistant.example.com/callback'],
    });
    const html = await consentPage(
      request({ client_id: clientId, redirect_uri: 'https://assistant.example.com/callback' }),
    );
    expect(html).toContain('Doc Assistant');
    expect(html).toContain('client metadata document');
    expect(html).toContain(clientId);
    expect(html).toContain('assistant.example.com');
  });
});

describe('the consent form', () => {
  async function form(overrides: Array<[string, string]> = [], url = request()) {
    const html = await consentPage(url);
    const fields = hiddenFields(html).filter(([name]) => !overrides.some(([o]) => o === name));
    return [...fields, ...overrides];
  }

  test('a wrong or missing CSRF token is refused with 403 and nothing is issued', async () => {
    const before = await issuedCounts(service);
    for (const csrf of ['forged', '']) {
      const res = await postPairs(
        service,
        '/oauth/authorize',
        await form([
          ['csrf_token', csrf],
          ['org_id', acme.orgId],
          ['decision', 'allow'],
        ]),
        { cookie },
      );
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
    }
    // Another person's browser posting this person's form (a CSRF token of another session).
    const { cookie: other } = await signInBrowser(service, `other-${randomUUID().slice(0, 8)}@example.org`);
    const res = await postPairs(
      service,
      '/oauth/authorize',
      await form([
        ['org_id', acme.orgId],
        ['decision', 'allow'],
      ]),
      { cookie: other },
    );
    expect(res.status).toBe(403);
    // No browser session at all.
    const anonymous = await postPairs(
      service,
      '/oauth/authorize',
      await form([
        ['org_id', acme.orgId],
        ['decision', 'allow'],
      ]),
    );
    expect(anonymous.status).toBe(403);
    expect(await issuedCounts(service)).toEqual(before);
  });

  test('Deny goes back with access_denied, the state and iss; nothing is issued', async () => {
    const before = await issuedCounts(service);
    const res = await postPairs(service, '/oauth/authorize', await form([['decision', 'deny']]), { cookie });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('iss')).toBe(base);
    expect(location.searchParams.get('code')).toBeNull();
    expect(await issuedCounts(service)).toEqual(before);
  });

  test('a workspace the person is not a member of is refused; nothing is issued', async () => {
    const stranger = await createTestWorkspace(service, 'Initech');
    const before = await issuedCounts(service);
    const res = await postPairs(
      service,
      '/oauth/authorize',
      await form([
        ['org_id', stranger.orgId],
        ['decision', 'allow'],
      ]),
      { cookie },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    const none = await postPairs(service, '/oauth/authorize', await form([['decision', 'allow']]), {
      cookie,
    });
    expect(none.status).toBe(400);
    const malformed = await postPairs(
      service,
      '/oauth/authorize',
      await form([
        ['org_id', '-'.repeat(36)],
        ['decision', 'allow'],
      ]),
      { cookie },
    );
    expect(malformed.status).toBe(400);
    expect(await issuedCounts(service)).toEqual(before);
  });

  test('a tampered redirect URI in the form is refused with a page, not followed', async () => {
    const res = await postPairs(
      service,
      '/oauth/authorize',
      await form([
        ['redirect_uri', 'https://attacker.example.net/cb'],
        ['org_id', acme.orgId],
        ['decision', 'allow'],
      ]),
      { cookie },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  test('Allow with fewer scopes: a code for the workspace chosen and the scopes left checked (plus mcp:read)', async () => {
    const flow = await authorizeCode(service, {
      client,
      cookie,
      orgId: globex.orgId,
      scope: 'mcp:read posts:write posts:publish',
      // posts:publish unchecked; posts:delete was never asked for and is ignored.
      choose: ['posts:write', 'posts:delete'],
      state: 'abc',
    });
    expect(flow.code).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const tokens = await exchange(service, client, flow);
    expect(tokens.scope).toBe('mcp:read posts:write');
    const { rows } = await service.runtime.database.pool.query<{
      org_id: string;
      user_id: string;
      scopes: string[];
    }>(
      'select org_id, user_id, scopes from assistant_connections where id = (select connection_id from oauth_codes where connection_id is not null order by created_at desc limit 1)',
    );
    expect(rows[0]).toEqual({
      org_id: globex.orgId,
      user_id: acme.userIds.owner,
      scopes: ['mcp:read', 'posts:write'],
    });
  });

  test('the code comes back with state and iss on the registered redirect URI', async () => {
    const html = await consentPage();
    const res = await postPairs(
      service,
      '/oauth/authorize',
      [...hiddenFields(html), ['org_id', acme.orgId], ['decision', 'allow']],
      { cookie },
    );
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('iss')).toBe(base);
    // Nothing checked but mcp:read's hidden field: only mcp:read is granted.
    const { rows } = await service.runtime.database.pool.query<{ scopes: string[] }>(
      'select scopes from oauth_codes order by created_at desc limit 1',
    );
    expect(rows[0]!.scopes).toEqual(['mcp:read']);
  });
});
