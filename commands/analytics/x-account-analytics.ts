// X account analytics' use cases: GET ORG/marketing/analytics/x-account (Tool: get_x_account_analytics) from the
// read model, PUT (switch the daily read on or off; on reads the last 30 days at once), and the reading itself,
// which the daily reader (processes/analytics/x-account-reader.ts) takes too: the account's own timeline read
// through the X connector, charged `x_account_read` once per account and local date (the credit key and the
// reading's stream are both that pair), recorded as XAccountRead; a failed read charges and records nothing.
import type { Kysely } from 'kysely';
import {
  dailyNumbers,
  xAccountAnalyticsCategory,
  xAccountAnalyticsDecider,
  xAccountReadingCategory,
  xAccountReadingDecider,
  xAccountReadingFrom,
  xAccountReadingStreamId,
  xAccountTotals,
  type XAccountDay,
  type XAccountReadingData,
  type XAccountTotals,
} from '../../domain/analytics/x-account.js';
import { addLocalDays, localDays, todayIn } from '../../domain/scheduling/time.js';
import { actorOf, authorize, type Caller } from '../../domain/shared/caller.js';
import { Conflict, InvalidFields, ServiceUnavailable } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { ConnectorError, type AccountRef, type ConnectorRegistry } from '../../infra/connectors/port.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  latestXAccountReading,
  xAccountDaysBetween,
  xAccountReadingsBetween,
  xAccountSettingOf,
  type XAccountReadingRow,
} from '../../projections/analytics/x-account-queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import { getSocialAccount } from '../../projections/social-accounts/queries.js';
import type { CreditsService } from '../billing/credits.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
} from '../shared/command-handler.js';
import type { IdempotencyStore } from '../shared/idempotency.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { AccountCalls } from '../social-accounts/account-access.js';
import { xReadFailure } from '../x-posts/read-x-posts.js';

/** The credit cost key of one reading (config/billing.json). */
export const X_ACCOUNT_READ = 'x_account_read';
export const DEFAULT_X_ACCOUNT_WINDOW_DAYS = 30;
export const MAX_X_ACCOUNT_WINDOW_DAYS = 90;

export const xAccountAnalyticsStream = (orgId: string) => streamName(xAccountAnalyticsCategory, orgId);
export const xAccountReadingStream = (orgId: string, socialAccountId: string, date: string) =>
  streamName(xAccountReadingCategory, xAccountReadingStreamId(orgId, socialAccountId, date));

/** The ledger key of a day's reading: the same account and date are charged once, whoever reads. */
export const xAccountCreditKey = (orgId: string, socialAccountId: string, date: string) =>
  `x-account-read:${orgId}:${socialAccountId}:${date}`;

/** What taking a reading needs (the PUT and the daily reader). */
export interface XAccountReadingDeps {
  commands: CommandDeps;
  readModels: Kysely<ReadModels>;
  accounts: AccountCalls;
  connectors: ConnectorRegistry;
  credits: Pick<CreditsService, 'withCredits'>;
  /** The workspace's effective time zone (its days are local days). */
  timezoneOf: (orgId: string) => Promise<string>;
}

export interface XAccountAnalyticsDeps extends XAccountReadingDeps {
  idempotency: IdempotencyStore;
}

export interface XAccountDayView {
  date: string;
  impressions: number;
  engagements: number;
  posts: number;
  repliesSent: number;
  followerChange: number | null;
}

/** The spec's answer of GET and PUT ORG/marketing/analytics/x-account. */
export interface XAccountAnalyticsView {
  enabled: boolean;
  account: { socialAccountId: string; handle: string | null; name: string | null } | null;
  lastSyncedAt: string | null;
  windowDays: number;
  totals: XAccountTotals;
  previous: XAccountTotals | null;
  audience: {
    followers: number | null;
    followerChange: number | null;
    following: number | null;
    postCount: number | null;
  };
  days: XAccountDayView[];
}

const noMedia = async (): Promise<never> => {
  throw new ConnectorError('permanent', 'no media is uploaded when reading');
};

const difference = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || b === null || b === undefined ? null : a - b;

