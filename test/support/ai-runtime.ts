// The test side of the AI runtime: a slice that takes the 'ai jobs' service (the way the strategy or brand
// slices do, `requires: [aiJobsService]`) and hands it to the test, the environment of a locally served model,
// and a credits service over the test service's ledger.
import { aiJobsService } from '../../api/ai/services.js';
import { provide } from '../../api/shared/provider.js';
import { service } from '../../api/shared/service.js';
import { defineSlice } from '../../api/shared/slice.js';
import { slices } from '../../api/slices.js';
import { CreditLedgerStore } from '../../commands/billing/credit-ledger-store.js';
import { CreditsService } from '../../commands/billing/credits.js';
import { ensureStarted } from '../../commands/billing/subscription-commands.js';
import type { AiJobRunner } from '../../domain/ai/job.js';
import { BillingCatalog, defaultBillingConfigFile, loadBillingConfig } from '../../infra/billing/config.js';
import type { TestService } from './runtime.js';

/** Slices of the service plus one that captures its 'ai jobs' runner in `holder.runner`. */
export function slicesWithRunner(holder: { runner?: AiJobRunner }) {
  const captured = service<AiJobRunner>()('test: captured ai jobs');
  const captureSlice = defineSlice({
    name: 'test-ai-jobs',
    requires: [aiJobsService],
    provides: [
      provide(captured, {
        requires: [aiJobsService],
        build: (ctx) => (holder.runner = ctx.use(aiJobsService)),
      }),
    ],
  });
  return [...slices, captureSlice];
}

/** The AI settings of a locally served OpenAI-compatible model. */
export function localModelEnv(
  baseUrl: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    AI_PROVIDER: 'openai-compatible',
    AI_MODEL: 'gpt-4o-mini',
    AI_BASE_URL: baseUrl,
    AI_API_KEY: 'sk-local-test',
    AI_TIMEOUT_SECONDS: '1',
    AI_MAX_RETRY_AFTER_SECONDS: '2',
    AI_RUN_MAX_ATTEMPTS: '2',
    AI_OUTPUT_RETRIES: '2',
    ...overrides,
  };
}

export function testCredits(service: TestService): { credits: CreditsService; catalog: BillingCatalog } {
  const catalog = new BillingCatalog(loadBillingConfig(defaultBillingConfigFile));
  const now = () => new Date();
  const commands = service.runtime.commands;
  const credits = new CreditsService({
    commands,
    catalog,
    store: new CreditLedgerStore(service.runtime.database.db),
    now,
    ensureStarted: async (orgId) => (await ensureStarted({ commands, catalog, now }, orgId)).state,
    readModels: service.runtime.readModels,
  });
  return { credits, catalog };
}
