// The launch kits' events, declared once: each type's schema of its data as stored (domain/shared/event-codec.ts)
// and the event union read off them. A kit's whole content (listing copy, Hacker News post, the day-by-day plan
// with the groups its posts were drafted into) is stored in the event that creates it; a step's `done` is its own
// event. Post statuses and texts are not stored: they are read from the post groups when a kit is shown.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';
import { platforms } from '../shared/platforms.js';

/** Where a launch happens: listing sites and the social channels launch posts are drafted for. */
export const launchChannels = ['product_hunt', 'hacker_news', 'x', 'linkedin', 'reddit'] as const;
export type LaunchChannel = (typeof launchChannels)[number];

export const stepKinds = ['post', 'listing', 'task'] as const;
export type StepKind = (typeof stepKinds)[number];

export const productHuntSchema = z.object({
  name: z.string(),
  tagline: z.string(),
  description: z.string(),
  topics: z.array(z.string()),
  firstComment: z.string(),
  galleryIdeas: z.array(z.string()),
});
export type ProductHuntListing = z.infer<typeof productHuntSchema>;

export const hackerNewsSchema = z.object({
  title: z.string(),
  url: z.string().nullable(),
  text: z.string(),
});
export type HackerNewsPost = z.infer<typeof hackerNewsSchema>;

/** A step as planned (without `done`, which starts false, and the post's status and text, read when shown). */
export const plannedStepSchema = z.object({
  id: z.string(),
  /** Days from the launch date, in the workspace's zone (0 = launch day). */
  day: z.number().int(),
  /** Local `YYYY-MM-DD` in the kit's zone. */
  date: z.string(),
  /** Local `HH:MM` in the kit's zone, or null for a task of the whole day. */
  time: z.string().nullable(),
  /** The suggested instant (never scheduled), or null with `time`. */
  scheduledForUtc: z.string().nullable(),
  kind: z.enum(stepKinds),
  channel: z.enum(launchChannels).nullable(),
  title: z.string(),
  detail: z.string(),
  /** The post group the step's post was drafted into (kind `post`). */
  groupId: z.string().nullable(),
  platform: z.enum(platforms).nullable(),
});
export type PlannedStep = z.infer<typeof plannedStepSchema>;

export const launchKitContentSchema = z.object({
  productName: z.string(),
  pitch: z.string(),
  url: z.string().nullable(),
  launchDate: z.string(),
  timezone: z.string(),
  channels: z.array(z.enum(launchChannels)),
  productHunt: productHuntSchema.nullable(),
  hackerNews: hackerNewsSchema.nullable(),
  steps: z.array(plannedStepSchema),
});
export type LaunchKitContent = z.infer<typeof launchKitContentSchema>;

const schemas = {
  LaunchKitCreated: launchKitContentSchema.extend({
    orgId: z.string(),
    kitId: z.string(),
    createdAt: z.string(),
    createdBy: z.string().nullable(),
    /** The agent run that wrote the copy, `provider:model` (or `offline`) and where the copy came from. */
    agentRunId: z.string(),
    providerModel: z.string(),
    source: z.enum(['ai', 'heuristic']),
  }),
  LaunchStepMarked: z.object({
    orgId: z.string(),
    kitId: z.string(),
    stepId: z.string(),
    done: z.boolean(),
    markedAt: z.string(),
  }),
};
export type LaunchKitEvent = EventsOf<typeof schemas>;

export const launchKitEventCodec = zodEventCodec('launch-kits', schemas);
