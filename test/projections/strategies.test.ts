// The strategies read model (one row per workspace, folded with the domain's evolve, guarded by stream revision):
// after generate, confirm, a proposal and a PATCH its row matches the stream's state, and a rebuild from the log
// gives the same rows; coverage targets and onboarding read it.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadAggregate } from '../../commands/shared/command-handler.js';
import { strategyStream } from '../../commands/strategy/strategy-use-cases.js';
import { strategyDecider } from '../../domain/strategy/strategy.js';
import { rebuildProjection } from '../../projections/engine/rebuild.js';
import { activeChannelTargets, strategyProbe } from '../../projections/strategy/queries.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace } from '../support/workspace.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ publishing: { sweep: false, work: false } });
});
afterAll(async () => service.stop());

const rows = async () =>
  (
    await sql<{
      org_id: string;
      revision: number;
      state: unknown;
      active_version: number | null;
      active_confirmed: boolean;
    }>`select org_id, revision, state, active_version, active_confirmed from strategies order by org_id`.execute(
      service.runtime.readModels,
    )
  ).rows;

test('the row follows the stream, and a rebuild from the log gives the same rows', async () => {
  const ws = await createTestWorkspace(service);
  const post = (rest: string, body: unknown, method = 'POST') =>
    service.request(method, `/v1/orgs/${ws.orgId}/strategy${rest}`, { token: ws.tokens.owner, body });
  for (const [rest, body, method] of [
    ['/generate', {}, 'POST'],
    ['/confirm', {}, 'POST'],
    ['/generate', { goal: 'Launch' }, 'POST'],
    ['', { channelPriorities: [{ platform: 'bluesky', postsPerWeek: 4 }] }, 'PATCH'],
  ] as const)
    expect((await post(rest, body, method)).status).toBe(200);

  const { state, revision } = await loadAggregate(
    service.runtime.eventStore,
    strategyStream(ws.orgId),
    strategyDecider,
  );
  const mine = (await rows()).find((r) => r.org_id === ws.orgId)!;
  expect(mine).toMatchObject({ revision, active_version: 1, active_confirmed: true });
  expect(mine.state).toEqual(JSON.parse(JSON.stringify(state)));
  expect(await activeChannelTargets(service.runtime.readModels, ws.orgId)).toEqual({ bluesky: 4 });
  expect(await strategyProbe(service.runtime.readModels, ws.orgId)).toEqual({ strategyReady: true });

  const before = await rows();
  const { runtime } = service;
  await rebuildProjection(
    {
      db: runtime.database.db,
      eventStore: runtime.eventStore,
      projections: runtime.projections,
      logger: runtime.logger,
    },
    'strategies',
  );
  expect(await rows()).toEqual(before);
});
