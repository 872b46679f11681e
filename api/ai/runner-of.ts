// Builds the ai slice's 'ai jobs' service: the agent job runner over the configured model (or none: offline),
// the runtime's command path and the billing slice's credit ledger.
import { AgentJobRunner } from '../../commands/ai/job-runner.js';
import { languageModelFromEnv } from '../../infra/ai/from-env.js';
import type { LanguageModelPort } from '../../infra/ai/port.js';
import type { AiEnv } from '../../infra/ai/settings.js';
import { billingServices } from '../billing/services.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { SliceContext } from '../shared/slice.js';

/** The lease a step gives its worker: a round's timeout plus the longest Retry-After waited, and a margin. */
export function leaseMsOf(env: AiEnv): number {
  if (env.AI_RUN_LEASE_SECONDS !== undefined) return env.AI_RUN_LEASE_SECONDS * 1000;
  return (env.AI_TIMEOUT_SECONDS + env.AI_MAX_RETRY_AFTER_SECONDS + 30) * 1000;
}

export function buildJobRunner(
  ctx: SliceContext<typeof billingServices, PlatformEnv & AiEnv>,
  options: { model?: LanguageModelPort | null } = {},
): AgentJobRunner {
  const billing = ctx.use(billingServices);
  return new AgentJobRunner({
    commands: ctx.commands,
    credits: billing.credits,
    model: options.model === undefined ? languageModelFromEnv(ctx.env) : options.model,
    now: billing.now,
    workerId: `${process.pid}`,
    maxAttempts: ctx.env.AI_RUN_MAX_ATTEMPTS,
    outputRetries: ctx.env.AI_OUTPUT_RETRIES,
    maxRetryAfterMs: ctx.env.AI_MAX_RETRY_AFTER_SECONDS * 1000,
    leaseMs: leaseMsOf(ctx.env),
  });
}
