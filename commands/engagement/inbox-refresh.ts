// POST ORG/engagement/refresh (refresh_reply_inbox, issue 30): reads the posts the engagement settings listen for
// through the connectors' `readEngagement` with the workspace's X and Reddit accounts — X mentions of the account,
// X recent search for the watched handles and keywords, each enabled feed (keywords: a search; list: the X list's
// posts; people: a search `from:` them), Reddit search for the Reddit keywords in the subreddits (threads holding an
// exclude term dropped) — a bounded number of pages each, de-duplicated by the post's id, scores the new ones
// (domain/engagement/relevance.ts) and records each as an inbox item (`inboxItem-<id>`, found once: an item found
// again is left as it is). A source that fails (rate limited, the account needs reconnecting, the connector cannot
// read) is a warning and the others go on. Posts nothing. X reads cost `x_post_read` credits per post returned
// (reserved for the most the X sources may return, charged for what they returned); Reddit reads cost nothing.
import type { Caller } from '../../domain/shared/caller.js';
import { authorize } from '../../domain/shared/caller.js';
import { AppError, InvalidFields } from '../../domain/shared/errors.js';
import {
  inboxItemDecider,
  inboxItemIdOf,
  inboxItemView,
  type FoundPost,
  type InboxItemView,
} from '../../domain/engagement/inbox-item.js';
import { relevanceOf } from '../../domain/engagement/relevance.js';
import type { EngagementFeed, EngagementSettings } from '../../domain/engagement/settings.js';
import type {
  EngagementCandidate,
  EngagementPage,
  EngagementQuery,
} from '../../infra/connectors/engagement.js';
import { ConnectorError, type AccountRef, type ConnectorRegistry } from '../../infra/connectors/port.js';
import type { Checkpoint } from '../../infra/event-store/port.js';
import { inboxItemsByIds } from '../../projections/engagement/queries.js';
import type { CreditsService, SpendContext } from '../billing/credits.js';
import { awaitReadModels, handleCommand, type CommandMetadata } from '../shared/command-handler.js';
import { newId } from '../shared/ids.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { AccountAccess } from '../social-accounts/account-access.js';
import { engagementSettingsOf } from './engagement-settings.js';
import { newerId, readRefreshCursors, saveRefreshCursors, type RefreshCursors } from './refresh-cursors.js';
import { inboxItemStream, inboxWriting, noMedia, type InboxDeps } from './inbox.js';

export interface RefreshDeps extends InboxDeps {
  accounts: Pick<AccountAccess, 'resolve' | 'withTokens'>;
  connectors: ConnectorRegistry;
  credits: Pick<CreditsService, 'withCredits'>;
  /** Credits per X post returned (`x_post_read`). */
  xPostCost: number;
}

export const refreshLimits = {
  /** Posts asked per page. */
  pageSize: 25,
  /** Pages read of one source per refresh. */
  pagesPerSource: 2,
  /** X recent search's query length. */
  xQueryLength: 512,
  /** Items recorded at once. */
  concurrency: 16,
} as const;

type Counter = 'mentions' | 'feeds' | 'reddit';

/** One thing to read: its query (but the page token), what it counts as and what its posts are matched by. */
export interface RefreshSource {
  platform: 'x' | 'reddit';
  label: string;
  counts: Counter;
  feedId: string | null;
  matchedBy: string;
  /** The terms that make a post of it relevant. */
  terms: string[];
  mentionsAccount: boolean;
  /** Where its last read stopped is kept under this key (X mentions and searches, which take `since_id`). */
  cursorKey: string | null;
  query: (nextToken: string | null, sinceId: string | null) => EngagementQuery;
}

export interface RefreshResult {
  added: number;
  drafted: number;
  mentionsFound: number;
  communityFound: number;
  redditFound: number;
  feedsFound: number;
  warnings: string[];
  items: InboxItemView[];
}

const quoted = (term: string) => (/\s/.test(term) ? `"${term.replace(/"/g, '')}"` : term);

/**
 * An X recent search query of these parts (`from:a OR @a`, terms), leaving out originals of retweets, within X's
 * query length: parts that do not fit are left out (and said in a warning).
 */
export function xSearchQuery(parts: readonly string[], warnings: string[], label: string): string | null {
  const suffix = ' -is:retweet';
  const kept: string[] = [];
  for (const part of parts) {
    const next = `(${[...kept, part].join(' OR ')})${suffix}`;
    if (next.length > refreshLimits.xQueryLength) {
      warnings.push(`${label}: ${parts.length - kept.length} term(s) left out (X's query length)`);
      break;
    }
    kept.push(part);
  }
  return kept.length > 0 ? `(${kept.join(' OR ')})${suffix}` : null;
}

