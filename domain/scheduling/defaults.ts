// The scheduler's defaults per audience type (docs/decisions.md, "Scheduler defaults"): posting windows per
// platform, weekends, the gap between posts and the posts per platform and local day. They follow the commonly
// published guidance of the social-media tool vendors' engagement studies: business audiences read on weekday
// mornings and at lunch (LinkedIn strongest Tuesday to Thursday, 08:00–10:00), consumers in the evening and at
// weekends (TikTok in the evening above all); a mixed audience gets the business mornings and the consumer evenings.
// A workspace's own results refine them (slots.ts); a workspace's own windows replace them (profile.ts).
import type { AudienceDefaults, AudienceType, PostingWindow } from './types.js';

/** The audience type of a workspace that has not chosen one. */
export const DEFAULT_AUDIENCE_TYPE: AudienceType = 'b2b';

const weekdays = [1, 2, 3, 4, 5];
const everyDay = [0, 1, 2, 3, 4, 5, 6];
const weekend = [0, 6];
const tueToThu = [2, 3, 4];
const monAndFri = [1, 5];

const w = (days: number[], start: string, end: string, weight: number): PostingWindow => ({
  days,
  start,
  end,
  weight,
});

const table: Record<AudienceType, AudienceDefaults> = {
  b2b: {
    includeWeekends: false,
    postingWindows: {
      x: [
        w(weekdays, '08:00', '10:00', 1),
        w(weekdays, '12:00', '13:00', 0.8),
        w(weekdays, '17:00', '18:00', 0.5),
      ],
      linkedin: [
        w(tueToThu, '08:00', '10:00', 1),
        w(tueToThu, '10:00', '12:00', 0.8),
        w(weekdays, '12:00', '13:00', 0.7),
        w(monAndFri, '08:00', '10:00', 0.6),
      ],
      tiktok: [w(weekdays, '17:00', '20:00', 1), w(weekdays, '12:00', '14:00', 0.6)],
    },
    otherPlatforms: [w(weekdays, '09:00', '11:00', 1), w(weekdays, '12:00', '13:00', 0.7)],
    minGapMinutes: 180,
    maxPostsPerDay: 2,
  },
  b2c: {
    includeWeekends: true,
    postingWindows: {
      x: [
        w(everyDay, '18:00', '21:00', 1),
        w(weekend, '09:00', '11:00', 0.8),
        w(weekdays, '12:00', '13:00', 0.7),
      ],
      linkedin: [
        w(tueToThu, '08:00', '10:00', 1),
        w(weekdays, '12:00', '13:00', 0.8),
        w(weekdays, '17:00', '19:00', 0.6),
      ],
      tiktok: [
        w(everyDay, '18:00', '22:00', 1),
        w(weekend, '10:00', '14:00', 0.7),
        w(weekdays, '12:00', '14:00', 0.5),
      ],
    },
    otherPlatforms: [w(everyDay, '18:00', '21:00', 1), w(everyDay, '11:00', '13:00', 0.7)],
    minGapMinutes: 120,
    maxPostsPerDay: 3,
  },
  mixed: {
    includeWeekends: true,
    postingWindows: {
      x: [
        w(weekdays, '08:00', '10:00', 1),
        w(weekdays, '12:00', '13:00', 0.8),
        w(everyDay, '18:00', '20:00', 0.8),
      ],
      linkedin: [
        w(tueToThu, '08:00', '10:00', 1),
        w(weekdays, '12:00', '13:00', 0.7),
        w(monAndFri, '08:00', '10:00', 0.6),
      ],
      tiktok: [
        w(everyDay, '18:00', '21:00', 1),
        w(weekdays, '12:00', '14:00', 0.6),
        w(weekend, '10:00', '13:00', 0.6),
      ],
    },
    otherPlatforms: [
      w(weekdays, '09:00', '11:00', 1),
      w(everyDay, '12:00', '13:00', 0.7),
      w(everyDay, '18:00', '20:00', 0.7),
    ],
    minGapMinutes: 150,
    maxPostsPerDay: 2,
  },
};

/** The audience type's windows for platforms without editable ones, read-only (no copy: ranking asks often). */
export function otherPlatformWindows(type: AudienceType): readonly PostingWindow[] {
  return table[type].otherPlatforms;
}

/** The defaults of an audience type: a fresh copy each time (callers may change it). */
export function audienceDefaults(type: AudienceType): AudienceDefaults {
  return structuredClone(table[type]);
}
