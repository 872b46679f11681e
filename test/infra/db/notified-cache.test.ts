// The NOTIFY-invalidated cache (infra/db/notified-cache.ts) against the real PostgreSQL: answers are cached while
// it listens, a notification drops its key (one naming none drops all), nothing is cached while not listening,
// a new LISTEN connection starts from an empty cache, entries expire after their TTL, a key this process is
// changing is read uncached until its notification, and a read overtaken by an invalidation is not stored.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotifiedCache, type NotifiedCacheOptions } from '../../../infra/db/notified-cache.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { waitUntil } from '../../support/wait.js';

let database: TestDatabase<unknown>;
const caches: NotifiedCache<string>[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const cache of caches) await cache.close();
  await database?.drop();
});

/** A cache on a channel of its own, and a source whose value the test changes, counting its reads. */
function fixture(options: Partial<NotifiedCacheOptions> = {}) {
  const channel = `cache_test_${randomBytes(6).toString('hex')}`;
  const name = `notified-cache-${channel}`;
  const cache = new NotifiedCache<string>({
    channel,
    name,
    keyOf: (payload) => (payload === '*' ? null : payload),
    ttlMs: 600_000,
    ...options,
  });
  caches.push(cache);
  const source = { value: 'v1', reads: 0 };
  const load = async () => {
    source.reads += 1;
    return source.value;
  };
  const notify = (payload: string) => sql`select pg_notify(${channel}, ${payload})`.execute(database.db);
  return { cache, channel, name, source, load, notify };
}

describe('NotifiedCache', () => {
  it('caches while listening, and a NOTIFY drops the key it names', async () => {
    const { cache, source, load, notify } = fixture();
    await cache.listen(database.url);
    expect(await cache.get('a', load)).toBe('v1');
    expect(await cache.get('b', load)).toBe('v1');
    expect(await cache.get('a', load)).toBe('v1');
    expect(source.reads).toBe(2);

    source.value = 'v2';
    await notify('a');
    await waitUntil(async () => (await cache.get('a', load)) === 'v2', { what: 'the notification' });
    // Only the key named was dropped.
    expect(await cache.get('b', load)).toBe('v1');
  });

  it('a NOTIFY naming no key drops everything', async () => {
    const { cache, source, load, notify } = fixture();
    await cache.listen(database.url);
    await cache.get('a', load);
    await cache.get('b', load);
    source.value = 'v2';
    await notify('*');
    await waitUntil(async () => (await cache.get('a', load)) === 'v2', { what: 'the notification' });
    expect(await cache.get('b', load)).toBe('v2');
  });

  it('caches nothing while not listening: before listen, after close, and while the connection fails', async () => {
    const { cache, source, load } = fixture();
    await cache.get('a', load);
    await cache.get('a', load);
    expect(source.reads).toBe(2);

    await cache.listen(database.url);
    await cache.get('a', load);
    await cache.get('a', load);
    expect(source.reads).toBe(3);

    await cache.close();
    await cache.get('a', load);
    await cache.get('a', load);
    expect(source.reads).toBe(5);

    const unreachable = fixture();
    const url = new URL(database.url);
    url.pathname = '/no_such_database_here';
    await unreachable.cache.listen(url.toString());
    await unreachable.cache.get('a', unreachable.load);
    await unreachable.cache.get('a', unreachable.load);
    expect(unreachable.source.reads).toBe(2);
  });

  it('drops everything when the LISTEN connection is opened again (notifications meanwhile are lost)', async () => {
    const { cache, name, source, load } = fixture();
    await cache.listen(database.url);
    await cache.get('a', load);
    await cache.get('a', load);
    expect(source.reads).toBe(1);

    // The connection dies and the value changes with no notification at all.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where application_name = ${name} and datname = current_database()`.execute(database.db);
    source.value = 'v2';
    await waitUntil(async () => (await cache.get('a', load)) === 'v2', { what: 'the reconnection' });
    // Cached again on the new connection.
    const reads = source.reads;
    expect(await cache.get('a', load)).toBe('v2');
    expect(source.reads).toBe(reads);
  });

  it('keeps an entry at most ttlMs', async () => {
    let now = 1_000_000;
    const { cache, source, load } = fixture({ ttlMs: 30_000, now: () => now });
    await cache.listen(database.url);
    await cache.get('a', load);
    now += 29_999;
    await cache.get('a', load);
    expect(source.reads).toBe(1);
    now += 1;
    source.value = 'v2';
    expect(await cache.get('a', load)).toBe('v2');
    expect(source.reads).toBe(2);
  });

  it("reads a key this process is changing uncached until the change's notification, or settleMs", async () => {
    let now = 1_000_000;
    const { cache, source, load, notify } = fixture({ settleMs: 10_000, now: () => now });
    await cache.listen(database.url);
    await cache.get('a', load);
    cache.changing('a');
    await cache.get('a', load);
    await cache.get('a', load);
    expect(source.reads).toBe(3);

    await notify('a');
    await waitUntil(
      async () => {
        const before = source.reads;
        await cache.get('a', load);
        await cache.get('a', load);
        return source.reads === before + 1;
      },
      { what: 'caching again after the notification' },
    );

    cache.changing('a');
    now += 10_000;
    const reads = source.reads;
    await cache.get('a', load);
    await cache.get('a', load);
    expect(source.reads).toBe(reads + 1);
  });

  it('does not store an answer read before an invalidation', async () => {
    const { cache, source, load } = fixture();
    await cache.listen(database.url);
    const slow = cache.get('a', async () => {
      const value = await load();
      cache.forget('a');
      return value;
    });
    expect(await slow).toBe('v1');
    source.value = 'v2';
    expect(await cache.get('a', load)).toBe('v2');
  });
});
