// A membership that ends ends the assistant connections it granted: a removed member's (or one who left) cannot
// refresh, and rejoining the workspace revives neither the old refresh token nor the old access token; a
// connection granted after rejoining works. The workspace's MemberRemoved event ends them (a process manager);
// the token endpoint and the tool server refuse them at once, before it has run.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { OAuthTables } from '../../../api/oauth/store.js';
import { addMember } from '../../../commands/workspaces/workspace-commands.js';
import { memberIdOf } from '../../../domain/workspaces/views.js';
import { connectAssistant, mcpUrl, type TestAssistant } from '../../support/assistant.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { postForm } from './helpers.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
});
afterAll(async () => service.stop());

const db = () => service.database.db as unknown as Kysely<OAuthTables>;

function refresh(assistant: TestAssistant, token = assistant.refreshToken): Promise<Response> {
  return postForm(service, '/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: assistant.clientId,
  });
}

/** A JSON-RPC ping to /mcp with the access token: 200 while the connection works. */
async function ping(accessToken: string): Promise<Response> {
  return service.runtime.app.request(mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
}

async function expectInvalidGrant(res: Response): Promise<void> {
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
}

function removeMember(userId: string, token: string): Promise<Response> {
  return service.request('DELETE', `/v1/orgs/${ws.orgId}/members/${memberIdOf(ws.orgId, userId)}`, {
    token,
  });
}

async function rejoin(userId: string, role: 'editor' | 'viewer'): Promise<void> {
  await addMember(
    service.runtime.commands,
    ws.orgId,
    { userId, role },
    { orgId: ws.orgId, actor: 'system', correlationId: randomUUID(), now: new Date().toISOString() },
  );
}

async function connectionEnded(connectionId: string): Promise<boolean> {
  const row = await db()
    .selectFrom('assistant_connections')
    .select('revoked_at')
    .where('id', '=', connectionId)
    .executeTakeFirstOrThrow();
  return row.revoked_at !== null;
}

describe('a member removed from the workspace', () => {
  test('cannot refresh: invalid_grant at once, and the connection ends', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    expect((await ping(assistant.accessToken)).status).toBe(200);
    expect((await removeMember(ws.userIds.editor, ws.tokens.owner)).status).toBe(200);

    await expectInvalidGrant(await refresh(assistant));
    expect((await ping(assistant.accessToken)).status).toBe(401);
    expect(await connectionEnded(assistant.connectionId)).toBe(true);

    // Back in the workspace: what was granted before stays ended.
    await rejoin(ws.userIds.editor, 'editor');
    await expectInvalidGrant(await refresh(assistant));
    expect((await ping(assistant.accessToken)).status).toBe(401);
  });

  test('unused, its connection is ended by the removal itself: rejoining revives neither token', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: [],
    });
    // A second refresh token of the same connection, never presented before the removal.
    const rotated = (await (await refresh(assistant)).json()) as {
      access_token: string;
      refresh_token: string;
    };
    expect(rotated.refresh_token).toEqual(expect.any(String));
    expect((await removeMember(ws.userIds.viewer, ws.tokens.owner)).status).toBe(200);
    // Nothing of the connection is used until the process reacting to MemberRemoved has ended it.
    await waitUntil(() => connectionEnded(assistant.connectionId), { what: 'the connection to end' });

    await rejoin(ws.userIds.viewer, 'viewer');
    await expectInvalidGrant(await refresh(assistant, rotated.refresh_token));
    expect((await ping(rotated.access_token)).status).toBe(401);

    // A connection granted after rejoining works.
    const fresh = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: [],
    });
    expect((await ping(fresh.accessToken)).status).toBe(200);
    expect((await refresh(fresh)).status).toBe(200);
  });

  test('leaving the workspace ends the connection the same way', async () => {
    const member = await service.userToken(`leaver-${randomUUID().slice(0, 8)}@example.org`, {
      orgId: ws.orgId,
      role: 'editor',
    });
    await rejoin(member.userId, 'editor');
    const assistant = await connectAssistant(service, {
      userId: member.userId,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    expect((await ping(assistant.accessToken)).status).toBe(200);
    expect((await removeMember(member.userId, member.token)).status).toBe(200);
    await waitUntil(() => connectionEnded(assistant.connectionId), { what: 'the connection to end' });
    await rejoin(member.userId, 'editor');
    await expectInvalidGrant(await refresh(assistant));
    expect((await ping(assistant.accessToken)).status).toBe(401);
  });
});
