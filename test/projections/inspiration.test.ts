// The inspiration read model (issue 31): one row per item folded with the domain's evolve, beside it the item read
// against the workspace's strategy, which the projection folds from the strategy's own events. After saves, an
// edit, a move, a deletion and two strategy changes, the rows match the streams' items and the interpretation of
// the strategy shown; every event applied twice changes nothing; a rebuild from the log gives the same rows.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { inspirationStream } from '../../commands/inspiration/inspiration-use-cases.js';
import { loadAggregate } from '../../commands/shared/command-handler.js';
import { strategyStream } from '../../commands/strategy/strategy-use-cases.js';
import { interpret, strategyLensOf } from '../../domain/inspiration/interpretation.js';
import { inspirationDecider } from '../../domain/inspiration/item.js';
import { strategyDecider } from '../../domain/strategy/strategy.js';
import { inspirationProjection } from '../../projections/inspiration/inspiration-projection.js';
import { rebuildProjection } from '../../projections/engine/rebuild.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace } from '../support/workspace.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ publishing: { sweep: false, work: false } });
});
afterAll(async () => service.stop());

interface Row {
  id: string;
  revision: number;
  deleted: boolean;
  relevance_score: number | null;
  opportunity_status: string;
  item: unknown;
  interpretation: unknown;
}
const select = (table: ReturnType<typeof sql.id>, orgId: string) =>
  sql<Row>`select id, revision, deleted, relevance_score, opportunity_status, item, interpretation from ${table}
    where org_id = ${orgId} order by id`;

test('rows follow the streams and the strategy; an event applied twice changes nothing; a rebuild gives the same rows', async () => {
  const ws = await createTestWorkspace(service);
  const call = async (method: string, rest: string, body?: unknown) => {
    const res = await service.request(method, `/v1/orgs/${ws.orgId}${rest}`, {
      token: ws.tokens.owner,
      ...(body !== undefined ? { body } : {}),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return ((await res.json()) as { data: { id: string } }).data;
  };
  const a = await call('POST', '/inspiration', { contentText: 'Onboarding in three steps.', platform: 'x' });
  await call('PATCH', '/strategy', { pillars: [{ name: 'Onboarding', keywords: ['steps'] }] });
  const b = await call('POST', '/inspiration', {
    contentText: 'Pricing pages should show prices.',
    platform: 'linkedin',
  });
  const c = await call('POST', '/inspiration', { contentText: 'Gone soon.', platform: 'x' });
  await call('PATCH', `/inspiration/${a.id}`, { tags: ['steps'] });
  await call('POST', `/inspiration/${b.id}/opportunity`, { status: 'hidden' });
  await call('DELETE', `/inspiration/${c.id}`);
  await call('PATCH', '/strategy', {
    pillars: [
      { name: 'Onboarding', keywords: ['steps'] },
      { name: 'Pricing', keywords: ['prices'] },
    ],
  });

  const db = service.runtime.database.db;
  const served = (await select(sql.id('inspiration_items'), ws.orgId).execute(db)).rows;
  const { state: strategy } = await loadAggregate(
    service.runtime.eventStore,
    strategyStream(ws.orgId),
    strategyDecider,
  );
  const lens = strategyLensOf(strategy, new Date().toISOString());
  expect(served.map((r) => r.id).sort()).toEqual([a.id, b.id, c.id].sort());
  for (const row of served) {
    const { state, revision } = await loadAggregate(
      service.runtime.eventStore,
      inspirationStream(row.id),
      inspirationDecider,
    );
    expect(row.revision).toBe(revision);
    expect(row.deleted).toBe(state.status === 'deleted');
    if (state.status !== 'exists') continue;
    expect(row.item).toEqual(JSON.parse(JSON.stringify(state.item)));
    expect(row.interpretation).toEqual(JSON.parse(JSON.stringify(interpret(state.item, lens))));
  }
  expect(served.find((r) => r.id === b.id)!.interpretation).toMatchObject({ matchedPillars: ['Pricing'] });

  // Folded into scratch tables from the log: once, and with every event applied twice and the whole log again.
  const stored = (
    await Promise.all(
      [strategyStream(ws.orgId), ...[a.id, b.id, c.id].map(inspirationStream)].map((s) =>
        service.runtime.eventStore.readStream(s),
      ),
    )
  ).flat();
  const scratch = async (schema: string, events: typeof stored) => {
    await db.transaction().execute(async (trx) => {
      await sql`create schema ${sql.id(schema)}`.execute(trx);
      await inspirationProjection.createTables(trx, schema);
      await inspirationProjection.fold(trx, events, schema);
    });
    return (await select(sql.id(schema, 'inspiration_items'), ws.orgId).execute(db)).rows;
  };
  const suffix = ws.orgId.slice(0, 8);
  expect(await scratch(`insp_once_${suffix}`, stored)).toEqual(served);
  expect(await scratch(`insp_twice_${suffix}`, [...stored.flatMap((e) => [e, e]), ...stored])).toEqual(
    served,
  );

  const { runtime } = service;
  await rebuildProjection(
    {
      db: runtime.database.db,
      eventStore: runtime.eventStore,
      projections: runtime.projections,
      logger: runtime.logger,
    },
    'inspiration',
  );
  expect((await select(sql.id('inspiration_items'), ws.orgId).execute(db)).rows).toEqual(served);
});
