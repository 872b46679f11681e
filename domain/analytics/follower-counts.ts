// A social account's follower counts over time: one stream per account (`accountAudience-<socialAccountId>`), one
// `AccountStatsRead` per daily reading, and `AccountStatsUnavailable` when the account's grant does not allow the
// read (recorded once until a reading succeeds again). Where and when the counts are read is the analytics
// process's business (processes/analytics/account-stats-reader.ts).
import type { Platform } from '../shared/platforms.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields, type ErrorDetail } from '../shared/errors.js';
import { audienceEventCodec, type AudienceEvent } from './audience-codec.js';

export type { AudienceEvent } from './audience-codec.js';

export const accountAudienceCategory = 'accountAudience';

export interface AccountAudienceSubject {
  orgId: string;
  socialAccountId: string;
  platform: Platform;
}

export interface AccountStatsReading {
  followers: number;
  following: number | null;
  posts: number | null;
}

export type AccountAudienceCommand =
  | ({
      type: 'RecordAccountStats';
      stats: AccountStatsReading;
      /** When the platform was read (ISO); a reading not newer than the last one decides nothing. */
      readAt: string;
    } & AccountAudienceSubject)
  | ({
      type: 'RecordAccountStatsUnavailable';
      reason: 'needs_permission';
      message: string;
      missingScopes: string[];
      at: string;
    } & AccountAudienceSubject);

export type AccountAudienceState =
  | { kind: 'untracked' }
  | {
      kind: 'tracked';
      subject: AccountAudienceSubject;
      readings: number;
      lastReadAt: string | null;
      latest: AccountStatsReading | null;
      /** Set while the counts cannot be read (since the last reading). */
      unavailable: { reason: 'needs_permission'; missingScopes: string[]; since: string } | null;
    };

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

const isTime = (value: string) => Number.isFinite(Date.parse(value));

function validate(command: AccountAudienceCommand): void {
  const problems: ErrorDetail[] = [];
  if (command.type === 'RecordAccountStats') {
    if (!isCount(command.stats.followers))
      problems.push({ path: 'stats.followers', message: 'a whole number, 0 or more' });
    for (const key of ['following', 'posts'] as const)
      if (command.stats[key] !== null && !isCount(command.stats[key]))
        problems.push({ path: `stats.${key}`, message: 'a whole number, 0 or more, or null' });
    if (!isTime(command.readAt)) problems.push({ path: 'readAt', message: 'an ISO 8601 date and time' });
  } else {
    if (!isTime(command.at)) problems.push({ path: 'at', message: 'an ISO 8601 date and time' });
    if (command.message.trim() === '') problems.push({ path: 'message', message: 'say why' });
  }
  if (problems.length > 0) throw new InvalidFields('Invalid follower counts', problems);
}

const sameScopes = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((scope, i) => scope === [...b].sort()[i]);

export const accountAudienceDecider: Decider<AccountAudienceState, AccountAudienceCommand, AudienceEvent> = {
  initialState: { kind: 'untracked' },
  codec: audienceEventCodec,

  decide(command, state) {
    validate(command);
    const subject: AccountAudienceSubject = {
      orgId: command.orgId,
      socialAccountId: command.socialAccountId,
      platform: command.platform,
    };
    if (
      state.kind === 'tracked' &&
      (state.subject.orgId !== subject.orgId || state.subject.socialAccountId !== subject.socialAccountId)
    )
      throw new Conflict('These follower counts belong to another account', 'account_audience_mismatch');
    const lastReadAt = state.kind === 'tracked' ? state.lastReadAt : null;
    switch (command.type) {
      case 'RecordAccountStats': {
        // The same reading again (a retried read), or an older one arriving late: the newest already counts.
        if (lastReadAt !== null && Date.parse(command.readAt) <= Date.parse(lastReadAt)) return [];
        return [
          {
            type: 'AccountStatsRead',
            data: {
              ...subject,
              followers: command.stats.followers,
              following: command.stats.following,
              posts: command.stats.posts,
              readAt: command.readAt,
            },
          },
        ];
      }
      case 'RecordAccountStatsUnavailable': {
        if (lastReadAt !== null && Date.parse(command.at) <= Date.parse(lastReadAt)) return [];
        // Already known to be unavailable for the same reason: nothing new to say.
        const known = state.kind === 'tracked' ? state.unavailable : null;
        if (
          known &&
          known.reason === command.reason &&
          sameScopes(known.missingScopes, command.missingScopes)
        )
          return [];
        return [
          {
            type: 'AccountStatsUnavailable',
            data: {
              ...subject,
              reason: command.reason,
              message: command.message,
              missingScopes: [...command.missingScopes],
              at: command.at,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    const { orgId, socialAccountId, platform } = event.data;
    const base =
      state.kind === 'tracked'
        ? state
        : {
            kind: 'tracked' as const,
            subject: { orgId, socialAccountId, platform },
            readings: 0,
            lastReadAt: null,
            latest: null,
            unavailable: null,
          };
    switch (event.type) {
      case 'AccountStatsRead': {
        const { followers, following, posts, readAt } = event.data;
        return {
          ...base,
          readings: base.readings + 1,
          lastReadAt: readAt,
          latest: { followers, following, posts },
          unavailable: null,
        };
      }
      case 'AccountStatsUnavailable':
        return {
          ...base,
          unavailable: {
            reason: event.data.reason,
            missingScopes: event.data.missingScopes,
            since: event.data.at,
          },
        };
      default:
        return assertNever(event);
    }
  },
};
