// Request and response schemas of the launch kits' operations (spec part 2, "Launch kit" and "Launch kits").
import { z } from '@hono/zod-openapi';
import {
  launchChannels,
  launchKitContentSchema,
  plannedStepSchema,
} from '../../domain/launch-kits/event-codec.js';
import { groupStatuses } from '../../domain/post-groups/state.js';
import { isLocalDate } from '../../domain/scheduling/time.js';
import { pageParams, pageSchema } from '../platform/paging.js';
import { canonicalUuid, orgParams } from '../shared/params.js';

export const kitParams = orgParams.extend({
  kitId: canonicalUuid().openapi({ param: { name: 'kitId', in: 'path' } }),
});

export const listKitsQuery = z.object(pageParams(20, 100));

export const createLaunchKitBody = z
  .object({
    pitch: z.string().trim().min(1).max(2000).openapi({ description: 'What the product is and does' }),
    launchDate: z
      .string()
      .refine(isLocalDate, 'a date YYYY-MM-DD')
      .openapi({ description: "The launch day, in the workspace's time zone", example: '2026-12-08' }),
    productName: z.string().trim().min(1).max(80).optional(),
    url: z
      .url({ protocol: /^https?$/, error: 'an http(s) URL' })
      .max(2048)
      .optional()
      .openapi({ description: "The product's address" }),
    channels: z
      .array(z.enum(launchChannels))
      .min(1)
      .max(launchChannels.length)
      .optional()
      .openapi({ description: 'Default product_hunt, hacker_news, x, linkedin' }),
    subreddits: z
      .array(z.string().min(1).max(50))
      .max(5)
      .optional()
      .openapi({ description: 'For the reddit channel: a launch post per subreddit (e.g. r/SideProject)' }),
    guidance: z
      .string()
      .max(2000)
      .optional()
      .openapi({ description: 'What the copy should stress or avoid' }),
  })
  .openapi('CreateLaunchKit');

export const updateLaunchStepBody = z
  .object({ stepId: z.string().min(1).max(50), done: z.boolean() })
  .openapi('UpdateLaunchStep');

const launchStepSchema = plannedStepSchema
  .extend({
    postStatus: z.enum(groupStatuses).nullable(),
    postText: z.string().nullable(),
    done: z.boolean(),
  })
  .openapi('LaunchStep');

export const launchKitSchema = launchKitContentSchema
  .extend({
    id: z.string(),
    orgId: z.string(),
    steps: z.array(launchStepSchema),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('LaunchKit');

export const launchKitListItemSchema = z
  .object({
    id: z.string(),
    productName: z.string(),
    launchDate: z.string(),
    timezone: z.string(),
    channels: z.array(z.enum(launchChannels)),
    createdAt: z.string(),
    stepCount: z.number().int(),
    doneCount: z.number().int(),
  })
  .openapi('LaunchKitListItem');

export const launchKitPageSchema = pageSchema(launchKitListItemSchema).openapi('LaunchKitPage');

export const createdLaunchKitSchema = z
  .object({
    kit: launchKitSchema,
    providerModel: z.string(),
    creditsUsed: z.number(),
    remainingCredits: z.number(),
  })
  .openapi('CreatedLaunchKit');
