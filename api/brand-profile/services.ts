// What the brand-profile slice's operations and other slices share, built once per runtime: the use cases'
// dependencies and the 'brand context' reader (api/ai/services.ts) prompts are grounded in.
import { createBrandContextReader } from '../../commands/brand-profile/brand-context-reader.js';
import type { BrandProfileDeps } from '../../commands/brand-profile/brand-profile-use-cases.js';
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import { aiJobsService } from '../ai/services.js';
import { brandServices } from '../brand/services.js';
import { service } from '../shared/service.js';
import type { SliceContext } from '../shared/slice.js';

export const brandProfileServices = service<BrandProfileDeps>()('brand profile');

export function buildBrandProfileServices(
  ctx: SliceContext<typeof brandServices | typeof aiJobsService>,
): BrandProfileDeps {
  return {
    commands: ctx.commands,
    idempotency: ctx.idempotency,
    readModels: ctx.readModels,
    kit: ctx.use(brandServices).reader,
    aiJobs: ctx.use(aiJobsService),
    outbound: ctx.options.outbound ?? {},
    ...(ctx.options.fetchTimeoutMs ? { fetchTimeoutMs: ctx.options.fetchTimeoutMs } : {}),
    logger: ctx.logger,
  };
}

export function buildBrandContext(ctx: SliceContext<typeof brandServices>): BrandContextReader {
  return createBrandContextReader({
    commands: ctx.commands,
    readModels: ctx.readModels,
    kit: ctx.use(brandServices).reader,
  });
}
