// The live X connector's side of the reply inbox (../engagement.ts) through X API v2: the account's mentions
// (GET /2/users/:id/mentions), recent search for watched handles and keywords (GET /2/tweets/search/recent), an X
// list's posts (GET /2/lists/:id/tweets) and a community's posts (see `x_community` below); a reply
// (POST /2/tweets with `reply.in_reply_to_tweet_id`) and, after a lost answer, finding it again in the account's
// own recent posts (GET /2/users/:id/tweets).
import type { PlatformResponse } from '../http.js';
import type {
  EngagementCandidate,
  EngagementPage,
  EngagementQuery,
  EngagementReadLimits,
  EngagementReply,
  EngagementReplyOutcome,
} from '../engagement.js';
import { ConnectorError, isConnectorError, type CallContext } from '../port.js';
import type { XCall } from './x-reads.js';

export interface XEngagementDeps {
  apiBase: string;
  call: XCall;
}

const minute = 60_000;

/**
 * The documented per-user limits (OAuth 2.0 user context) of the endpoints the inbox reads, per 15 minutes:
 * - recent search, GET /2/tweets/search/recent: 300 per user (450 per app), docs.x.com/x-api/fundamentals/rate-limits;
 * - mentions, GET /2/users/:id/mentions: 180 per user (450 per app), the endpoint's API reference;
 * - list posts, GET /2/lists/:id/tweets: 900 per user (900 per app), the endpoint's API reference;
 * - communities are read through recent search (after GET /2/communities/:id for the name), so they count
 *   against recent search's window; the few lookups naming communities on a page are not budgeted.
 */
export const xEngagementReadLimits: EngagementReadLimits = {
  x_mentions: [{ requests: 180, windowMs: 15 * minute, per: 'account' }],
  x_search: [{ requests: 300, windowMs: 15 * minute, per: 'account' }],
  x_list: [{ requests: 900, windowMs: 15 * minute, per: 'account' }],
  x_community: [{ requests: 300, windowMs: 15 * minute, per: 'account' }],
};

const tweetFields =
  'author_id,community_id,conversation_id,created_at,note_tweet,public_metrics,referenced_tweets';
const userFields = 'name,username,public_metrics';
const expansions = 'author_id,referenced_tweets.id';

interface RawTweet {
  id: string;
  text: string;
  author_id?: string;
  community_id?: string;
  conversation_id?: string;
  created_at?: string;
  note_tweet?: { text?: string };
  public_metrics?: { like_count?: number; reply_count?: number };
  referenced_tweets?: Array<{ type: string; id: string }>;
}

interface RawUser {
  id: string;
  name?: string;
  username?: string;
  public_metrics?: { followers_count?: number };
}

interface TimelineBody {
  data?: RawTweet[];
  includes?: { users?: RawUser[]; tweets?: RawTweet[] };
  /** Partial errors: a referenced post that was deleted or withheld, which the answer simply leaves out. */
  errors?: Array<{ resource_id?: string; value?: string; type?: string; title?: string }>;
  meta?: { next_token?: string; newest_id?: string; result_count?: number };
}

const ids = /^\d{1,25}$/;

/** Communities a page looks up by name at most (each one GET /2/communities/:id). */
const maxCommunityLookups = 3;

/** The page size X takes on each endpoint (search and mentions: 5..100 and 10..100; lists: 1..100). */
function pageSize(max: number, min: number): string {
  return String(Math.min(100, Math.max(min, Math.floor(max) || min)));
}

/** X's `x-rate-limit-remaining` and `x-rate-limit-reset` (epoch seconds) as the page reports them. */
export function xRateLimit(headers: Headers): EngagementPage['rateLimit'] {
  const remaining = headers.get('x-rate-limit-remaining');
  const reset = headers.get('x-rate-limit-reset');
  if (remaining === null && reset === null) return null;
  const resetSeconds = Number(reset);
  return {
    remaining: remaining !== null && Number.isFinite(Number(remaining)) ? Number(remaining) : null,
    resetAt:
      reset !== null && Number.isFinite(resetSeconds) ? new Date(resetSeconds * 1000).toISOString() : null,
  };
}

/** X rewrites links to t.co and escapes `&<>`; compare what is left (also the publish status check's). */
export function comparableXText(text: string): string {
  return text
    .replace(/https?:\/\/\S+/g, '<link>')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim();
}

