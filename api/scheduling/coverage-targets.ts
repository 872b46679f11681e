// The scheduling slice's extension point for schedule coverage's targets: a slice that knows how many posts a
// channel should get a week (the strategy slice: its active version's channel priorities) contributes a source.
import type { Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import type { ReadModels } from '../../projections/read-models.js';
import { extensionPoint } from '../shared/service.js';

/** postsPerWeek per channel of one workspace (a channel left out has no target). */
export type CoverageTargetSource = (
  db: Kysely<ReadModels>,
  orgId: string,
) => Promise<Partial<Record<Platform, number>>>;

export const coverageTargets = extensionPoint<CoverageTargetSource>('coverage targets');

/** Every source's targets of a workspace, the later source's target winning for a channel both name. */
export function targetsFrom(db: Kysely<ReadModels>, sources: readonly CoverageTargetSource[]) {
  return async (orgId: string): Promise<Partial<Record<Platform, number>>> => {
    const answers = await Promise.all(sources.map((source) => source(db, orgId)));
    return Object.assign({}, ...answers) as Partial<Record<Platform, number>>;
  };
}