function feedSource(feed: EngagementFeed, warnings: string[]): RefreshSource | null {
  const base = { platform: 'x' as const, counts: 'feeds' as const, feedId: feed.id, mentionsAccount: false };
  const max = refreshLimits.pageSize;
  const label = `Feed "${feed.name}"`;
  if (feed.source === 'list') {
    if (!feed.listId) return null;
    const listId = feed.listId;
    return {
      ...base,
      label,
      matchedBy: `list:${listId}`,
      terms: feed.keywords,
      cursorKey: null,
      query: (nextToken) => ({ source: 'x_list', listId, nextToken, max }),
    };
  }
  const parts = feed.source === 'people' ? feed.handles.map((h) => `from:${h}`) : feed.keywords.map(quoted);
  const query = xSearchQuery(parts, warnings, label);
  if (!query) return null;
  return {
    ...base,
    label,
    matchedBy: `search:${query}`,
    terms: [...feed.keywords, ...feed.handles],
    cursorKey: `search:${query}`,
    query: (nextToken, sinceId) => ({ source: 'x_search', query, sinceId, nextToken, max }),
  };
}

/** What a refresh reads, from the settings: every source, or the one feed asked for. */
export function refreshSources(
  settings: EngagementSettings,
  feedId: string | null,
  warnings: string[],
): RefreshSource[] {
  const max = refreshLimits.pageSize;
  if (feedId !== null) {
    const feed = settings.feeds.find((f) => f.id === feedId);
    if (!feed)
      throw new InvalidFields('Unknown feed', [
        { path: 'feedId', message: 'not a feed of the engagement settings' },
      ]);
    const source = feedSource(feed, warnings);
    return source ? [source] : [];
  }
  const sources: RefreshSource[] = [
    {
      platform: 'x',
      label: 'X mentions',
      counts: 'mentions',
      feedId: null,
      matchedBy: 'mention',
      terms: settings.keywords,
      mentionsAccount: true,
      cursorKey: 'mention',
      query: (nextToken, sinceId) => ({ source: 'x_mentions', sinceId, nextToken, max }),
    },
  ];
  const watched = xSearchQuery(
    [...settings.watchHandles.flatMap((h) => [`from:${h}`, `@${h}`]), ...settings.keywords.map(quoted)],
    warnings,
    'X search',
  );
  if (watched)
    sources.push({
      platform: 'x',
      label: 'X search',
      counts: 'mentions',
      feedId: null,
      matchedBy: `search:${watched}`,
      terms: [...settings.watchHandles, ...settings.keywords],
      mentionsAccount: false,
      cursorKey: `search:${watched}`,
      query: (nextToken, sinceId) => ({ source: 'x_search', query: watched, sinceId, nextToken, max }),
    });
  for (const feed of settings.feeds.filter((f) => f.enabled)) {
    const source = feedSource(feed, warnings);
    if (source) sources.push(source);
  }
  for (const communityId of settings.communities)
    sources.push({
      platform: 'x',
      label: `X community ${communityId}`,
      counts: 'mentions',
      feedId: null,
      matchedBy: `community:${communityId}`,
      terms: settings.keywords,
      mentionsAccount: false,
      cursorKey: null,
      query: (nextToken) => ({ source: 'x_community', communityId, nextToken, max }),
    });
  if (settings.redditKeywords.length > 0) {
    const query = settings.redditKeywords.map(quoted).join(' OR ');
    sources.push({
      platform: 'reddit',
      label: 'Reddit search',
      counts: 'reddit',
      feedId: null,
      matchedBy: `reddit:${query}`,
      terms: settings.redditKeywords,
      mentionsAccount: false,
      cursorKey: null,
      query: (nextToken) => ({
        source: 'reddit_search',
        query,
        subreddits: settings.subreddits,
        nextToken,
        max,
      }),
    });
  }
  return sources;
}

/** A source's failure, as the warning the answer gives. */
function warningOf(label: string, error: unknown): string {
  if (error instanceof ConnectorError) {
    if (error.kind === 'rate_limited')
      return `${label}: rate limited by the platform${
        error.details.retryAfterMs ? `; try again in ${Math.ceil(error.details.retryAfterMs / 1000)} s` : ''
      }`;
    if (error.kind === 'auth') return `${label}: the account needs reconnecting (${error.message})`;
    return `${label}: ${error.message}`;
  }
  return `${label}: ${(error as Error).message}`;
}

interface Found {
  candidate: EngagementCandidate;
  source: RefreshSource;
}

