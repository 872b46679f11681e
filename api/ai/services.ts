// The AI job runner (domain/ai/job.ts), provided by the ai slice as the `ai jobs` service: a slice that writes with
// AI (strategy, brand profile, onboarding, drafting) requires it and hands it an `AiJob`.
import type { AiJobRunner } from '../../domain/ai/job.js';
import { service } from '../shared/service.js';

export const aiJobsService = service<AiJobRunner>()('ai jobs');
