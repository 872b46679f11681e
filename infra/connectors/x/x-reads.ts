// The live X connector's reads through X API v2: posts by id (GET /2/tweets/:id, GET /2/tweets?ids=) with their
// authors, media and referenced posts expanded; a conversation (GET /2/tweets/search/recent with
// `conversation_id:`, which covers the last seven days); and the account's own timeline with its public and
// private numbers (GET /2/users/:id/tweets) and its audience (GET /2/users/:id public_metrics).
import type { PlatformRequest, PlatformResponse } from '../http.js';
import { ConnectorError, isConnectorError, type CallContext } from '../port.js';
import type {
  XAccountActivity,
  XAccountActivityRequest,
  XAccountPost,
  XConversationRequest,
  XConversationResult,
  XMedia,
  XMediaType,
  XPost,
  XPostReference,
  XPostsRequest,
  XPostsResult,
  XReferenceType,
} from '../x-reads.js';

/** The X connector's own call: platformCall with X's error bodies read into the message (x-connector.ts). */
export type XCall = <T>(request: PlatformRequest, pass?: number[]) => Promise<PlatformResponse<T>>;

export interface XReadsDeps {
  apiBase: string;
  call: XCall;
}

const tweetFields =
  'attachments,author_id,conversation_id,created_at,entities,in_reply_to_user_id,lang,note_tweet,' +
  'possibly_sensitive,public_metrics,referenced_tweets';
const userFields = 'name,username,verified,verified_type,profile_image_url,description,public_metrics';
const mediaFields = 'media_key,type,url,preview_image_url,alt_text,width,height,duration_ms,variants';

/** Pages read of one search or timeline at most (100 posts each). */
const maxSearchPages = 5;
/** X serves a user's newest 3,200 posts; 35 pages of 100 reach past that. */
const maxTimelinePages = 35;

interface RawPublicMetrics {
  retweet_count?: number;
  reply_count?: number;
  like_count?: number;
  quote_count?: number;
  bookmark_count?: number;
  impression_count?: number;
}

interface RawTweet {
  id: string;
  text: string;
  created_at?: string;
  lang?: string;
  author_id?: string;
  conversation_id?: string;
  in_reply_to_user_id?: string;
  possibly_sensitive?: boolean;
  note_tweet?: { text?: string };
  public_metrics?: RawPublicMetrics;
  non_public_metrics?: { impression_count?: number; url_link_clicks?: number; user_profile_clicks?: number };
  referenced_tweets?: Array<{ type: string; id: string }>;
  attachments?: { media_keys?: string[] };
  entities?: {
    urls?: Array<{
      url: string;
      expanded_url?: string;
      unwound_url?: string;
      title?: string;
      description?: string;
      media_key?: string;
    }>;
    hashtags?: Array<{ tag: string }>;
    mentions?: Array<{ username: string }>;
    cashtags?: Array<{ tag: string }>;
  };
}

interface RawUser {
  id: string;
  name?: string;
  username?: string;
  verified?: boolean;
  verified_type?: string;
  profile_image_url?: string;
  description?: string;
  public_metrics?: { followers_count?: number; following_count?: number; tweet_count?: number };
}

interface RawMedia {
  media_key: string;
  type: string;
  url?: string;
  preview_image_url?: string;
  alt_text?: string;
  width?: number;
  height?: number;
  duration_ms?: number;
  variants?: Array<{ bit_rate?: number; content_type: string; url: string }>;
}

interface RawError {
  value?: string;
  detail?: string;
  title?: string;
  resource_type?: string;
  parameter?: string;
  resource_id?: string;
  type?: string;
}

interface RawIncludes {
  users?: RawUser[];
  media?: RawMedia[];
  tweets?: RawTweet[];
}

interface LookupBody<D> {
  data?: D;
  includes?: RawIncludes;
  errors?: RawError[];
  meta?: { next_token?: string; result_count?: number };
}

const mediaTypes: readonly XMediaType[] = ['photo', 'video', 'animated_gif'];
const referenceTypes: readonly XReferenceType[] = ['replied_to', 'quoted', 'retweeted'];

const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

function lookupParams(includeMedia: boolean): URLSearchParams {
  const params = new URLSearchParams({
    'tweet.fields': tweetFields,
    expansions: [
      'author_id',
      'referenced_tweets.id',
      'referenced_tweets.id.author_id',
      ...(includeMedia ? ['attachments.media_keys'] : []),
    ].join(','),
    'user.fields': userFields,
  });
  if (includeMedia) params.set('media.fields', mediaFields);
  return params;
}

