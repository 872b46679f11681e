// The post metrics' events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { platforms } from '../shared/platforms.js';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { PostMetricsEvent } from './post-metrics.js';

const count = z.number();

const schemas = {
  PostMetricsFetched: z.object({
    orgId: z.string(),
    postId: z.string(),
    groupId: z.string(),
    platform: z.enum(platforms),
    socialAccountId: z.string(),
    externalId: z.string(),
    publishedAt: z.string(),
    contentType: z.string().nullable(),
    metrics: z.object({
      likes: count,
      reposts: count,
      replies: count,
      quotes: count,
      bookmarks: count.nullable(),
      impressions: count.nullable(),
    }),
    engagement: count,
    fetchNumber: z.number().int(),
    fetchedAt: z.string(),
  }),
};
const exact: SchemasMatch<PostMetricsEvent, typeof schemas> = true;
void exact;

export const postMetricsEventCodec = defineEventCodec<PostMetricsEvent>('analytics', zodSpecs(schemas));
