// When a membership ends (the member is removed or leaves), the assistant connections it granted end too, with
// their tokens: a process manager folding the workspace's events into the OAuth tables.
import type { Kysely } from 'kysely';
import { workspaceEventCodec } from '../../domain/workspaces/event-codec.js';
import { readsFrom } from '../../projections/engine/event-sources.js';
import { defineProcess } from '../../processes/runner/process-manager.js';
import { endConnectionsOf, type OAuthTables } from './store.js';

/**
 * Requests already refuse a connection whose user is no longer a member (the tool server and the token endpoint
 * ask for the current role); this makes the end final, so rejoining later does not revive what was granted
 * before. Running an event again ends nothing more. A deleted workspace needs nothing here: it never comes
 * back, and every call for it answers 410 `workspace_deleted`.
 */
export const assistantConnectionsEndProcess = defineProcess({
  name: 'assistant-connections-end',
  reads: [readsFrom(workspaceEventCodec, ['MemberRemoved'])],
  async handle(trx, decoded) {
    // The OAuth tables are this process's own (api/oauth/migrations); the transaction is the runner's.
    await endConnectionsOf(trx as unknown as Kysely<OAuthTables>, {
      orgId: decoded.data.orgId,
      userId: decoded.data.userId,
      grantedBefore: decoded.data.removedAt,
    });
  },
});
