// INTERIM — removed at merge. Until the ai slice (the `ai jobs` service) and the brand-profile slice (the `brand
// context` service) are merged, the strategy slice provides both minimally so the service starts and generate works:
// every job runs its offline writer (source `heuristic`, model `offline`, no credits; the run id derived from
// the idempotency key when there is one), and no workspace has a brand
// context yet. At merge: delete this file and the `provides` line of api/strategy/slice.ts; nothing else changes.
import { randomUUID } from 'node:crypto';
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import { offlineModel, type AiJobRunner } from '../../domain/ai/job.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { provide } from '../shared/provider.js';

/** Runs a job's offline writer and checks its output against the job's schema, as the runtime does a model's. */
export const offlineAiJobs: AiJobRunner = {
  run: async (job, request) => ({
    output: job.output.parse(job.heuristic(request.input)),
    source: 'heuristic',
    providerModel: offlineModel,
    // Idempotent by key within the workspace, as the runtime's runs are: the same key, the same run.
    runId: request.idempotencyKey
      ? deterministicUuid('interim-run', request.orgId, request.idempotencyKey)
      : randomUUID(),
    creditsUsed: 0,
  }),
};

export const noBrandContext: BrandContextReader = { forOrg: async () => null };

/** REMOVED AT MERGE (see the header). */
export const interimProviders = [
  provide(aiJobsService, { build: () => offlineAiJobs }),
  provide(brandContextService, { build: () => noBrandContext }),
];