const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function candidateOf(
  raw: RawTweet,
  body: TimelineBody,
  communities: ReadonlyMap<string, string | null>,
): EngagementCandidate {
  const author = raw.author_id ? body.includes?.users?.find((u) => u.id === raw.author_id) : undefined;
  const handle = author?.username ?? null;
  const answered = raw.referenced_tweets?.find((r) => r.type === 'replied_to');
  const parent = answered ? body.includes?.tweets?.find((t) => t.id === answered.id) : undefined;
  const inCommunity = raw.community_id !== undefined && raw.community_id !== '';
  return {
    platform: 'x',
    kind: inCommunity ? 'community' : 'mention',
    externalId: raw.id,
    url: handle ? `https://x.com/${handle}/status/${raw.id}` : `https://x.com/i/web/status/${raw.id}`,
    // Posts over 280 characters come whole in note_tweet; `text` holds their start.
    text: unescape(raw.note_tweet?.text ?? raw.text),
    author: {
      handle,
      name: author?.name ?? null,
      followers: author?.public_metrics?.followers_count ?? null,
    },
    postedAt: raw.created_at ?? null,
    likeCount: raw.public_metrics?.like_count ?? 0,
    replyCount: raw.public_metrics?.reply_count ?? 0,
    // A deleted or withheld parent is named in `errors[]` and absent from `includes`: no text then.
    inReplyToText: parent ? unescape(parent.note_tweet?.text ?? parent.text) : null,
    title: null,
    community: inCommunity ? (communities.get(raw.community_id!) ?? null) : null,
  };
}

