// The research slice (issue 31, part 3): the research tools under the inspiration tag — trending topics (X
// personalized trends and recent search with the workspace's account, credits reserved and settled), niche news
// from the workspace's RSS/Atom/JSON feeds (safe fetch, parsed off-thread, cached in research_feed_reads), viral post
// formats, platform algorithm hints, X accounts to follow — and the newsjacking settings (`newsjackingSettings-<orgId>`).
// Where no live source is available the curated set shipped with the project answers, labelled and dated.
import { researchMigrations } from '../../infra/research/migrations.js';
import { billingServices } from '../billing/services.js';
import { defineSlice, migrationsOf } from '../shared/slice.js';
import { researchOperations } from './operations.js';

export const researchSlice = defineSlice({
  name: 'research',
  migrations: migrationsOf(researchMigrations),
  requires: [billingServices],
  operations: [researchOperations],
});
