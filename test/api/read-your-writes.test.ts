// Read-your-writes: a write answers 2xx only once every read endpoint shows it, even when the projector is slow
// and runs in another instance; when the read models cannot catch up in time the answer is 503, never a false 2xx.
import { afterAll, describe, expect, test } from 'vitest';
import type { Projection } from '../../projections/engine/projection.js';
import { projections } from '../../api/runtime.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startTestService, type TestService } from '../support/runtime.js';

/** The real projectors, each event applied 150 ms late. */
const slow: readonly Projection[] = projections.map((p) => ({
  ...p,
  fold: async (trx, events, schema) => {
    for (const event of events) {
      await new Promise((r) => setTimeout(r, 150));
      await p.fold(trx, [event], schema);
    }
  },
}));

const services: TestService[] = [];
const databases: TestDatabase<unknown>[] = [];
afterAll(async () => {
  for (const s of services) await s.stop();
  for (const d of databases) await d.drop();
});

describe('read-your-writes', () => {
  test('a write served by one instance is visible at once, though another instance runs the slow projectors', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    // Instance A answers HTTP and runs no projector; instance B runs the (slow) projectors.
    const projector = await startTestService({ database, projections: slow });
    services.push(projector);
    const api = await startTestService({
      database,
      background: false,
      dataDir: projector.dataDir,
      projections: slow,
    });
    services.push(api);
    const ada = await api.userToken('ada@example.org');
    for (let i = 0; i < 5; i++) {
      const created = await api.request('POST', '/v1/orgs', {
        token: ada.token,
        body: { name: `W${i}`, slug: `w-${i}` },
      });
      expect(created.status).toBe(201);
      const list = (await (await api.request('GET', '/v1/orgs', { token: ada.token })).json()) as {
        data: Array<{ slug: string }>;
      };
      expect(list.data.map((w) => w.slug)).toContain(`w-${i}`);
      const patched = await api.request('PATCH', '/v1/users/me', {
        token: ada.token,
        body: { name: `Ada ${i}` },
      });
      expect(patched.status).toBe(200);
      const me = (await (await api.request('GET', '/v1/users/me', { token: ada.token })).json()) as {
        data: { name: string };
      };
      expect(me.data.name).toBe(`Ada ${i}`);
    }
  });

  test('when no projector runs, a write is recorded but answered 503 read_models_lagging; it shows once they run', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const api = await startTestService({
      database,
      background: false,
      env: { READ_YOUR_WRITES_TIMEOUT_MS: '300' },
    });
    services.push(api);
    const { token } = await api.runtime.auth.issueAccessToken({
      userId: '00000000-0000-4000-8000-00000000abcd',
      orgId: null,
      role: null,
    });
    const res = await api.request('POST', '/v1/orgs', { token, body: { name: 'Late', slug: 'late' } });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'read_models_lagging' });

    await api.runtime.startBackground();
    const deadline = Date.now() + 10_000;
    let slugs: string[] = [];
    while (Date.now() < deadline) {
      const list = (await (await api.request('GET', '/v1/orgs', { token })).json()) as {
        data: Array<{ slug: string }>;
      };
      slugs = list.data.map((w) => w.slug);
      if (slugs.includes('late')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(slugs).toEqual(['late']);
  });
});
