// The scheduling profile: what a workspace has set, with every unset field taken from its audience type's defaults,
// and the posting windows that apply to one platform.
//
// Weekends: when the profile's includeWeekends is false, windowsFor drops Saturday (6) and Sunday (0) from every
// window it returns (and leaves out a window left with no day). Everything that places posts (the slot ranking, the
// coverage assessment) asks windowsFor, so this is the one place that rule is applied. The profile itself keeps
// the windows as set, so that turning weekends back on restores them.
import type { Platform } from '../shared/platforms.js';
import { audienceDefaults, DEFAULT_AUDIENCE_TYPE, otherPlatformWindows } from './defaults.js';
import {
  copyWindows,
  isWindowPlatform,
  windowPlatforms,
  type PostingWindow,
  type SchedulingProfile,
  type SchedulingSettings,
  type WindowPlatform,
} from './types.js';

export function resolveProfile(
  settings: SchedulingSettings,
  workspaceTimezone: string | null,
): SchedulingProfile {
  const audienceType = settings.audienceType ?? DEFAULT_AUDIENCE_TYPE;
  const defaults = audienceDefaults(audienceType);
  const timezone = workspaceTimezone ?? 'UTC';
  const custom = windowPlatforms.filter((p) => settings.postingWindows[p] !== undefined);
  const windowsOf = (p: WindowPlatform) => {
    const own = settings.postingWindows[p];
    return own ? copyWindows(own) : defaults.postingWindows[p];
  };
  return {
    timezone,
    timezoneIsSet: workspaceTimezone !== null,
    audienceTimezone: settings.audienceTimezone,
    effectiveTimezone: settings.audienceTimezone ?? timezone,
    audienceType,
    includeWeekends: settings.includeWeekends ?? defaults.includeWeekends,
    postingWindows: { x: windowsOf('x'), linkedin: windowsOf('linkedin'), tiktok: windowsOf('tiktok') },
    customPostingWindows: custom,
    blackoutDates: [...new Set(settings.blackoutDates ?? [])].sort(),
    minGapMinutes: settings.minGapMinutes ?? defaults.minGapMinutes,
    maxPostsPerDay: settings.maxPostsPerDay ?? defaults.maxPostsPerDay,
    ownerAvailability: (settings.ownerAvailability ?? []).map((a) => ({ ...a, days: [...a.days] })),
  };
}

/** A window that applies to a platform, with where it came from (for the reason a slot gives). */
export interface SourcedWindow {
  /** As it applies: without weekend days when the profile leaves weekends out. */
  window: PostingWindow;
  /** The editable platform whose window it is; null: the defaults for the other platforms. */
  platform: WindowPlatform | null;
  /** The workspace's own window (else the audience type's default). */
  custom: boolean;
}

/**
 * The windows that apply to `platform`, with their source: x, linkedin and tiktok use the profile's windows; every
 * other platform the audience type's `otherPlatforms`; null (the workspace as a whole) every window of x, linkedin
 * and tiktok together. Weekend days are left out when the profile leaves weekends out.
 */
export function sourcedWindowsFor(profile: SchedulingProfile, platform: Platform | null): SourcedWindow[] {
  const fromPlatform = (p: WindowPlatform): SourcedWindow[] =>
    profile.postingWindows[p].map((window) => ({
      window,
      platform: p,
      custom: profile.customPostingWindows.includes(p),
    }));
  const all: SourcedWindow[] =
    platform === null
      ? windowPlatforms.flatMap(fromPlatform)
      : isWindowPlatform(platform)
        ? fromPlatform(platform)
        : otherPlatformWindows(profile.audienceType).map((window) => ({
            window,
            platform: null,
            custom: false,
          }));
  const result: SourcedWindow[] = [];
  for (const s of all) {
    const days = [...new Set(s.window.days)]
      .filter((d) => profile.includeWeekends || (d !== 0 && d !== 6))
      .sort((a, b) => a - b);
    if (days.length > 0) result.push({ ...s, window: { ...s.window, days } });
  }
  return result;
}

/** The windows that apply to `platform` (sourcedWindowsFor without the sources). */
export function windowsFor(profile: SchedulingProfile, platform: Platform | null): PostingWindow[] {
  return sourcedWindowsFor(profile, platform).map((s) => s.window);
}
