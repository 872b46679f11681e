// The one write path: concurrent commands on one stream are all decided against what the others wrote
// (bounded retries, dense revisions); when retries are spent the answer is a 409.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { handleCommand } from '../../commands/shared/command-handler.js';
import { addMember, createWorkspace, workspaceStream } from '../../commands/workspaces/workspace-commands.js';
import { Conflict } from '../../domain/shared/errors.js';
import { workspaceDecider } from '../../domain/workspaces/workspace.js';
import { eventStoreMigrations } from '../../infra/event-store/postgres/migrations.js';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.js';
import type { EventStore } from '../../infra/event-store/port.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase<unknown>;
let store: PostgresEventStore<unknown>;
const meta = () => ({
  orgId: null,
  actor: 'system',
  correlationId: randomUUID(),
  now: new Date().toISOString(),
});

beforeAll(async () => {
  database = await createTestDatabase(eventStoreMigrations);
  store = new PostgresEventStore({ db: database.db, url: database.url });
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

test('20 concurrent commands on one workspace all land, each decided against the others', async () => {
  const orgId = randomUUID();
  await createWorkspace(
    { eventStore: store },
    { orgId, slug: `ws-${orgId.slice(0, 8)}`, name: 'W', ownerId: randomUUID() },
    meta(),
  );
  const users = Array.from({ length: 20 }, () => randomUUID());
  await Promise.all(
    users.map((userId) =>
      addMember({ eventStore: store, maxRetries: 50 }, orgId, { userId, role: 'editor' }, meta()),
    ),
  );
  const events = await store.readStream(workspaceStream(orgId));
  expect(events.map((e) => e.revision)).toEqual(events.map((_, i) => i));
  expect(events.filter((e) => e.type === 'MemberJoined')).toHaveLength(21);
});

test('a conflict that outlasts the retries is a 409 concurrency_conflict, and nothing is appended', async () => {
  const orgId = randomUUID();
  await createWorkspace(
    { eventStore: store },
    { orgId, slug: `ws-${orgId.slice(0, 8)}`, name: 'W', ownerId: randomUUID() },
    meta(),
  );
  const before = await store.readStream(workspaceStream(orgId));
  // A store whose stream always moves on between read and append.
  const racing: EventStore<unknown> = {
    ...store,
    readStream: (s, o) => store.readStream(s, o),
    streamRevision: (s) => store.streamRevision(s),
    appendToStream: (s, events, options) =>
      store.appendToStream(s, events, {
        ...options,
        expectedRevision:
          typeof options.expectedRevision === 'number' ? options.expectedRevision - 1 : 'stream_exists',
      }),
  } as EventStore<unknown>;
  const attempt = handleCommand(
    { eventStore: racing, maxRetries: 2 },
    {
      stream: workspaceStream(orgId),
      decider: workspaceDecider,
      command: { type: 'AddMember', userId: randomUUID(), role: 'viewer', now: new Date().toISOString() },
      metadata: meta(),
    },
  );
  await expect(attempt).rejects.toBeInstanceOf(Conflict);
  await expect(attempt).rejects.toMatchObject({ status: 409, code: 'concurrency_conflict' });
  expect(await store.readStream(workspaceStream(orgId))).toHaveLength(before.length);
});

test('a state the caller already read is decided on without reading again; if it is stale, the append is refused and the command is decided again on what the store has', async () => {
  const orgId = randomUUID();
  await createWorkspace(
    { eventStore: store },
    { orgId, slug: `ws-${orgId.slice(0, 8)}`, name: 'W', ownerId: randomUUID() },
    meta(),
  );
  const stream = workspaceStream(orgId);
  let reads = 0;
  const counting = {
    readStream: (s: string, o?: object) => ((reads += 1), store.readStream(s, o)),
    appendToStream: (s: string, e: never, o: never) => store.appendToStream(s, e, o),
  } as unknown as EventStore<unknown>;
  const read = await store.readStream(stream);
  const state = read.reduce(
    (s, e) => workspaceDecider.evolve(s, { type: e.type, data: e.data } as never),
    workspaceDecider.initialState,
  );
  const userId = randomUUID();
  const add = (id: string) => ({
    type: 'AddMember' as const,
    userId: id,
    role: 'viewer' as const,
    now: new Date().toISOString(),
  });
  const fresh = { state, revision: read.at(-1)!.revision };
  await handleCommand(
    { eventStore: counting },
    {
      stream,
      decider: workspaceDecider,
      command: add(userId),
      metadata: meta(),
      loaded: fresh,
    },
  );
  expect(reads).toBe(0);

  // The same (now stale) state again: the store refuses the append, the handler reads and decides again.
  const other = randomUUID();
  await handleCommand(
    { eventStore: counting },
    {
      stream,
      decider: workspaceDecider,
      command: add(other),
      metadata: meta(),
      loaded: fresh,
    },
  );
  expect(reads).toBe(1);
  const joined = (await store.readStream(stream)).filter((e) => e.type === 'MemberJoined');
  expect(joined.map((e) => (e.data as { userId: string }).userId)).toEqual(
    expect.arrayContaining([userId, other]),
  );
  expect(joined).toHaveLength(3);
});
