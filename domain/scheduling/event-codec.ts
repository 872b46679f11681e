// The workspace scheduling aggregate's events, declared once: each type's schema of its data as stored
// (domain/shared/event-codec.ts) and the event union read off them.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';
import { audienceTypes, windowPlatforms } from './types.js';

const days = z.array(z.number().int().min(0).max(6));
const postingWindow = z.object({ days, start: z.string(), end: z.string(), weight: z.number() });
const availabilityWindow = z.object({ days, start: z.string(), end: z.string() });
const windows = z.array(postingWindow);

/** A settings change as recorded: only what changes, normalised. */
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

export type RecordedSchedulingChanges = z.output<typeof changes>;

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
    /** The platforms that had their own windows and follow the audience type's defaults again. */
    resetPostingWindows: z.array(z.enum(windowPlatforms)),
    by: z.string(),
    at: z.string(),
  }),
};
export type SchedulingEvent = EventsOf<typeof schemas>;

export const schedulingEventCodec = zodEventCodec('scheduling', schemas);
