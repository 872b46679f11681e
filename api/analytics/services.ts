// Services of the analytics slice: the audience of a workspace's accounts (domain/analytics/audience.ts), which
// the performance summary requires.
import type { AudienceReader } from '../../domain/analytics/audience.js';
import { service } from '../shared/service.js';

export const audienceService = service<AudienceReader>()('audience');
