// The sandbox's reply-inbox reads (../engagement.ts): realistic, deterministic posts to answer for every query
// source. Each read (account, source and query) has its own timeline: a post every 25 to 120 minutes (drawn from
// the read), so later refreshes find newer posts and a post keeps its id, text and author whenever it is read.
// A read holds two or three pages (the page count drawn from the read); `nextToken` pins the newest post of the
// first page, so paging is stable while the clock moves. About one post in twelve was deleted and is simply
// absent. X mentions and searches hold a community post now and then; a community read holds only those. The
// sandbox's own publications and replies are recorded by the connector (./sandbox-connector.ts).
import type { Platform } from '../../../domain/shared/platforms.js';
import type {
  EngagementCandidate,
  EngagementPage,
  EngagementQuery,
  EngagementReadLimits,
} from '../engagement.js';
import { ConnectorError, type CallContext } from '../port.js';
import { authors, bodies, draws, openers, pick, replyLines, snowflakeId } from './x-reads.js';

const minute = 60_000;

/** Generous, like the sandbox's metrics limits: the budget is exercised without shaping the numbers. */
export const sandboxEngagementReadLimits: EngagementReadLimits = {
  x_mentions: [{ requests: 6_000, windowMs: minute, per: 'account' }],
  x_search: [{ requests: 6_000, windowMs: minute, per: 'account' }],
  x_list: [{ requests: 6_000, windowMs: minute, per: 'account' }],
  x_community: [{ requests: 6_000, windowMs: minute, per: 'account' }],
  reddit_search: [{ requests: 6_000, windowMs: minute, per: 'account' }],
};

/** Posts a sandbox page holds at most, whatever `max` asks. */
const pageCap = 20;

const communityNames = [
  'Build in Public',
  'SaaS Founders',
  'Indie Makers',
  'DevRel Collective',
  'B2B Marketing',
];
const defaultSubreddits = ['SaaS', 'startups', 'Entrepreneur', 'marketing', 'smallbusiness'];

const mentionQuestions = [
  'how do you handle scheduling across time zones?',
  'is there a way to export the analytics?',
  'loved the last update. Any plans for a Reddit integration?',
  'what did you use to build the onboarding flow?',
  'quick question: does this work for agencies with many clients?',
  'thanks for the tip yesterday, it worked!',
];

const redditTitles = [
  'What tools do you use for {term}?',
  'Struggling with {term}, any advice?',
  'Is {term} worth it for a small team?',
  'How we grew our audience with {term} (lessons learned)',
  'Looking for recommendations: {term}',
];

const redditBodies = [
  'We are a team of three and spend way too much time on this every week. Curious what works for others.',
  'Tried a few options already, none of them handled our workflow well. Open to suggestions.',
  'Sharing what worked for us after six months, and what did not. Happy to answer questions.',
  '',
];

/**
 * What a search looks for, as a sandbox post can mention it: each alternative of an `OR`, without X's operators
 * (`from:`, `-is:retweet`, …), quotes and brackets (`"content calendar" OR from:maya` → `content calendar`).
 */