/** The view of the workspace's X account numbers over the last `windowDays` local days, today included. */
export async function xAccountAnalyticsView(
  deps: Pick<XAccountReadingDeps, 'readModels' | 'timezoneOf'>,
  orgId: string,
  windowDays: number,
  now: string,
): Promise<XAccountAnalyticsView> {
  const setting = await xAccountSettingOf(deps.readModels, orgId);
  const empty: XAccountAnalyticsView = {
    enabled: false,
    account: null,
    lastSyncedAt: null,
    windowDays,
    totals: xAccountTotals([]),
    previous: null,
    audience: { followers: null, followerChange: null, following: null, postCount: null },
    days: [],
  };
  if (!setting) return empty;
  const accountId = setting.socialAccountId;
  const timezone = await deps.timezoneOf(orgId);
  const today = todayIn(now, timezone);
  const from = addLocalDays(today, -(windowDays - 1));
  const previousFrom = addLocalDays(from, -windowDays);
  const [account, days, readings, before, newest] = await Promise.all([
    getSocialAccount(deps.readModels, orgId, accountId),
    xAccountDaysBetween(deps.readModels, orgId, accountId, previousFrom, today),
    xAccountReadingsBetween(deps.readModels, orgId, accountId, from, today),
    latestXAccountReading(deps.readModels, orgId, accountId, { before: from }),
    latestXAccountReading(deps.readModels, orgId, accountId),
  ]);
  const current = days.filter((d) => d.date >= from);
  const earlier = days.filter((d) => d.date < from);
  // A day's follower change: the count at its reading minus the count at the reading before it.
  const byDate = new Map<string, { reading: XAccountReadingRow; previous: XAccountReadingRow | null }>();
  readings.forEach((reading, i) =>
    byDate.set(reading.date, { reading, previous: readings[i - 1] ?? before }),
  );
  const latest = newest ?? null;
  // The audience's change over the window: from the count at its start, or, when tracking began inside it, from
  // the first count read in it; null with a single count.
  const start = before ?? (readings.length > 1 ? readings[0]! : null);
  return {
    enabled: setting.enabled,
    account: {
      socialAccountId: accountId,
      handle: account?.accountHandle ?? null,
      name: account?.accountName ?? null,
    },
    lastSyncedAt: latest?.readAt ?? null,
    windowDays,
    totals: xAccountTotals(current),
    previous: earlier.length > 0 ? xAccountTotals(earlier) : null,
    audience: {
      followers: latest?.followers ?? null,
      followerChange: start ? difference(latest?.followers, start.followers) : null,
      following: latest?.following ?? null,
      postCount: latest?.postCount ?? null,
    },
    days: current.map((d: XAccountDay) => {
      const read = byDate.get(d.date);
      return {
        date: d.date,
        impressions: d.impressions,
        engagements: d.engagements,
        posts: d.posts,
        repliesSent: d.repliesSent,
        followerChange: read ? difference(read.reading.followers, read.previous?.followers) : null,
      };
    }),
  };
}

function windowOf(days: number | undefined): number {
  const window = days ?? DEFAULT_X_ACCOUNT_WINDOW_DAYS;
  if (!Number.isInteger(window) || window < 1 || window > MAX_X_ACCOUNT_WINDOW_DAYS)
    throw new InvalidFields('Invalid days', [{ path: 'days', message: `1 to ${MAX_X_ACCOUNT_WINDOW_DAYS}` }]);
  return window;
}

/** Tool: get_x_account_analytics. Every member (workspace:read); assistants with mcp:read. */
export async function getXAccountAnalytics(
  deps: Pick<XAccountReadingDeps, 'readModels' | 'timezoneOf'>,
  caller: Caller,
  input: { orgId: string; days?: number },
  now: string,
): Promise<XAccountAnalyticsView> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:read', scope: 'mcp:read' });
  return xAccountAnalyticsView(deps, input.orgId, windowOf(input.days), now);
}

export interface TakeReadingInput {
  orgId: string;
  account: AccountRef;
  /** The local date of the reading. */
  date: string;
  timezone: string;
  /** Switching on: the last 30 days, whatever was read before. */
  initial: boolean;
  metadata: CommandMetadata;
}

export interface TakenReading {
  /** False when the account's reading of that date was recorded already (nothing was read or charged now). */
  recorded: boolean;
  reading: XAccountReadingData;
}

/**
 * The account's reading of `date`: nothing when it is recorded already; otherwise its timeline read from the
 * reading's first day (credits held before X is asked, charged after, released when X fails), the days' numbers
 * recorded. A retry after a crash between the charge and the record finds the charge made and charges nothing.
 */
