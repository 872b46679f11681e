// The workspace scheduling aggregate's events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { SchedulingEvent } from './scheduling.js';
import { audienceTypes, windowPlatforms } from './types.js';

const days = z.array(z.number().int().min(0).max(6));
const postingWindow = z.object({ days, start: z.string(), end: z.string(), weight: z.number() });
const availabilityWindow = z.object({ days, start: z.string(), end: z.string() });
const windows = z.array(postingWindow);

const changes = z.object({
  audienceTimezone: z.string().nullable().optional(),
  audienceType: z.enum(audienceTypes).optional(),
  includeWeekends: z.boolean().nullable().optional(),
  postingWindows: z
    .object({ x: windows.optional(), linkedin: windows.optional(), tiktok: windows.optional() })
    .optional(),
  blackoutDates: z.array(z.string()).optional(),
  minGapMinutes: z.number().int().optional(),
  maxPostsPerDay: z.number().int().optional(),
  ownerAvailability: z.array(availabilityWindow).optional(),
});

const schemas = {
  WorkspaceTimezoneSet: z.object({
    orgId: z.string(),
    timezone: z.string(),
    previousTimezone: z.string().nullable(),
    by: z.string(),
    at: z.string(),
  }),
  SchedulingSettingsChanged: z.object({
    orgId: z.string(),
    changes,
    resetPostingWindows: z.array(z.enum(windowPlatforms)),
    by: z.string(),
    at: z.string(),
  }),
};
const exact: SchemasMatch<SchedulingEvent, typeof schemas> = true;
void exact;

export const schedulingEventCodec = defineEventCodec<SchedulingEvent>('scheduling', zodSpecs(schemas));