/** Reads every source of one platform with its account, page by page within the budget; failures warn. */
async function readPlatform(
  deps: RefreshDeps,
  account: AccountRef,
  sources: readonly RefreshSource[],
  warnings: string[],
  cursors: { saved: RefreshCursors; read: RefreshCursors },
): Promise<Found[]> {
  const connector = deps.connectors.get(account.platform);
  const read = connector.readEngagement?.bind(connector);
  if (!read) {
    warnings.push(
      `${account.platform === 'x' ? 'X' : 'Reddit'}: reading the inbox is not available in this build`,
    );
    return [];
  }
  const found: Found[] = [];
  for (const source of sources) {
    let nextToken: string | null = null;
    const sinceId = source.cursorKey ? (cursors.saved[source.cursorKey] ?? null) : null;
    for (let page = 0; page < refreshLimits.pagesPerSource; page++) {
      let answer: EngagementPage;
      try {
        answer = await deps.accounts.withTokens(account, (tokens) =>
          read({ account, tokens, fetchMedia: noMedia }, source.query(nextToken, sinceId)),
        );
      } catch (error) {
        if (!(error instanceof ConnectorError || error instanceof AppError)) throw error;
        warnings.push(warningOf(source.label, error));
        break;
      }
      for (const candidate of answer.items) if (candidate.externalId) found.push({ candidate, source });
      if (source.cursorKey && answer.newestId) {
        const newest = newerId(cursors.read[source.cursorKey], answer.newestId);
        if (newest) cursors.read[source.cursorKey] = newest;
      }
      nextToken = answer.nextToken;
      if (!nextToken) break;
    }
  }
  return found;
}

/** Reddit threads holding an exclude term are left out. */
function excluded(candidate: EngagementCandidate, terms: readonly string[]): boolean {
  if (candidate.platform !== 'reddit' || terms.length === 0) return false;
  const text = `${candidate.title ?? ''} ${candidate.text}`.toLowerCase();
  return terms.some((t) => text.includes(t.toLowerCase()));
}

/** Tool: refresh_reply_inbox. */
export async function refreshReplyInbox(
  deps: RefreshDeps,
  caller: Caller,
  input: { orgId: string; feedId?: string | undefined },
  request: WriteRequest,
): Promise<Written<RefreshResult>> {
  const { orgId } = input;
  authorize(caller, inboxWriting(orgId));
  return runWrite(deps.idempotency, caller, request, ({ metadata, idempotencySeed }) =>
    runInboxRefresh(deps, {
      orgId,
      feedId: input.feedId ?? null,
      metadata,
      creditKey: `inbox-refresh:${newId(idempotencySeed ? [idempotencySeed, request.idempotency?.requestHash ?? '', 'inbox-refresh'] : undefined)}`,
      creditContext: {
        actor: caller.kind === 'assistant' ? `assistant:${caller.clientId}` : caller.userId,
        userId: caller.userId,
        correlationId: request.correlationId,
      },
      now: request.now,
    }),
  );
}

/** One refresh of a workspace's inbox, by a request or by the auto-refresh sweep (processes/engagement). */
export interface InboxRefreshRun {
  orgId: string;
  /** Only this feed; null: every source. */
  feedId: string | null;
  metadata: CommandMetadata;
  /** The X reads' credit key: one charge per key. */
  creditKey: string;
  creditContext: SpendContext;
  now: string;
}

export async function runInboxRefresh(deps: RefreshDeps, run: InboxRefreshRun): Promise<RefreshResult> {
  const { orgId } = run;
  const settings = (await engagementSettingsOf(deps.commands, orgId)).settings;
  const warnings: string[] = [];
  const sources = refreshSources(settings, run.feedId, warnings);
  const cursors = { saved: await readRefreshCursors(deps.readModels, orgId), read: {} as RefreshCursors };
  const found: Found[] = [];
  for (const platform of ['x', 'reddit'] as const) {
    const mine = sources.filter((s) => s.platform === platform);
    if (mine.length === 0) continue;
    const name = platform === 'x' ? 'X' : 'Reddit';
    const resolved = await deps.accounts.resolve({ orgId, platform, socialAccountId: null });
    if (!resolved.ok) {
      warnings.push(`${name}: ${resolved.message}; its sources were not read`);
      continue;
    }
    if (platform === 'reddit') {
      found.push(...(await readPlatform(deps, resolved.account, mine, warnings, cursors)));
      continue;
    }
    // X reads are paid: reserved for the most these sources may return, charged for what they returned.
    const most = mine.length * refreshLimits.pagesPerSource * refreshLimits.pageSize;
    try {
      const { result } = await deps.credits.withCredits(
        {
          orgId,
          key: run.creditKey,
          actionKey: 'x_post_read',
          quantity: most,
          feature: 'reply_inbox',
          provider: 'x',
          metadata: { socialAccountId: resolved.account.id, read: 'reply_inbox' },
        },
        () => readPlatform(deps, resolved.account, mine, warnings, cursors),
        {
          actual: (read) => ({
            credits: read.length * deps.xPostCost,
            quantity: read.length,
            metadata: {
              socialAccountId: resolved.account.id,
              read: 'reply_inbox',
              postsReturned: read.length,
            },
          }),
          context: run.creditContext,
        },
      );
      found.push(...result);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      warnings.push(`X: ${error.message}; its sources were not read`);
    }
  }
  const result = await record(deps, run.metadata, orgId, settings, found, warnings, run.now);
  // Only once what was read is recorded: a refresh that failed before reads the same posts again.
  const keep = run.feedId === null ? sources.flatMap((s) => (s.cursorKey ? [s.cursorKey] : [])) : null;
  await saveRefreshCursors(deps.readModels, orgId, cursors.read, keep);
  return result;
}

