// The context library's sandbox Notion in tests: oauth/start, the sandbox consent and the callback, as a browser
// goes through them (the README's flow), answering the callback's outcome.
import { expect } from 'vitest';
import type { TestService } from './runtime.js';
import type { TestWorkspace } from './workspace.js';

export interface ConnectedSource {
  id: string;
  status: string;
  sourceType: string;
  workspaceName: string | null;
  externalWorkspaceId: string | null;
  lastSyncedAt: string | null;
  lastError: string | null;
}

/** oauth/start, the sandbox consent, the callback: what a browser does, by hand. */
export async function connectSandboxNotion(
  svc: TestService,
  ws: TestWorkspace,
): Promise<{ status: string; source: ConnectedSource; redirectUri: string }> {
  const start = await svc.request('POST', `/v1/orgs/${ws.orgId}/context/sources/notion/oauth/start`, {
    token: ws.tokens.owner,
    body: { redirectUri: 'http://localhost:3000/settings/context' },
  });
  expect(start.status, await start.clone().text()).toBe(200);
  const { authorizationUrl } = ((await start.json()) as { data: { authorizationUrl: string } }).data;
  // The browser binding: oauth/start's cookie goes back with the callback, as a browser would send it.
  const cookie = browserCookieOf(start);
  const consent = new URL(authorizationUrl);
  expect(consent.pathname).toBe('/v1/sandbox/notion/authorize');
  const granted = await svc.request('GET', `${consent.pathname}${consent.search}`);
  expect(granted.status).toBe(302);
  const callback = new URL(granted.headers.get('location')!);
  expect(callback.pathname).toBe('/v1/context/oauth/notion/callback');
  const done = await svc.request('GET', `${callback.pathname}${callback.search}`, { headers: { cookie } });
  return ((await done.json()) as { data: { status: string; source: ConnectedSource; redirectUri: string } })
    .data;
}

/** The `name=value` of the cookie oauth/start set (what a browser sends back to the callback). */
export function browserCookieOf(start: Response): string {
  const header = start.headers.get('set-cookie');
  expect(header, 'oauth/start sets the browser cookie').toMatch(/^notion_oauth_[0-9a-f]{16}=/);
  expect(header).toMatch(/HttpOnly/);
  expect(header).toMatch(/Path=\/v1\/context\/oauth\/notion\//);
  return header!.split(';')[0]!;
}
