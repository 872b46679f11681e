// The audience of a workspace's connected accounts over a window (spec part 1 "Analytics", the performance
// summary's `audience`): each account's followers at the window's end and their change over it, and whether its
// follower count is tracked. The analytics slice provides the reader as the 'audience' service
// (api/analytics/services.ts); the performance summary requires it.
import type { Platform } from '../shared/platforms.js';

/**
 * `live`: follower counts are read on the metrics cadence; `pending`: connected, no count read yet;
 * `needs_permission`: the account's grant does not allow reading them (reconnect with the scope).
 */
export type AudienceTracking = 'live' | 'pending' | 'needs_permission';

export interface AudienceAccount {
  socialAccountId: string;
  platform: Platform;
  name: string | null;
  /** The last count read at or before the window's end; null when none was read. */
  followers: number | null;
  /** followers minus the last count read at or before the window's start; null without both. */
  change: number | null;
  tracking: AudienceTracking;
}

export interface Audience {
  /** True when at least one account has a follower count. */
  available: boolean;
  /** One sentence for people: what the numbers cover, or why there are none. */
  note: string;
  accounts: AudienceAccount[];
}

export interface AudienceReader {
  /** The workspace's connected (not deleted) accounts, by platform then connection order. */
  forOrg(orgId: string, window: { from: Date; to: Date }): Promise<Audience>;
}