async function record(
  deps: RefreshDeps,
  metadata: CommandMetadata,
  orgId: string,
  settings: EngagementSettings,
  found: readonly Found[],
  warnings: string[],
  now: string,
): Promise<RefreshResult> {
  // One item per post: the first source that found it names it.
  const byId = new Map<string, Found>();
  for (const f of found) {
    if (excluded(f.candidate, settings.redditExcludeTerms)) continue;
    const id = inboxItemIdOf(orgId, f.candidate.platform, f.candidate.externalId);
    if (!byId.has(id)) byId.set(id, f);
  }
  const counts = { mentions: 0, community: 0, reddit: 0, feeds: 0 };
  for (const { candidate, source } of byId.values()) {
    if (candidate.kind === 'community') counts.community++;
    else counts[source.counts]++;
  }
  const known = new Set(
    (await inboxItemsByIds(deps.readModels, orgId, [...byId.keys()])).map((i) => i.itemId),
  );
  const fresh = [...byId.entries()].filter(([id]) => !known.has(id));
  const added: InboxItemView[] = [];
  // A pool of appends (each a new stream): `concurrency` at a time, the next starting as one ends.
  let greatest: Checkpoint | null = null;
  const record = async ([itemId, { candidate, source }]: [string, Found]) => {
    const post: FoundPost = {
      orgId,
      itemId,
      platform: candidate.platform,
      kind: candidate.kind,
      externalPostId: candidate.externalId,
      url: candidate.url,
      text: candidate.text,
      author: candidate.author,
      postedAt: candidate.postedAt,
      likeCount: candidate.likeCount,
      replyCount: candidate.replyCount,
      inReplyToText: candidate.inReplyToText,
      matchedBy: source.matchedBy,
      feedId: source.feedId,
      title: candidate.title,
      community: candidate.community,
      relevance: relevanceOf(candidate, {
        terms: source.terms,
        mentionsAccount: source.mentionsAccount,
        now,
      }),
    };
    const o = await handleCommand(deps.commands, {
      stream: inboxItemStream(itemId),
      decider: inboxItemDecider,
      command: { type: 'RecordInboxItem', post, now },
      metadata: { ...metadata, orgId },
      // Not in the read model: appended as a new stream without reading it first (a concurrent refresh that
      // recorded it meanwhile makes the append conflict, and the retry reads the stream and records nothing).
      loaded: { state: inboxItemDecider.initialState, revision: null },
      awaitReadModels: false,
    });
    if (o.events.length === 0 || o.state.status !== 'present') return;
    added.push(inboxItemView(o.state.item));
    if (
      o.position &&
      (greatest === null || deps.commands.eventStore.compareCheckpoints(o.position, greatest) > 0)
    )
      greatest = o.position;
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(refreshLimits.concurrency, fresh.length) }, async () => {
      while (next < fresh.length) await record(fresh[next++]!);
    }),
  );
  // Read-your-writes once for all of them (every append has committed, and read models fold in commit order):
  // the list shows what the answer says was added.
  if (greatest !== null) await awaitReadModels(deps.commands, greatest, ['InboxItemFound']);
  added.sort((a, b) => (b.relevance ?? 0) - (a.relevance ?? 0) || b.createdAt.localeCompare(a.createdAt));
  return {
    added: added.length,
    drafted: 0,
    mentionsFound: counts.mentions,
    communityFound: counts.community,
    redditFound: counts.reddit,
    feedsFound: counts.feeds,
    warnings,
    items: added,
  };
}