function termsOf(query: string): string[] {
  const terms = query
    .split(/\s+OR\s+/)
    .map((part) =>
      part
        .split(/\s+/)
        .filter((word) => !word.startsWith('-') && !/^\(?[a-z_]+:/i.test(word))
        .join(' ')
        .replace(/["()]/g, '')
        .replace(/^[@#]/, '')
        .trim(),
    )
    .filter((term) => term.length > 0);
  return terms.length > 0 ? terms : ['social media'];
}

/** Base-36 ids like Reddit's own, drawn from a label. */
const redditId = (label: string) =>
  Array.from(draws(`reddit-id:${label}`, 2), (d) =>
    Math.floor(d * 36 ** 4)
      .toString(36)
      .padStart(4, '0'),
  )
    .join('')
    .slice(0, 7);

interface Cursor {
  page: number;
  newestSlot: number;
}

const cursorText = (c: Cursor) => `sbx_p${c.page}_${c.newestSlot}`;

function cursorOf(token: string | null, fallback: number): Cursor {
  if (!token) return { page: 1, newestSlot: fallback };
  const match = /^sbx_p(\d)_(\d+)$/.exec(token);
  if (!match)
    throw new ConnectorError('permanent', 'sandbox: the page token is not one the sandbox gave', {
      status: 400,
    });
  return { page: Number(match[1]), newestSlot: Number(match[2]) };
}

function readKey(query: EngagementQuery): string {
  switch (query.source) {
    case 'x_mentions':
      return 'mentions';
    case 'x_search':
      return `search:${query.query}`;
    case 'x_list':
      return `list:${query.listId}`;
    case 'x_community':
      return `community:${query.communityId}`;
    case 'reddit_search':
      return `reddit:${query.query}:${[...query.subreddits]
        .map((s) => s.toLowerCase())
        .sort()
        .join('+')}`;
    default: {
      const never: never = query;
      return never;
    }
  }
}

export interface SandboxEngagementDeps {
  platform: Platform;
  now: () => Date;
  authorize: (context: CallContext) => Promise<void>;
}

export function createSandboxEngagement(deps: SandboxEngagementDeps) {
  const { platform, now } = deps;

  function xCandidate(context: CallContext, query: EngagementQuery, key: string, slot: number, atMs: number) {
    const label = `${key}:${slot}`;
    const [who = 0, line = 0, replying = 0, extra = 0, likes = 0, replies = 0] = draws(`post:${label}`);
    const author = pick(authors, who);
    const id = snowflakeId(atMs, label);
    const community =
      query.source === 'x_community'
        ? pick(communityNames, draws(`community:${query.communityId}`)[0]!)
        : query.source !== 'x_list' && slot % 7 === 3
          ? pick(communityNames, extra)
          : null;
    const handle = context.account.accountHandle ?? 'sandbox';
    let text: string;
    let inReplyToText: string | null = null;
    if (query.source === 'x_mentions') {
      text = `@${handle} ${pick(mentionQuestions, line)}`;
      if (replying < 0.5) {
        inReplyToText = `${pick(openers, extra)} ${pick(bodies, replying * 2)}`;
        text = `@${handle} ${pick(replyLines, line)}`;
      }
    } else if (query.source === 'x_search') {
      const term = pick(termsOf(query.query), extra);
      text = `${pick(openers, line)} ${pick(bodies, replying)} Anyone else working on ${term}?`;
    } else text = `${pick(openers, line)} ${pick(bodies, replying)}`;
    const candidate: EngagementCandidate = {
      platform: 'x',
      kind: community ? 'community' : 'mention',
      externalId: id,
      url: `https://x.com/${author.handle}/status/${id}`,
      text,
      author: { handle: author.handle, name: author.name, followers: author.followers },
      postedAt: new Date(atMs).toISOString(),
      likeCount: Math.floor(likes * likes * 240),
      replyCount: Math.floor(replies * 14),
      inReplyToText,
      title: null,
      community,
    };
    return candidate;
  }

  function redditCandidate(
    query: EngagementQuery & { source: 'reddit_search' },
    key: string,
    slot: number,
    atMs: number,
  ) {
    const label = `${key}:${slot}`;
    const [who = 0, title = 0, body = 0, sub = 0, score = 0, comments = 0, term = 0] = draws(
      `thread:${label}`,
    );
    const id = redditId(label);
    const subreddit = pick(
      query.subreddits.length > 0
        ? query.subreddits.map((s) => s.replace(/^\/?r\//i, ''))
        : defaultSubreddits,
      sub,
    );
    const slug = pick(redditTitles, title)
      .replace('{term}', pick(termsOf(query.query), term))
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')
      .slice(0, 50);
    const candidate: EngagementCandidate = {
      platform: 'reddit',
      kind: 'mention',
      externalId: `t3_${id}`,
      url: `https://www.reddit.com/r/${subreddit}/comments/${id}/${slug}/`,
      text: pick(redditBodies, body),
      author: {
        handle: `${pick(authors, who).handle.replace(/_/g, '')}_${id.slice(0, 3)}`,
        name: null,
        followers: null,
      },
      postedAt: new Date(atMs).toISOString(),
      likeCount: Math.floor(score * score * 180),
      replyCount: Math.floor(comments * 60),
      inReplyToText: null,
      title: pick(redditTitles, title).replace('{term}', pick(termsOf(query.query), term)),
      community: subreddit,
    };
    return candidate;
  }

  return {
    engagementReadLimits: sandboxEngagementReadLimits,

    async readEngagement(context: CallContext, query: EngagementQuery): Promise<EngagementPage> {
      await deps.authorize(context);
      const wanted = query.source === 'reddit_search' ? 'reddit' : 'x';
      if (wanted !== platform)
        throw new ConnectorError('permanent', `${platform} (sandbox): ${query.source} is read on ${wanted}`, {
          status: 400,
        });
      if ((query.source === 'x_search' || query.source === 'reddit_search') && !query.query.trim())
        throw new ConnectorError('permanent', `${platform} (sandbox): a search needs a query`, {
          status: 400,
        });
      const key = `${platform}:${context.account.accountExternalId}:${readKey(query)}`;
      const [cadence = 0, pageCount = 0] = draws(`read:${key}`);
      const intervalMs = (25 + Math.floor(cadence * 95)) * minute;
      const pages = pageCount < 0.5 ? 2 : 3;
      const size = Math.max(1, Math.min(pageCap, Math.floor(query.max) || pageCap));
      const cursor = cursorOf(query.nextToken, Math.floor(now().getTime() / intervalMs));
      const sinceId =
        'sinceId' in query && query.sinceId && /^\d+$/.test(query.sinceId) ? BigInt(query.sinceId) : null;
      const items: EngagementCandidate[] = [];
      let reachedSince = false;
      for (let i = 0; i < size; i++) {
        const slot = cursor.newestSlot - (cursor.page - 1) * size - i;
        // Deleted since: simply absent.
        if (draws(`deleted:${key}:${slot}`)[0]! < 1 / 12) continue;
        const atMs = slot * intervalMs + Math.floor(draws(`at:${key}:${slot}`)[0]! * intervalMs * 0.8);
        if (atMs > now().getTime()) continue;
        const candidate =
          query.source === 'reddit_search'
            ? redditCandidate(query, key, slot, atMs)
            : xCandidate(context, query, key, slot, atMs);
        if (sinceId !== null && BigInt(candidate.externalId) <= sinceId) {
          reachedSince = true;
          break;
        }
        items.push(candidate);
      }
      const more = cursor.page < pages && !reachedSince;
      return {
        items,
        nextToken: more ? cursorText({ page: cursor.page + 1, newestSlot: cursor.newestSlot }) : null,
        newestId: items[0]?.externalId ?? null,
        rateLimit: null,
      };
    },
  };
}
