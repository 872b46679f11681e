// The tool server's bearer check (AssistantTokens, api/shared/assistant-auth.ts): an access token's hash looked up
// with its live connection. Provided once per runtime; the MCP slice reaches it through `ctx.use(assistantTokens)`.
import { secretDigest } from '../../infra/crypto/digests.js';
import { sql } from 'kysely';
import { assistantScopes, type AssistantScope } from '../../domain/shared/caller.js';
import type { AssistantGrant, AssistantTokens } from '../shared/assistant-auth.js';
import { service } from '../shared/service.js';
import type { SliceContext } from '../shared/slice.js';
import { revokeConnection, type OAuthDb, type OAuthTables } from './store.js';

/** lastUsedAt is written at most this often per connection (it is shown to a minute's precision at best). */
const touchIntervalMs = 60_000;

export function isAssistantScope(scope: string): scope is AssistantScope {
  return (assistantScopes as readonly string[]).includes(scope);
}

export class DatabaseAssistantTokens implements AssistantTokens {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: OAuthDb,
    private readonly now: () => number = Date.now,
  ) {}

  async verifyAccessToken(token: string): Promise<AssistantGrant | null> {
    if (token.length === 0 || token.length > 200) return null;
    const row = await this.db
      .selectFrom('oauth_tokens as t')
      .innerJoin('assistant_connections as c', 'c.id', 't.connection_id')
      .select([
        'c.id',
        'c.client_id',
        'c.client_name',
        'c.user_id',
        'c.org_id',
        'c.scopes',
        't.scopes as token_scopes',
      ])
      .where('t.hash', '=', secretDigest(token))
      .where('t.kind', '=', 'access')
      .where('t.revoked_at', 'is', null)
      .where('t.expires_at', '>', sql<string>`now()`)
      .where('c.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return null;
    await this.touch(row.id);
    const scopes = row.token_scopes.filter(
      (s): s is AssistantScope => isAssistantScope(s) && row.scopes.includes(s),
    );
    return {
      connectionId: row.id,
      clientId: row.client_id,
      clientName: row.client_name,
      userId: row.user_id,
      orgId: row.org_id,
      scopes: scopes.includes('mcp:read') ? scopes : ['mcp:read', ...scopes],
    };
  }

  async endConnection(connectionId: string): Promise<void> {
    await revokeConnection(this.db, connectionId);
  }

  private async touch(connectionId: string): Promise<void> {
    const now = this.now();
    const last = this.touched.get(connectionId);
    if (last !== undefined && now - last < touchIntervalMs) return;
    this.touched.set(connectionId, now);
    if (this.touched.size > 10_000) this.touched.clear();
    await this.db
      .updateTable('assistant_connections')
      .set({ last_used_at: sql<string>`now()` })
      .where('id', '=', connectionId)
      .where((eb) =>
        eb.or([
          eb('last_used_at', 'is', null),
          eb('last_used_at', '<', sql<string>`now() - interval '1 minute'`),
        ]),
      )
      .execute();
  }
}

/** The authorization server's AssistantTokens, provided by the oauth slice; the tool server checks tokens with it. */
export const assistantTokens = service<AssistantTokens>()('assistant tokens');

/** The slice's tables, typed, on the runtime's database. */
export function oauthDbOf(ctx: Pick<SliceContext, 'readModels'>): OAuthDb {
  return ctx.readModels.withTables<OAuthTables>() as unknown as OAuthDb;
}
