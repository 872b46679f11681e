// The scheduling slice's request and response shapes, typed once: validation, TypeScript types and the OpenAPI
// document all come from these (spec part 1 "Scheduling profile", "Scheduler"; part 2 "Timezone setting").
import { z } from '@hono/zod-openapi';
import { platforms } from '../../domain/shared/platforms.js';
import {
  maxAvailabilityWindows,
  maxBlackoutDates,
  maxPostsPerDayRange,
  maxWindowsPerPlatform,
  minGapMinutesRange,
} from '../../domain/scheduling/scheduling.js';
import { audienceTypes, windowPlatforms } from '../../domain/scheduling/types.js';
import { slotLimits } from '../../commands/scheduling/scheduling-use-cases.js';
import { timezoneSchema } from '../shared/params.js';

const weekdays = z
  .array(z.number().int().min(0).max(6))
  .min(1)
  .max(7)
  .openapi({ description: 'Weekdays 0–6, 0 = Sunday', example: [2, 3, 4] });
const localTime = z
  .string()
  .regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'a local time HH:MM (24:00 for the end of the day)')
  .openapi({ example: '09:00' });
const localDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a local date YYYY-MM-DD')
  .openapi({ example: '2026-12-24' });

export const postingWindowSchema = z
  .object({
    days: weekdays,
    start: localTime,
    end: localTime,
    weight: z
      .number()
      .min(0)
      .openapi({ description: 'Relative preference, 0 or more (default 1)', example: 1 }),
  })
  .openapi('PostingWindow');

const postingWindowInput = postingWindowSchema.extend({
  weight: postingWindowSchema.shape.weight.optional(),
});

export const availabilityWindowSchema = z
  .object({ days: weekdays, start: localTime, end: localTime })
  .openapi('AvailabilityWindow');

const windowsByPlatform = <T extends z.ZodType>(window: T) =>
  Object.fromEntries(windowPlatforms.map((p) => [p, window])) as Record<(typeof windowPlatforms)[number], T>;

export const schedulingProfileSchema = z
  .object({
    timezone: z.string().openapi({ description: "The workspace's IANA time zone; UTC until set" }),
    timezoneIsSet: z.boolean(),
    audienceTimezone: z.string().nullable(),
    effectiveTimezone: z
      .string()
      .openapi({ description: "audienceTimezone, else the workspace's time zone, else UTC" }),
    audienceType: z.enum(audienceTypes),
    includeWeekends: z.boolean(),
    postingWindows: z.object(windowsByPlatform(z.array(postingWindowSchema))),
    customPostingWindows: z
      .array(z.string())
      .openapi({ description: 'Platforms whose windows were edited; the others follow the defaults' }),
    blackoutDates: z.array(z.string()).openapi({ description: 'Local dates in the effective time zone' }),
    minGapMinutes: z.number().int(),
    maxPostsPerDay: z.number().int().openapi({ description: 'Per platform and local day' }),
    ownerAvailability: z.array(availabilityWindowSchema),
  })
  .openapi('SchedulingProfile');

export const updateSchedulerSettingsBody = z
  .object({
    audienceTimezone: timezoneSchema.nullable().optional(),
    audienceType: z.enum(audienceTypes).optional(),
    includeWeekends: z.boolean().nullable().optional().openapi({ description: 'null: back to the default' }),
    postingWindows: z
      .object(
        Object.fromEntries(
          windowPlatforms.map((p) => [p, z.array(postingWindowInput).max(maxWindowsPerPlatform).optional()]),
        ) as Record<(typeof windowPlatforms)[number], z.ZodOptional<z.ZodArray<typeof postingWindowInput>>>,
      )
      .strict()
      .optional(),
    blackoutDates: z.array(localDate).max(maxBlackoutDates).optional(),
    minGapMinutes: z.number().int().min(minGapMinutesRange.min).max(minGapMinutesRange.max).optional(),
    maxPostsPerDay: z.number().int().min(maxPostsPerDayRange.min).max(maxPostsPerDayRange.max).optional(),
    ownerAvailability: z.array(availabilityWindowSchema).max(maxAvailabilityWindows).optional(),
    timezone: timezoneSchema.optional().openapi({ description: "Sets the workspace's time zone too" }),
    resetPostingWindows: z
      .array(z.enum(windowPlatforms))
      .optional()
      .openapi({ description: "Platforms whose windows go back to the audience type's defaults" }),
  })
  .strict()
  .openapi('UpdateSchedulerSettings');

export const timezoneSettingSchema = z
  .object({
    timezone: z.string().openapi({ example: 'Europe/Berlin' }),
    isSet: z.boolean().openapi({ description: 'False until set (the time zone then reads UTC)' }),
  })
  .openapi('TimezoneSetting');

export const setTimezoneBody = z.object({ timezone: timezoneSchema }).strict().openapi('SetTimezone');

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const slotsQuery = z
  .object({
    platform: z.enum(windowPlatforms).optional(),
    contentType: z.string().trim().min(1).max(100).optional(),
    days: int(1, slotLimits.days.max)
      .optional()
      .openapi({ description: `Days to look ahead (default ${slotLimits.days.default})` }),
    count: int(1, slotLimits.count.max)
      .optional()
      .openapi({ description: `How many slots (default ${slotLimits.count.default})` }),
  })
  .strict();

export const slotSchema = z
  .object({
    scheduledForUtc: z.string(),
    localDate: z.string().openapi({ example: '2026-12-01' }),
    localTime: z.string().openapi({ example: '09:00' }),
    weekday: z.string().openapi({ example: 'Tuesday' }),
    score: z.number().openapi({ description: '0–100, higher is better' }),
    reason: z.string(),
    basis: z.enum(['defaults', 'history']),
  })
  .openapi('Slot');

export const slotSuggestionsSchema = z
  .object({
    timezone: z.string(),
    audienceType: z.enum(audienceTypes),
    historyPosts: z.number().int(),
    slots: z.array(slotSchema),
  })
  .openapi('SlotSuggestions');

export const suggestedTimesQuery = z
  .object({
    date: localDate,
    timezone: timezoneSchema,
    count: int(1, slotLimits.suggestedTimes.max)
      .optional()
      .openapi({ description: `How many times (default ${slotLimits.suggestedTimes.default})` }),
    platform: z.enum(platforms).optional(),
  })
  .strict();

export const suggestedTimesSchema = z
  .object({
    suggestions: z.array(
      z.object({ localTime: z.string().openapi({ example: '09:00' }), reason: z.string() }),
    ),
  })
  .openapi('SuggestedTimes');

export const coverageQuery = z
  .object({
    days: int(1, slotLimits.coverageDays.max)
      .optional()
      .openapi({ description: `Days from today (default ${slotLimits.coverageDays.default})` }),
    timezone: timezoneSchema.optional(),
  })
  .strict();

export const scheduleCoverageSchema = z
  .object({
    windowDays: z.number().int(),
    timezone: z.string(),
    overallStatus: z.enum(['covered', 'needs_attention']),
    channels: z.array(
      z.object({
        platform: z.enum(platforms),
        scheduledCount: z.number().int(),
        publishedCount: z.number().int(),
        pendingApprovalCount: z.number().int(),
        targetPosts: z.number().nullable(),
        status: z.enum(['covered', 'gap', 'clustered', 'waiting']),
        nextGapAt: z.string().nullable(),
        notes: z.array(z.string()),
      }),
    ),
    pendingApprovalTotal: z.number().int(),
  })
  .openapi('ScheduleCoverage');