function mediaOf(raw: RawMedia): XMedia | null {
  const type = mediaTypes.find((t) => t === raw.type);
  if (!type) return null;
  return {
    key: raw.media_key,
    type,
    url: orNull(raw.url),
    previewImageUrl: orNull(raw.preview_image_url),
    altText: orNull(raw.alt_text),
    width: orNull(raw.width),
    height: orNull(raw.height),
    durationMs: orNull(raw.duration_ms),
    variants: (raw.variants ?? []).map((v) => ({
      url: v.url,
      contentType: v.content_type,
      bitRate: orNull(v.bit_rate),
    })),
  };
}

/** A post in the spec's shape from X's tweet object and the request's `includes`. */
export function xPostOf(
  raw: RawTweet,
  includes: RawIncludes,
  options: { includeMedia: boolean; references: boolean },
): XPost {
  const user = raw.author_id ? includes.users?.find((u) => u.id === raw.author_id) : undefined;
  const p = raw.public_metrics ?? {};
  const keys = raw.attachments?.media_keys ?? [];
  const media = options.includeMedia
    ? keys
        .map((key) => includes.media?.find((m) => m.media_key === key))
        .filter((m): m is RawMedia => m !== undefined)
        .map(mediaOf)
        .filter((m): m is XMedia => m !== null)
    : [];
  const references: XPostReference[] = options.references
    ? (raw.referenced_tweets ?? []).flatMap((ref) => {
        const type = referenceTypes.find((t) => t === ref.type);
        if (!type) return [];
        const found = includes.tweets?.find((t) => t.id === ref.id);
        return [
          {
            type,
            id: ref.id,
            post: found ? xPostOf(found, includes, { ...options, references: false }) : null,
          },
        ];
      })
    : [];
  const handle = user?.username ?? null;
  return {
    id: raw.id,
    url: handle ? `https://x.com/${handle}/status/${raw.id}` : `https://x.com/i/web/status/${raw.id}`,
    // Posts over 280 characters come whole in note_tweet; `text` holds their start.
    text: raw.note_tweet?.text ?? raw.text,
    createdAt: orNull(raw.created_at),
    lang: orNull(raw.lang),
    author: user
      ? {
          id: user.id,
          handle,
          name: orNull(user.name),
          verified:
            user.verified === true || (user.verified_type !== undefined && user.verified_type !== 'none'),
          followers: orNull(user.public_metrics?.followers_count),
          profileImageUrl: orNull(user.profile_image_url),
          bio: orNull(user.description),
        }
      : raw.author_id
        ? {
            id: raw.author_id,
            handle: null,
            name: null,
            verified: false,
            followers: null,
            profileImageUrl: null,
            bio: null,
          }
        : null,
    metrics: {
      likes: p.like_count ?? 0,
      reposts: p.retweet_count ?? 0,
      replies: p.reply_count ?? 0,
      quotes: p.quote_count ?? 0,
      bookmarks: p.bookmark_count ?? 0,
      impressions: orNull(p.impression_count),
    },
    conversationId: orNull(raw.conversation_id),
    inReplyToPostId: raw.referenced_tweets?.find((r) => r.type === 'replied_to')?.id ?? null,
    // The pic.x.com links of the post's own media are not links to anywhere else.
    links: (raw.entities?.urls ?? [])
      .filter((u) => u.media_key === undefined)
      .map((u) => ({
        url: u.url,
        expandedUrl: u.unwound_url ?? u.expanded_url ?? null,
        title: orNull(u.title),
        description: orNull(u.description),
      })),
    hashtags: (raw.entities?.hashtags ?? []).map((h) => h.tag),
    mentions: (raw.entities?.mentions ?? []).map((m) => m.username),
    cashtags: (raw.entities?.cashtags ?? []).map((c) => c.tag),
    possiblySensitive: raw.possibly_sensitive ?? false,
    mediaCount: keys.length,
    media,
    referencedPosts: references,
  };
}

/** Why X left an asked post out, from its partial error: hidden from this account, or not there. */
function missingReason(error: RawError): 'not_found' | 'not_authorized' {
  return /not-authorized|authorization/i.test(`${error.type ?? ''} ${error.title ?? ''}`)
    ? 'not_authorized'
    : 'not_found';
}

