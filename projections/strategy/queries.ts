// What other slices read of a workspace's strategy: the active version's channel targets (schedule coverage) and
// whether a confirmed strategy is active (onboarding's `strategy` step).
import type { Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import { activeVersionOf, channelTargetsOf, type StrategyState } from '../../domain/strategy/strategy.js';
import type { OnboardingProbe } from '../onboarding/probes.js';
import type { ReadModels } from '../read-models.js';
import type { StrategyTables } from './strategy-projection.js';

const tablesOf = (db: Kysely<ReadModels>) =>
  db.withTables<StrategyTables>() as unknown as Kysely<StrategyTables>;

/** postsPerWeek per channel of the active strategy (domain/strategy `channelTargetsOf`); empty without one. */
export async function activeChannelTargets(
  db: Kysely<ReadModels>,
  orgId: string,
): Promise<Partial<Record<Platform, number>>> {
  const row = await tablesOf(db)
    .selectFrom('strategies')
    .select('state')
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  if (!row) return {};
  const state = (typeof row.state === 'string' ? JSON.parse(row.state) : row.state) as StrategyState;
  const active = activeVersionOf(state);
  return active ? channelTargetsOf(active.content) : {};
}

/** strategyReady: an active version a person confirmed (a generated one made active unconfirmed does not count). */
export const strategyProbe: OnboardingProbe = async (db, orgId) => {
  const row = await tablesOf(db)
    .selectFrom('strategies')
    .select('active_confirmed')
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return { strategyReady: row?.active_confirmed === true };
};
