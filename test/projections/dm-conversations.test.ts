// The dm_conversations read model (one row per tracked conversation, folded with the domain's evolve, guarded by
// the stream revision, removed on deletion): after adds, a message, a close, a deletion and a fresh add its rows
// match the streams' states; an event applied again changes nothing; a rebuild from the log gives the same rows.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { dmConversationStream } from '../../commands/engagement/dm-conversations.js';
import { loadAggregate } from '../../commands/shared/command-handler.js';
import { dmConversationDecider } from '../../domain/engagement/dm-conversation.js';
import { dmConversationsProjection } from '../../projections/engagement/dm-conversations-projection.js';
import { rebuildProjection } from '../../projections/engine/rebuild.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace } from '../support/workspace.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ publishing: { sweep: false, work: false } });
});
afterAll(async () => service.stop());

interface Row {
  conversation_id: string;
  org_id: string;
  revision: number;
  closed: boolean;
  conversation: unknown;
}
const rows = async (orgId: string) =>
  (
    await sql<Row>`select conversation_id, org_id, revision, closed, conversation from dm_conversations
      where org_id = ${orgId} order by conversation_id`.execute(service.runtime.readModels)
  ).rows;

test('rows follow the streams, an event applied again changes nothing, and a rebuild gives the same rows', async () => {
  const ws = await createTestWorkspace(service);
  const call = async (method: string, rest: string, body?: unknown) => {
    const res = await service.request(method, `/v1/orgs/${ws.orgId}/dms${rest}`, {
      token: ws.tokens.owner,
      ...(body !== undefined ? { body } : {}),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return ((await res.json()) as { data: { id: string } }).data;
  };
  const kept = await call('POST', '', { handle: 'kept', messages: [{ from: 'them', text: 'hi' }] });
  await call('PATCH', `/${kept.id}`, { addMessage: { from: 'me', text: 'hello' }, status: 'closed' });
  const gone = await call('POST', '', { handle: 'gone', notes: 'old' });
  await call('DELETE', `/${gone.id}`);
  const back = await call('POST', '', { handle: 'twice' });
  await call('DELETE', `/${back.id}`);
  await call('POST', '', { handle: 'Twice', messages: [{ from: 'me', text: 'again' }] });

  const mine = await rows(ws.orgId);
  expect(mine.map((r) => r.conversation_id).sort()).toEqual([kept.id, back.id].sort());
  for (const row of mine) {
    const { state, revision } = await loadAggregate(
      service.runtime.eventStore,
      dmConversationStream(row.conversation_id),
      dmConversationDecider,
    );
    expect(state.status).toBe('tracked');
    expect(row.revision).toBe(revision);
    expect(row.conversation).toEqual(
      JSON.parse(JSON.stringify(state.status === 'tracked' ? state.conversation : null)),
    );
    expect(row.closed).toBe(row.conversation_id === kept.id);
  }

  // Folded into scratch tables from the log: once, and with every event applied twice (as after a crash between
  // a fold and its checkpoint) and the whole log again; all give the rows served.
  const stored = (
    await Promise.all(
      [kept.id, gone.id, back.id].map((id) =>
        service.runtime.eventStore.readStream(dmConversationStream(id)),
      ),
    )
  ).flat();
  const db = service.runtime.database.db;
  const scratch = async (schema: string, events: typeof stored) => {
    await db.transaction().execute(async (trx) => {
      await sql`create schema ${sql.id(schema)}`.execute(trx);
      await dmConversationsProjection.createTables(trx, schema);
      await dmConversationsProjection.fold(trx, events, schema);
    });
    return (
      await sql<Row>`select conversation_id, org_id, revision, closed, conversation from ${sql.id(schema, 'dm_conversations')}
        order by conversation_id`.execute(db)
    ).rows;
  };
  const suffix = ws.orgId.slice(0, 8);
  const before = await rows(ws.orgId);
  expect(await scratch(`dmc_once_${suffix}`, stored)).toEqual(before);
  expect(await scratch(`dmc_twice_${suffix}`, [...stored.flatMap((e) => [e, e]), ...stored])).toEqual(before);

  const { runtime } = service;
  await rebuildProjection(
    {
      db: runtime.database.db,
      eventStore: runtime.eventStore,
      projections: runtime.projections,
      logger: runtime.logger,
    },
    'dm_conversations',
  );
  expect(await rows(ws.orgId)).toEqual(before);
});