export function createXEngagement(deps: XEngagementDeps) {
  const { apiBase, call } = deps;
  const headers = (context: CallContext) => ({ authorization: `Bearer ${context.tokens.accessToken}` });
  const signal = (context: CallContext) => (context.signal ? { signal: context.signal } : {});

  async function read(context: CallContext, path: string, params: URLSearchParams) {
    params.set('tweet.fields', tweetFields);
    params.set('user.fields', userFields);
    params.set('expansions', expansions);
    return call<TimelineBody>({
      url: `${apiBase}${path}?${params.toString()}`,
      headers: headers(context),
      effect: 'read',
      ...signal(context),
    });
  }

  /** A community's name (GET /2/communities/:id); null when X gives none. */
  async function communityName(context: CallContext, id: string): Promise<string | null> {
    const lookup = await call<{ data?: { id?: string; name?: string } }>({
      url: `${apiBase}/2/communities/${encodeURIComponent(id)}?community.fields=name`,
      headers: headers(context),
      effect: 'read',
      ...signal(context),
    });
    return lookup.body?.data?.name?.trim() || null;
  }

  /**
   * The page's candidates with the names of the communities their posts belong to: those already known, and a
   * lookup for each other community on the page (at most `maxCommunityLookups`; a community X will not describe,
   * private or gone, stays nameless rather than failing the read).
   */
  async function page(
    context: CallContext,
    response: PlatformResponse<TimelineBody>,
    known: ReadonlyMap<string, string | null> = new Map(),
    keep: (raw: RawTweet) => boolean = () => true,
  ): Promise<EngagementPage> {
    const body = response.body && typeof response.body === 'object' ? response.body : {};
    const data = body.data ?? [];
    const kept = data.filter(keep);
    const names = new Map(known);
    const unknown = [...new Set(kept.map((raw) => raw.community_id ?? ''))].filter(
      (id) => ids.test(id) && !names.has(id),
    );
    for (const id of unknown.slice(0, maxCommunityLookups)) {
      try {
        names.set(id, await communityName(context, id));
      } catch (error) {
        if (!isConnectorError(error) || error.kind === 'auth') throw error;
        names.set(id, null);
      }
    }
    return {
      items: kept.map((raw) => candidateOf(raw, body, names)),
      nextToken: body.meta?.next_token ?? null,
      newestId: body.meta?.newest_id ?? data[0]?.id ?? null,
      rateLimit: xRateLimit(response.headers),
    };
  }

  const requireId = (value: string, what: string) => {
    if (!ids.test(value)) throw new ConnectorError('permanent', `x: the ${what} id is a number`);
  };

  return {
    engagementReadLimits: xEngagementReadLimits,

    async readEngagement(context: CallContext, query: EngagementQuery): Promise<EngagementPage> {
      switch (query.source) {
        case 'x_mentions': {
          const userId = context.account.accountExternalId;
          requireId(userId, 'account');
          const params = new URLSearchParams({ max_results: pageSize(query.max, 5) });
          if (query.sinceId) params.set('since_id', query.sinceId);
          if (query.nextToken) params.set('pagination_token', query.nextToken);
          return page(
            context,
            await read(context, `/2/users/${encodeURIComponent(userId)}/mentions`, params),
          );
        }
        case 'x_search': {
          if (!query.query.trim()) throw new ConnectorError('permanent', 'x: a search needs a query');
          const params = new URLSearchParams({ query: query.query, max_results: pageSize(query.max, 10) });
          if (query.sinceId) params.set('since_id', query.sinceId);
          if (query.nextToken) params.set('next_token', query.nextToken);
          return page(context, await read(context, '/2/tweets/search/recent', params));
        }
        case 'x_list': {
          requireId(query.listId, 'list');
          const params = new URLSearchParams({ max_results: pageSize(query.max, 1) });
          if (query.nextToken) params.set('pagination_token', query.nextToken);
          return page(
            context,
            await read(context, `/2/lists/${encodeURIComponent(query.listId)}/tweets`, params),
          );
        }
        case 'x_community': {
          // X API v2 documents no endpoint listing a community's posts (only GET /2/communities/:id and
          // GET /2/communities/search). The community's name comes from the lookup; its posts are found by
          // recent search for that name, keeping only posts whose `community_id` is the community's
          // (docs/decisions.md, "Reply inbox connectors").
          requireId(query.communityId, 'community');
          const name = await communityName(context, query.communityId);
          if (!name) return { items: [], nextToken: null, newestId: null, rateLimit: null };
          const params = new URLSearchParams({
            query: `"${name.replace(/"/g, '')}" -is:retweet`,
            max_results: pageSize(query.max, 10),
          });
          if (query.nextToken) params.set('next_token', query.nextToken);
          const response = await read(context, '/2/tweets/search/recent', params);
          return page(
            context,
            response,
            new Map([[query.communityId, name]]),
            (raw) => raw.community_id === query.communityId,
          );
        }
        case 'reddit_search':
          throw new ConnectorError('permanent', 'x: Reddit searches are read by the Reddit connector');
        default: {
          const never: never = query;
          return never;
        }
      }
    },

    async sendEngagementReply(context: CallContext, reply: EngagementReply): Promise<EngagementReplyOutcome> {
      requireId(reply.inReplyTo, 'post');
      const response = await call<{ data?: { id?: string } }>({
        method: 'POST',
        url: `${apiBase}/2/tweets`,
        headers: headers(context),
        body: { text: reply.text, reply: { in_reply_to_tweet_id: reply.inReplyTo } },
        // X takes no idempotency key: a reply whose answer is lost may exist (findEngagementReply).
        effect: 'create',
        ...signal(context),
      });
      const id = response.body?.data?.id;
      if (!id) throw new ConnectorError('unknown_outcome', 'x: the reply was accepted without an id');
      return { externalId: id, url: replyUrl(context, id) };
    },

    // The account's own recent posts (GET /2/users/:id/tweets, replies included), newest first: the reply is the
    // one answering that post with the same text. Three pages of 100 reach well past any one send.
    async findEngagementReply(
      context: CallContext,
      reply: EngagementReply,
    ): Promise<EngagementReplyOutcome | null> {
      const userId = context.account.accountExternalId;
      requireId(userId, 'account');
      const wanted = comparableXText(reply.text);
      let next: string | undefined;
      for (let pageNo = 0; pageNo < 3; pageNo++) {
        const params = new URLSearchParams({
          max_results: '100',
          exclude: 'retweets',
          'tweet.fields': 'created_at,note_tweet,referenced_tweets',
        });
        if (next) params.set('pagination_token', next);
        const response = await call<TimelineBody>({
          url: `${apiBase}/2/users/${encodeURIComponent(userId)}/tweets?${params.toString()}`,
          headers: headers(context),
          effect: 'read',
          ...signal(context),
        });
        const found = (response.body?.data ?? []).find(
          (t) =>
            t.referenced_tweets?.some((r) => r.type === 'replied_to' && r.id === reply.inReplyTo) &&
            comparableXText(t.note_tweet?.text ?? t.text) === wanted,
        );
        if (found) return { externalId: found.id, url: replyUrl(context, found.id) };
        next = response.body?.meta?.next_token;
        if (!next) break;
      }
      return null;
    },
  };
}

function replyUrl(context: CallContext, id: string): string {
  return context.account.accountHandle
    ? `https://x.com/${context.account.accountHandle}/status/${id}`
    : `https://x.com/i/web/status/${id}`;
}
