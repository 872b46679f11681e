// The follower counts' events, declared once (domain/shared/event-codec.ts): one stream per social account
// (`accountAudience-<socialAccountId>`), a reading a day, and the times the platform could not be asked.
import { z } from 'zod';
import { platforms } from '../shared/platforms.js';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const count = z.number().int().min(0);

const account = {
  orgId: z.string(),
  socialAccountId: z.string(),
  platform: z.enum(platforms),
};

const schemas = {
  /** The account's audience as its platform counted it at `readAt`. */
  AccountStatsRead: z.object({
    ...account,
    followers: count,
    /** Accounts it follows, where the platform says. */
    following: count.nullable(),
    /** Its posts, where the platform says. */
    posts: count.nullable(),
    readAt: z.string(),
  }),
  /** Follower counts cannot be read: the account's grant lacks the permission (`missingScopes`, one of them). */
  AccountStatsUnavailable: z.object({
    ...account,
    reason: z.enum(['needs_permission']),
    message: z.string(),
    missingScopes: z.array(z.string()),
    at: z.string(),
  }),
};

export type AudienceEvent = EventsOf<typeof schemas>;

export const audienceEventCodec = zodEventCodec('audience', schemas);
