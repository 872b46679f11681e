// An assistant connected to a workspace, for tool-server tests: a registered client, a connection granted by a
// member with some scopes, and its tokens, written through the authorization server's own store (the whole
// OAuth flow is exercised in test/api/oauth and test/e2e), and an MCP client of the official SDK on top.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { issueTokens, revokeConnection, type OAuthTables } from '../../api/oauth/store.js';
import type { AssistantScope } from '../../domain/shared/caller.js';
import type { TestService } from './runtime.js';

export interface TestAssistant {
  clientId: string;
  connectionId: string;
  accessToken: string;
  /** The connection's refresh token (its client is public: refresh with `client_id` alone). */
  refreshToken: string;
  /** An MCP client connected to /mcp with the access token (through the app, no socket). */
  client: Client;
  revoke(): Promise<void>;
}

export const mcpUrl = 'http://localhost/mcp';

/** fetch for the SDK's transport, answered by the app in process. */
export function appFetch(service: TestService): typeof fetch {
  return ((url: string | URL | Request, init?: RequestInit) =>
    service.runtime.app.request(url instanceof Request ? url : String(url), init)) as typeof fetch;
}

export async function mcpClient(service: TestService, accessToken: string): Promise<Client> {
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      fetch: appFetch(service),
      requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

export async function connectAssistant(
  service: TestService,
  grant: { userId: string; orgId: string; scopes: readonly AssistantScope[]; clientName?: string },
): Promise<TestAssistant> {
  const db = service.database.db as unknown as Kysely<OAuthTables>;
  const clientId = randomUUID();
  const clientName = grant.clientName ?? 'Test Assistant';
  await db
    .insertInto('oauth_clients')
    .values({
      client_id: clientId,
      client_name: clientName,
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'none',
      secret_hash: null,
      kind: 'registered',
      metadata: JSON.stringify({ client_name: clientName }),
      fetched_at: null,
    })
    .execute();
  const connectionId = randomUUID();
  const scopes: AssistantScope[] = ['mcp:read', ...grant.scopes.filter((s) => s !== 'mcp:read')];
  await db
    .insertInto('assistant_connections')
    .values({
      id: connectionId,
      client_id: clientId,
      client_name: clientName,
      user_id: grant.userId,
      org_id: grant.orgId,
      scopes,
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  const { accessToken, refreshToken } = await issueTokens(db, connectionId, {
    access: scopes,
    refresh: scopes,
  });
  const client = await mcpClient(service, accessToken);
  return {
    clientId,
    connectionId,
    accessToken,
    refreshToken,
    client,
    revoke: () => revokeConnection(db, connectionId),
  };
}