const olderFirst = (a: XPost, b: XPost) => {
  const x = BigInt(a.id);
  const y = BigInt(b.id);
  return x < y ? -1 : x > y ? 1 : 0;
};

export function createXReads(deps: XReadsDeps) {
  const { apiBase, call } = deps;
  const headers = (context: CallContext) => ({ authorization: `Bearer ${context.tokens.accessToken}` });
  const signal = (context: CallContext) => (context.signal ? { signal: context.signal } : {});

  async function read<D>(context: CallContext, url: string): Promise<PlatformResponse<LookupBody<D>>> {
    return call<LookupBody<D>>(
      { url, headers: headers(context), effect: 'read', ...signal(context) },
      // One post asked by id answers 404 when the id is not a post at all.
      [404],
    );
  }

  function missingOf(body: LookupBody<unknown>, asked: readonly string[]): XPostsResult['missing'] {
    return (body.errors ?? [])
      .filter(
        (e) =>
          (e.parameter === 'id' || e.parameter === 'ids') && asked.includes(e.resource_id ?? e.value ?? ''),
      )
      .map((e) => ({ id: e.resource_id ?? e.value ?? '', reason: missingReason(e) }));
  }

  async function search(
    context: CallContext,
    query: string,
    includeMedia: boolean,
    enough: number,
  ): Promise<{ posts: XPost[]; more: boolean }> {
    const posts: XPost[] = [];
    let next: string | undefined;
    for (let page = 0; page < maxSearchPages; page++) {
      const params = lookupParams(includeMedia);
      params.set('query', query);
      params.set('max_results', '100');
      if (next) params.set('next_token', next);
      const response = await read<RawTweet[]>(
        context,
        `${apiBase}/2/tweets/search/recent?${params.toString()}`,
      );
      const includes = response.body.includes ?? {};
      for (const raw of response.body.data ?? [])
        posts.push(xPostOf(raw, includes, { includeMedia, references: true }));
      next = response.body.meta?.next_token;
      if (!next || posts.length >= enough) break;
    }
    return { posts, more: next !== undefined };
  }

  return {
    async readXPosts(context: CallContext, request: XPostsRequest): Promise<XPostsResult> {
      const ids = [...new Set(request.ids)];
      if (ids.length === 0) return { posts: [], missing: [] };
      if (ids.length > 100 || ids.some((id) => !/^\d{1,25}$/.test(id)))
        throw new ConnectorError('permanent', 'x: post ids are 1 to 100 numbers');
      const params = lookupParams(request.includeMedia);
      let raws: RawTweet[];
      let body: LookupBody<RawTweet | RawTweet[]>;
      if (ids.length === 1) {
        const response = await read<RawTweet>(
          context,
          `${apiBase}/2/tweets/${encodeURIComponent(ids[0]!)}?${params.toString()}`,
        );
        if (response.status === 404) return { posts: [], missing: [{ id: ids[0]!, reason: 'not_found' }] };
        body = response.body;
        raws = response.body.data ? [response.body.data] : [];
      } else {
        params.set('ids', ids.join(','));
        const response = await read<RawTweet[]>(context, `${apiBase}/2/tweets?${params.toString()}`);
        body = response.body;
        raws = response.body.data ?? [];
      }
      const missing = missingOf(body, ids);
      const answered = new Set([...raws.map((r) => r.id), ...missing.map((m) => m.id)]);
      // An answer that neither returns nor explains an asked post is not one to trust.
      if (ids.some((id) => !answered.has(id)))
        throw new ConnectorError('retryable', 'x: the post lookup answered without the posts asked for');
      const includes = body.includes ?? {};
      const byId = new Map(raws.map((r) => [r.id, r]));
      return {
        posts: ids
          .map((id) => byId.get(id))
          .filter((r): r is RawTweet => r !== undefined)
          .map((r) => xPostOf(r, includes, { includeMedia: request.includeMedia, references: true })),
        missing,
      };
    },

    async readXConversation(
      context: CallContext,
      request: XConversationRequest,
    ): Promise<XConversationResult> {
      const conversation = `conversation_id:${request.conversationId}`;
      if (
        !/^\d{1,25}$/.test(request.conversationId) ||
        (request.authorId && !/^\d{1,25}$/.test(request.authorId))
      )
        throw new ConnectorError('permanent', 'x: conversation and author ids are numbers');
      const own = request.authorId
        ? await search(context, `${conversation} from:${request.authorId}`, request.includeMedia, Infinity)
        : { posts: [], more: false };
      // The thread: the author's posts answering the root or the author's own posts in it (a chain). The author
      // answering someone else is part of the replies.
      const ownIds = new Set([request.conversationId, ...own.posts.map((p) => p.id)]);
      const thread = own.posts
        .filter(
          (p) =>
            p.id !== request.conversationId && p.inReplyToPostId !== null && ownIds.has(p.inReplyToPostId),
        )
        .sort(olderFirst);
      let replies: XPost[] = [];
      let repliesMore = false;
      if (request.includeReplies) {
        const others = await search(
          context,
          request.authorId ? `${conversation} -from:${request.authorId}` : conversation,
          request.includeMedia,
          Infinity,
        );
        replies = [
          ...others.posts,
          ...own.posts.filter((p) => p.id !== request.conversationId && !thread.includes(p)),
        ].sort(olderFirst);
        repliesMore = others.more;
      }
      const keptThread = thread.slice(0, request.limit);
      const keptReplies = replies.slice(0, Math.max(0, request.limit - keptThread.length));
      return {
        thread: keptThread,
        replies: keptReplies,
        hasMore:
          own.more || repliesMore || keptThread.length < thread.length || keptReplies.length < replies.length,
      };
    },

    async readXAccountActivity(
      context: CallContext,
      request: XAccountActivityRequest,
    ): Promise<XAccountActivity> {
      const userId = context.account.accountExternalId;
      const user = await call<{ data?: RawUser }>({
        url: `${apiBase}/2/users/${encodeURIComponent(userId)}?user.fields=public_metrics`,
        headers: headers(context),
        effect: 'read',
        ...signal(context),
      });
      const counts = user.body.data?.public_metrics ?? {};
      const timeline = async (withPrivate: boolean) => {
        const posts: XAccountPost[] = [];
        let next: string | undefined;
        let pages = 0;
        do {
          const params = new URLSearchParams({
            start_time: new Date(request.since).toISOString().replace(/\.\d{3}Z$/, 'Z'),
            max_results: '100',
            exclude: 'retweets',
            'tweet.fields': `created_at,in_reply_to_user_id,referenced_tweets,public_metrics${
              withPrivate ? ',non_public_metrics' : ''
            }`,
          });
          if (next) params.set('pagination_token', next);
          const response = await call<LookupBody<RawTweet[]>>({
            url: `${apiBase}/2/users/${encodeURIComponent(userId)}/tweets?${params.toString()}`,
            headers: headers(context),
            effect: 'read',
            ...signal(context),
          });
          for (const raw of response.body.data ?? []) {
            const p = raw.public_metrics ?? {};
            const hidden = raw.non_public_metrics;
            const repliesTo = raw.referenced_tweets?.some((r) => r.type === 'replied_to') ?? false;
            posts.push({
              id: raw.id,
              createdAt: raw.created_at ?? new Date(0).toISOString(),
              kind: repliesTo && raw.in_reply_to_user_id !== userId ? 'reply' : 'post',
              likes: p.like_count ?? 0,
              reposts: p.retweet_count ?? 0,
              replies: p.reply_count ?? 0,
              quotes: p.quote_count ?? 0,
              bookmarks: p.bookmark_count ?? 0,
              impressions: hidden?.impression_count ?? p.impression_count ?? null,
              profileVisits: orNull(hidden?.user_profile_clicks),
              linkClicks: orNull(hidden?.url_link_clicks),
            });
          }
          next = response.body.meta?.next_token;
          pages++;
        } while (next && pages < maxTimelinePages);
        return { posts, truncated: next !== undefined };
      };
      let read: { posts: XAccountPost[]; truncated: boolean };
      try {
        read = await timeline(true);
      } catch (error) {
        // The app may not read private numbers (or not for every post): the public ones still count.
        if (!isConnectorError(error) || error.kind !== 'permanent') throw error;
        read = await timeline(false);
      }
      return {
        audience: {
          followers: orNull(counts.followers_count),
          following: orNull(counts.following_count),
          postCount: orNull(counts.tweet_count),
        },
        posts: read.posts,
        truncated: read.truncated,
      };
    },
  };
}