export async function takeXAccountReading(
  deps: XAccountReadingDeps,
  input: TakeReadingInput,
): Promise<TakenReading> {
  const { orgId, account, date, timezone, metadata } = input;
  const stream = xAccountReadingStream(orgId, account.id, date);
  const loaded = await loadAggregate(deps.commands.eventStore, stream, xAccountReadingDecider);
  if (loaded.state.status === 'read') return { recorded: false, reading: loaded.state.reading };

  const connector = deps.connectors.get('x');
  const readActivity = connector.readXAccountActivity?.bind(connector);
  if (!readActivity)
    throw new ServiceUnavailable('Reading X accounts is not available in this build', 'x_reads_unavailable');
  const previous = input.initial
    ? null
    : ((await latestXAccountReading(deps.readModels, orgId, account.id, { before: date }))?.date ?? null);
  const from = xAccountReadingFrom(date, previous, input.initial);
  const since = new Date(localDays(from, 1, timezone)[0]!.startMs).toISOString();
  const { result: activity, charge } = await deps.credits.withCredits(
    {
      orgId,
      key: xAccountCreditKey(orgId, account.id, date),
      actionKey: X_ACCOUNT_READ,
      feature: 'x_account_analytics',
      provider: 'x',
      metadata: { socialAccountId: account.id, date, from, initial: input.initial },
    },
    async () => {
      try {
        return await deps.accounts.withTokens(account, (tokens) =>
          readActivity({ account, tokens, fetchMedia: noMedia }, { since, timezone }),
        );
      } catch (error) {
        throw xReadFailure(error);
      }
    },
    {
      context: {
        actor: metadata.actor,
        ...(metadata.userId ? { userId: metadata.userId } : {}),
        correlationId: metadata.correlationId,
      },
    },
  );
  const reading: XAccountReadingData = {
    orgId,
    socialAccountId: account.id,
    accountExternalId: account.accountExternalId,
    date,
    timezone,
    from,
    initial: input.initial,
    readAt: metadata.now,
    audience: activity.audience,
    days: dailyNumbers(activity.posts, { from, to: date, timezone }),
    postsRead: activity.posts.length,
    creditsUsed: charge.replayed ? 0 : charge.creditsUsed,
  };
  const outcome = await handleCommand(deps.commands, {
    stream,
    decider: xAccountReadingDecider,
    command: { type: 'RecordXAccountReading', reading },
    metadata,
    loaded: { state: loaded.state, revision: loaded.revision },
    // The same account and date again (another instance, a retry) is the same event: the store keeps one.
    eventId: () => deterministicUuid('x-account-reading', orgId, account.id, date),
  });
  return outcome.state.status === 'read'
    ? { recorded: outcome.events.length > 0, reading: outcome.state.reading }
    : { recorded: false, reading };
}

async function resolveXAccount(
  deps: Pick<XAccountReadingDeps, 'accounts'>,
  orgId: string,
  socialAccountId: string | null,
): Promise<AccountRef> {
  const resolved = await deps.accounts.resolve({ orgId, platform: 'x', socialAccountId });
  if (resolved.ok) return resolved.account;
  if (resolved.reason === 'not_found' && socialAccountId)
    throw new InvalidFields('Unknown social account', [
      { path: 'socialAccountId', message: 'not an X account of this workspace' },
    ]);
  throw new Conflict(resolved.message, `account_${resolved.reason}`);
}

export interface SetXAccountAnalyticsInput {
  orgId: string;
  enabled: boolean;
  /** The X account to read, when the workspace has several. */
  socialAccountId?: string;
  /** For the answer's window; default 30. */
  days?: number;
}

/**
 * PUT ORG/marketing/analytics/x-account: owners and admins (settings:manage); not a tool. Switching on reads the
 * last 30 days at once and charges that day's reading; if the read fails (X, credits) nothing is switched on.
 * Switching on again for the same account, or off when off, changes nothing.
 */
export async function setXAccountAnalytics(
  deps: XAccountAnalyticsDeps,
  caller: Caller,
  input: SetXAccountAnalyticsInput,
  request: WriteRequest,
): Promise<Written<XAccountAnalyticsView>> {
  authorize(caller, { orgId: input.orgId, permission: 'settings:manage', scope: null });
  const windowDays = windowOf(input.days);
  const { orgId } = input;
  return runWrite(deps.idempotency, caller, request, async ({ metadata }) => {
    const stream = xAccountAnalyticsStream(orgId);
    const setting = await loadAggregate(deps.commands.eventStore, stream, xAccountAnalyticsDecider);
    if (!input.enabled) {
      await handleCommand(deps.commands, {
        stream,
        decider: xAccountAnalyticsDecider,
        command: {
          type: 'DisableXAccountAnalytics',
          orgId,
          reason: 'requested',
          by: actorOf(caller),
          now: request.now,
        },
        metadata,
        loaded: { state: setting.state, revision: setting.revision },
      });
      return xAccountAnalyticsView(deps, orgId, windowDays, request.now);
    }
    const account = await resolveXAccount(deps, orgId, input.socialAccountId ?? null);
    const on = setting.state.status === 'on' && setting.state.socialAccountId === account.id;
    if (!on) {
      const timezone = await deps.timezoneOf(orgId);
      // The reading first: when it fails, nothing is switched on.
      await takeXAccountReading(deps, {
        orgId,
        account,
        date: todayIn(request.now, timezone),
        timezone,
        initial: true,
        metadata,
      });
      await handleCommand(deps.commands, {
        stream,
        decider: xAccountAnalyticsDecider,
        command: {
          type: 'EnableXAccountAnalytics',
          orgId,
          socialAccountId: account.id,
          by: actorOf(caller),
          now: request.now,
        },
        metadata,
        loaded: { state: setting.state, revision: setting.revision },
      });
    }
    return xAccountAnalyticsView(deps, orgId, windowDays, request.now);
  });
}
