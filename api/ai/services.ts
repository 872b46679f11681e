// The AI job runner (domain/ai/job.ts), provided by the ai slice as the `ai jobs` service: a slice that writes with
// AI (strategy, brand profile, onboarding, drafting) requires it and hands it an `AiJob`.
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import type { AiJobRunner } from '../../domain/ai/job.js';
import { service } from '../shared/service.js';

export const aiJobsService = service<AiJobRunner>()('ai jobs');

/** The public brand context of a workspace (domain/ai/brand-context.ts), provided by the brand-profile slice. */
export const brandContextService = service<BrandContextReader>()('brand context');
