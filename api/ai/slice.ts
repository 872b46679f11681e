// The ai slice (issue 27): the AI runtime. It provides the 'ai jobs' service (domain/ai/job.ts) the slices
// that write with AI require; runs every job as a durable agent run with recorded steps (events, read model,
// GET ORG/agent-runs and …/steps); and fails the runs a stopped worker left running (lease expiry).
import { agentRunsProjection } from '../../projections/agent-runs/agent-runs-projection.js';
import { startLeaseExpiry } from '../../processes/agent-runs/lease-expiry.js';
import { aiSettings } from '../../infra/ai/settings.js';
import { billingServices } from '../billing/services.js';
import { provide } from '../shared/provider.js';
import { defineSlice } from '../shared/slice.js';
import { agentRunOperations } from './operations.js';
import { buildJobRunner, leaseMsOf } from './runner-of.js';
import { aiJobsService } from './services.js';

export const aiSlice = defineSlice({
  name: 'ai',
  settings: [aiSettings],
  requires: [billingServices],
  provides: [provide(aiJobsService, { requires: [billingServices], build: (ctx) => buildJobRunner(ctx) })],
  projections: [agentRunsProjection],
  operations: [agentRunOperations],
  workers: [
    {
      name: 'agent-run-lease-expiry',
      async start(ctx) {
        const { credits, now } = ctx.use(billingServices);
        return startLeaseExpiry(
          { commands: ctx.commands, readModels: ctx.readModels, credits, now, leaseMs: leaseMsOf(ctx.env) },
          ctx.logger,
        );
      },
    },
  ],
});
