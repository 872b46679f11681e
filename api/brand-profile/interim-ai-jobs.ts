// INTERIM — REMOVED AT MERGE: a minimal 'ai jobs' service (domain/ai/job.ts) until the ai slice's runtime is
// merged, which then provides it (durable agent runs, model providers, credits). It runs the job's offline writer
// and says so honestly (`source: 'heuristic'`, model `offline`, no credits); it records no agent run.
import { randomUUID } from 'node:crypto';
import { offlineModel, type AiJobRunner } from '../../domain/ai/job.js';

export function buildInterimAiJobs(): AiJobRunner {
  return {
    run(job, request) {
      return Promise.resolve({
        output: job.heuristic(request.input),
        source: 'heuristic',
        providerModel: offlineModel,
        runId: randomUUID(),
        creditsUsed: 0,
      });
    },
  };
}
