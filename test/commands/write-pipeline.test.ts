// The write pipeline every write use case runs through: Idempotency-Key replay and reuse, keys per caller
// (a user's own, an assistant connection's), the settled answer replacing the recorded one, and the metadata.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { idempotencyMigrations, IdempotencyStore } from '../../commands/shared/idempotency.js';
import { runWrite, type WriteRequest, type WriteStep } from '../../commands/shared/write-pipeline.js';
import type { Caller } from '../../domain/shared/caller.js';
import { Conflict, Unprocessable, ValidationError } from '../../domain/shared/errors.js';
import type { ReadModels } from '../../projections/read-models.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase<ReadModels>;
let store: IdempotencyStore;

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>(idempotencyMigrations);
  store = new IdempotencyStore(database.db);
});
afterAll(async () => database.drop());

const user = (userId = randomUUID()): Caller => ({
  kind: 'user',
  userId,
  orgId: randomUUID(),
  role: 'editor',
  permissions: ['posts:read', 'posts:draft'],
});
const assistantOf = (caller: Caller, clientId = 'claude'): Caller => ({
  ...caller,
  kind: 'assistant',
  clientId,
  clientName: 'Claude',
  connectionId: '00000000-0000-4000-8000-00000000c0c0',
  scopes: ['mcp:read', 'posts:write'],
});

const request = (key?: string, requestHash = 'hash-a'): WriteRequest => ({
  correlationId: randomUUID(),
  now: '2030-01-01T00:00:00.000Z',
  ...(key !== undefined ? { idempotency: { key, requestHash, status: 200 } } : {}),
});

/** An execute step that counts its runs and answers with the run number. */
function counting() {
  const steps: WriteStep<{ run: number }>[] = [];
  return {
    steps,
    execute: async (step: WriteStep<{ run: number }>) => {
      steps.push(step);
      return { run: steps.length };
    },
  };
}

describe('without a key', () => {
  test('every call executes, nothing is recorded, no seed', async () => {
    const { steps, execute } = counting();
    const caller = user();
    expect(await runWrite(store, caller, request(), execute)).toEqual({
      output: { run: 1 },
      replayed: false,
    });
    expect(await runWrite(store, caller, request(), execute)).toEqual({
      output: { run: 2 },
      replayed: false,
    });
    expect(steps[0]!.record).toBeUndefined();
    expect(steps[0]!.idempotencySeed).toBeUndefined();
  });
});

describe('with a key', () => {
  test('the same request replays the first answer without executing; another request is 422', async () => {
    const { steps, execute } = counting();
    const caller = user();
    const key = randomUUID();
    expect(await runWrite(store, caller, request(key), execute)).toEqual({
      output: { run: 1 },
      replayed: false,
    });
    expect(await runWrite(store, caller, request(key), execute)).toEqual({
      output: { run: 1 },
      replayed: true,
    });
    expect(steps).toHaveLength(1);
    expect(steps[0]!.idempotencySeed).toBe(`${caller.userId}:${key}`);
    await expect(runWrite(store, caller, request(key, 'hash-b'), execute)).rejects.toBeInstanceOf(
      Unprocessable,
    );
  });

  test('the answer recorded with the append is the one replayed, kept as the HTTP answer was', async () => {
    const caller = user();
    const key = randomUUID();
    await runWrite(store, caller, request(key), async (step) => {
      await database.db.transaction().execute((trx) => step.record!(trx, { run: 41 }));
      return { run: 41 };
    });
    const replay = await runWrite(store, caller, request(key), () => Promise.reject(new Error('not run')));
    expect(replay).toEqual({ output: { run: 41 }, replayed: true });
    expect(await store.replay({ scope: caller.userId, key, requestHash: 'hash-a' })).toEqual({
      status: 200,
      body: { data: { run: 41 } },
    });
  });

  test("keys are the caller's own: another user's, or the user's assistant's, same key executes anew", async () => {
    const { steps, execute } = counting();
    const caller = user();
    const key = randomUUID();
    await runWrite(store, caller, request(key), execute);
    expect((await runWrite(store, user(), request(key), execute)).replayed).toBe(false);
    const assistant = assistantOf(caller);
    expect((await runWrite(store, assistant, request(key), execute)).replayed).toBe(false);
    expect((await runWrite(store, assistantOf(caller, 'other'), request(key), execute)).replayed).toBe(false);
    expect((await runWrite(store, assistant, request(key), execute)).replayed).toBe(true);
    expect(steps).toHaveLength(4);
  });

  test('a malformed key is a 400 naming the header, before anything runs', async () => {
    const { steps, execute } = counting();
    await expect(runWrite(store, user(), request('bad key with spaces'), execute)).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(steps).toHaveLength(0);
  });

  test('a twin refused because the winner already acted answers what the winner recorded', async () => {
    const caller = user();
    const key = randomUUID();
    // The twin read no record, then the winner wrote and recorded, then the twin's command was refused.
    const twin = await runWrite(store, caller, request(key), async () => {
      await runWrite(store, caller, request(key), async () => ({ run: 1 }));
      throw new Conflict('Nothing left to delete');
    });
    expect(twin).toEqual({ output: { run: 1 }, replayed: true });
  });
});

describe('settle', () => {
  test('a settled answer replaces the first, also in the record; a replay is not settled again', async () => {
    const caller = user();
    const key = randomUUID();
    let settles = 0;
    const settle = async (output: { run: number }) => {
      settles++;
      return { run: output.run + 100 };
    };
    const first = await runWrite(store, caller, request(key), async () => ({ run: 1 }), { settle });
    expect(first).toEqual({ output: { run: 101 }, replayed: false });
    const replay = await runWrite(store, caller, request(key), async () => ({ run: 2 }), { settle });
    expect(replay).toEqual({ output: { run: 101 }, replayed: true });
    expect(settles).toBe(1);
  });

  test('null keeps the first answer', async () => {
    const written = await runWrite(store, user(), request(randomUUID()), async () => ({ run: 1 }), {
      settle: async () => null,
    });
    expect(written).toEqual({ output: { run: 1 }, replayed: false });
  });
});

test("the metadata names the caller: a user by id, an assistant as assistant:<clientId>, in the caller's workspace", async () => {
  const caller = user();
  const { steps, execute } = counting();
  await runWrite(store, caller, request(), execute);
  await runWrite(store, assistantOf(caller), request(), execute);
  expect(steps.map((s) => s.metadata.actor)).toEqual([caller.userId, 'assistant:claude']);
  expect(steps[0]!.metadata).toMatchObject({ orgId: caller.orgId, now: '2030-01-01T00:00:00.000Z' });
  // Who acted in the events' own terms (`by`): the user, also when their assistant acted.
  expect(steps.map((s) => s.metadata.userId)).toEqual([caller.userId, caller.userId]);
  // An assistant's writes also say which client and connection, for the audit history.
  expect(steps[0]!.metadata.assistant).toBeUndefined();
  expect(steps[1]!.metadata.assistant).toEqual({
    clientId: 'claude',
    clientName: 'Claude',
    connectionId: '00000000-0000-4000-8000-00000000c0c0',
    onBehalfOf: caller.userId,
  });
});
