// The live X connector: OAuth 2.0 with PKCE, account info, publishing tweets (threads, polls, quotes, reply
// settings, communities, media uploads), finding an unconfirmed tweet again, deletion, tweets' metrics (one or a
// hundred at a time) and the account's follower counts through X API v2.
import type { MediaAsset } from '../../../domain/shared/media-asset.js';
import type { PlatformPayload, ReplySettings } from '../../../domain/post-groups/post-content.js';
import {
  platformCall,
  type LiveConnectorOptions,
  type PlatformRequest,
  type PlatformResponse,
} from '../http.js';
import {
  authorizationUrl,
  pkce,
  refusedRefreshIsAuth,
  tokenEndpointRequest,
  tokenSetFrom,
} from '../oauth2.js';
import {
  ConnectorError,
  isConnectorError,
  metricsReading,
  type AccountProfile,
  type AccountRef,
  type AccountStats,
  type AuthorizationCallback,
  type AuthorizationRequest,
  type AuthorizationResult,
  type AuthorizationStart,
  type CallContext,
  type MetricsBatchAnswer,
  type MetricsFetch,
  type MetricsRequest,
  type PlatformConnector,
  type PublishOutcome,
  type PublishRequest,
  type StatusCheck,
  type StatusQuery,
  type TokenSet,
  type XSubscription,
} from '../port.js';
import { createXEngagement, comparableXText as comparableText } from './x-engagement.js';
import { createXReads } from './x-reads.js';
import { createXTrends } from './x-trends.js';
import type { RepostOutcome, RepostRequest } from '../port.js';

export type XConnectorConfig = LiveConnectorOptions & {
  clientId?: string;
  clientSecret?: string;
  /** https://api.x.com */
  apiBaseUrl?: string;
  /** https://x.com/i/oauth2/authorize */
  authorizeUrl?: string;
  /** Media upload host; the API host unless set. */
  uploadBaseUrl?: string;
  /** Bytes per APPEND of a chunked (video) upload; X takes at most 5 MB. */
  chunkSizeBytes?: number;
  /** How long publish waits for X to finish processing a video before giving up (nothing posted yet). */
  mediaProcessingTimeoutMs?: number;
  /** Replaced in tests so STATUS polling does not wait for real. */
  sleep?: (ms: number) => Promise<void>;
};

export const xScopes = ['tweet.read', 'tweet.write', 'users.read', 'offline.access', 'media.write'];

const userFields = 'profile_image_url,description,verified_type,subscription_type';
const PLATFORM = 'x';

interface XTokenResponse {
  token_type: string;
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

interface XUser {
  id: string;
  name?: string;
  username?: string;
  profile_image_url?: string;
  description?: string;
  verified_type?: string;
  subscription_type?: string;
}

interface XMediaData {
  id: string;
  media_key?: string;
  processing_info?: { state: string; check_after_secs?: number; error?: { message?: string } };
}

/** X's `subscription_type` (`None`, `Basic`, `Premium`, `PremiumPlus`) in the spec's words. */
export function xSubscriptionOf(subscriptionType: string | undefined): XSubscription | null {
  switch ((subscriptionType ?? '').toLowerCase().replace(/[^a-z]/g, '')) {
    case 'none':
      return 'none';
    case 'basic':
      return 'basic';
    case 'premium':
      return 'premium';
    case 'premiumplus':
      return 'premium_plus';
    default:
      return null;
  }
}

/** The tweet id in an x.com / twitter.com status URL (or a bare id). */
export function tweetIdFromUrl(url: string): string | null {
  if (/^\d+$/.test(url.trim())) return url.trim();
  const match = /^https?:\/\/(?:www\.|mobile\.)?(?:x|twitter)\.com\/[^/]+\/status(?:es)?\/(\d+)/i.exec(
    url.trim(),
  );
  return match?.[1] ?? null;
}

/** The community id in an x.com/i/communities/<id> URL (or a bare id). */
export function communityIdFromUrl(url: string): string | null {
  if (/^\d+$/.test(url.trim())) return url.trim();
  const match = /^https?:\/\/(?:www\.)?(?:x|twitter)\.com\/i\/communities\/(\d+)/i.exec(url.trim());
  return match?.[1] ?? null;
}

/**
 * `everyone` is X's default and is sent by leaving the field out. `verified` is one of the values
 * POST /2/tweets takes (with `following`, `mentionedUsers` and `subscribers`), so it is passed as it is.
 */
export function xReplySettings(value: ReplySettings | undefined): string | undefined {
  switch (value) {
    case undefined:
    case 'everyone':
      return undefined;
    case 'following':
    case 'mentionedUsers':
    case 'verified':
      return value;
    default: {
      const never: never = value;
      return never;
    }
  }
}

/** X answers `{title, detail, type, status}` or `{errors: [{message, ...}]}`; this picks the words to show. */
function xErrorMessage(body: unknown, status: number): string {
  if (body && typeof body === 'object') {
    const b = body as { detail?: unknown; title?: unknown; errors?: unknown; error_description?: unknown };
    const fromErrors = Array.isArray(b.errors)
      ? b.errors
          .map((e: unknown) =>
            e && typeof e === 'object'
              ? ((e as { message?: unknown; detail?: unknown }).message ?? (e as { detail?: unknown }).detail)
              : undefined,
          )
          .filter((m): m is string => typeof m === 'string' && m.length > 0)
      : [];
    if (fromErrors.length > 0) return fromErrors.join('; ');
    for (const value of [b.detail, b.error_description, b.title])
      if (typeof value === 'string' && value) return value;
  }
  return `HTTP ${status}`;
}

function xErrorType(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as { type?: unknown; errors?: Array<{ type?: unknown }>; error?: unknown };
  if (typeof b.type === 'string' && b.type !== 'about:blank') return b.type;
  const first = Array.isArray(b.errors) ? b.errors[0]?.type : undefined;
  if (typeof first === 'string') return first;
  return typeof b.error === 'string' ? b.error : undefined;
}

/** RFC 3339 without fractions: X refuses `start_time` with milliseconds. */
function xTime(iso: string): string {
  return new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

interface XPublicMetrics {
  retweet_count?: number;
  reply_count?: number;
  like_count?: number;
  quote_count?: number;
  bookmark_count?: number;
  impression_count?: number;
}

interface XTweetWithMetrics {
  id: string;
  public_metrics?: XPublicMetrics;
  non_public_metrics?: { impression_count?: number };
}

interface XTweetMetricsBody {
  data?: XTweetWithMetrics;
  errors?: Array<{ type?: string; title?: string; detail?: string }>;
}

/** GET /2/tweets?ids=…: the tweets found, and an error naming each id that was not. */
interface XTweetsMetricsBody {
  data?: XTweetWithMetrics[];
  errors?: Array<{
    type?: string;
    title?: string;
    detail?: string;
    value?: string;
    resource_id?: string;
  }>;
}

/** Ids a GET /2/tweets lookup takes at once. */
const tweetsPerLookup = 100;

/** A tweet's counts in the port's terms; impressions from the non-public metrics when X gave them. */
function xMetrics(tweet: XTweetWithMetrics) {
  const p = tweet.public_metrics ?? {};
  return metricsReading({
    likes: p.like_count ?? 0,
    reposts: p.retweet_count ?? 0,
    replies: p.reply_count ?? 0,
    quotes: p.quote_count ?? 0,
    bookmarks: p.bookmark_count ?? null,
    impressions: tweet.non_public_metrics?.impression_count ?? p.impression_count ?? null,
  });
}

const isNotFoundError = (e: { type?: string; title?: string; detail?: string }) =>
  /resource-not-found/.test(e.type ?? '') || /not found/i.test(`${e.title ?? ''} ${e.detail ?? ''}`);

/** X serves non-public metrics of the account's own tweets for 30 days after posting. */
const nonPublicMetricsDays = 30;

/** Whether X's answer says the tweet does not exist (deleted, or never was): 200 with only a Not Found error. */
function tweetNotFound(body: XTweetMetricsBody): boolean {
  return !body.data && (body.errors ?? []).some(isNotFoundError);
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createXConnector(config: XConnectorConfig): PlatformConnector {
  const apiBase = (config.apiBaseUrl ?? 'https://api.x.com').replace(/\/$/, '');
  const uploadBase = (config.uploadBaseUrl ?? apiBase).replace(/\/$/, '');
  const authorizeUrl = config.authorizeUrl ?? 'https://x.com/i/oauth2/authorize';
  const chunkSize = config.chunkSizeBytes ?? 4 * 1024 * 1024;
  const processingTimeoutMs = config.mediaProcessingTimeoutMs ?? 10 * 60_000;
  const sleep = config.sleep ?? defaultSleep;
  const now = () => config.now?.() ?? new Date();

  /**
   * platformCall with X's error bodies: 4xx other than 401 and 429 come back here so the message can name
   * what X said (its `errors[]` carry the useful words, its `detail` is often generic).
   */
  async function call<T>(request: PlatformRequest, pass: number[] = []): Promise<PlatformResponse<T>> {
    const mapped = [400, 403, 404, 409, 413, 422];
    const response = await platformCall<T>(
      PLATFORM,
      { ...request, passStatuses: [...mapped, ...pass] },
      config,
    );
    if (response.status < 400 || pass.includes(response.status)) return response;
    const type = xErrorType(response.body);
    throw new ConnectorError(
      'permanent',
      `x: ${xErrorMessage(response.body, response.status)} (HTTP ${response.status})`,
      { status: response.status, ...(type ? { platformCode: type } : {}) },
    );
  }

  function bearer(tokens: TokenSet): Record<string, string> {
    return { authorization: `Bearer ${tokens.accessToken}` };
  }

  function basicAuth(): Record<string, string> {
    const credentials = Buffer.from(`${config.clientId ?? ''}:${config.clientSecret ?? ''}`).toString(
      'base64',
    );
    return { authorization: `Basic ${credentials}` };
  }

  async function token(params: Record<string, string>, previous?: TokenSet): Promise<TokenSet> {
    const response = await call<XTokenResponse>(
      tokenEndpointRequest(
        `${apiBase}/2/oauth2/token`,
        { ...params, client_id: config.clientId ?? '' },
        basicAuth(),
      ),
    );
    return tokenSetFrom(response.body, previous ?? null, { now: now(), defaultScopes: [] });
  }

  async function me(tokens: TokenSet, signal?: AbortSignal): Promise<AccountProfile> {
    const response = await call<{ data: XUser }>({
      url: `${apiBase}/2/users/me?user.fields=${userFields}`,
      headers: bearer(tokens),
      effect: 'read',
      ...(signal ? { signal } : {}),
    });
    const user = response.body.data;
    return {
      accountExternalId: user.id,
      accountName: user.name ?? null,
      accountHandle: user.username ?? null,
      profileImageUrl: user.profile_image_url ?? null,
      profileUrl: user.username ? `https://x.com/${user.username}` : null,
      accountBio: user.description ?? null,
      xSubscription: xSubscriptionOf(user.subscription_type),
    };
  }

  function tweetUrl(account: AccountRef, id: string): string {
    return account.accountHandle
      ? `https://x.com/${account.accountHandle}/status/${id}`
      : `https://x.com/i/web/status/${id}`;
  }

  async function uploadImage(
    context: CallContext,
    item: { url: string; contentType: string; assetId: string; altText?: string },
  ): Promise<string> {
    const media = await context.fetchMedia(item);
    const form = new FormData();
    form.set('media', await media.blob(), item.assetId);
    form.set('media_category', media.contentType === 'image/gif' ? 'tweet_gif' : 'tweet_image');
    form.set('media_type', media.contentType);
    const response = await call<{ data: XMediaData }>({
      method: 'POST',
      url: `${uploadBase}/2/media/upload`,
      headers: bearer(context.tokens),
      body: form,
      // An upload nobody attaches is harmless, so an upload can simply be tried again.
      effect: 'read',
      ...(context.signal ? { signal: context.signal } : {}),
    });
    const id = response.body.data.id;
    if (item.altText) await setAltText(context, id, item.altText);
    return id;
  }

  async function setAltText(context: CallContext, mediaId: string, altText: string): Promise<void> {
    await call({
      method: 'POST',
      url: `${uploadBase}/2/media/metadata`,
      headers: bearer(context.tokens),
      body: { id: mediaId, metadata: { alt_text: { text: altText.slice(0, 1000) } } },
      effect: 'read',
      ...(context.signal ? { signal: context.signal } : {}),
    });
  }

  async function uploadVideo(
    context: CallContext,
    item: { url: string; contentType: string; assetId: string },
  ): Promise<string> {
    const media = await context.fetchMedia(item);
    const signal = context.signal ? { signal: context.signal } : {};
    const init = await call<{ data: XMediaData }>({
      method: 'POST',
      url: `${uploadBase}/2/media/upload/initialize`,
      headers: bearer(context.tokens),
      body: {
        media_type: media.contentType,
        total_bytes: media.size,
        media_category: 'tweet_video',
      },
      effect: 'read',
      ...signal,
    });
    const id = init.body.data.id;
    // Each segment is read from the spooled file as it is sent: one chunk in memory at a time.
    for (let offset = 0, segment = 0; offset < media.size; offset += chunkSize, segment += 1) {
      const chunk = await media.read(offset, Math.min(chunkSize, media.size - offset));
      const form = new FormData();
      form.set('segment_index', String(segment));
      form.set('media', new Blob([chunk]), `${item.assetId}.${segment}`);
      await call({
        method: 'POST',
        url: `${uploadBase}/2/media/upload/${id}/append`,
        headers: bearer(context.tokens),
        body: form,
        effect: 'read',
        ...signal,
      });
    }
    const finalized = await call<{ data: XMediaData }>({
      method: 'POST',
      url: `${uploadBase}/2/media/upload/${id}/finalize`,
      headers: bearer(context.tokens),
      effect: 'read',
      ...signal,
    });
    let processing = finalized.body.data.processing_info;
    let waited = 0;
    while (processing && processing.state !== 'succeeded') {
      if (processing.state === 'failed')
        throw new ConnectorError(
          'permanent',
          `x: the video was not accepted (${processing.error?.message ?? 'processing failed'})`,
          { platformCode: 'media_processing_failed' },
        );
      // Nothing is posted yet, so running out of patience here is safe to retry later.
      if (waited >= processingTimeoutMs)
        throw new ConnectorError('retryable', 'x: the video is still processing; try again later');
      const wait = Math.max(1, processing.check_after_secs ?? 5) * 1000;
      await sleep(wait);
      waited += wait;
      const status = await call<{ data: XMediaData }>({
        url: `${uploadBase}/2/media/upload?command=STATUS&media_id=${encodeURIComponent(id)}`,
        headers: bearer(context.tokens),
        effect: 'read',
        ...signal,
      });
      processing = status.body.data.processing_info;
    }
    return id;
  }

  async function uploadMedia(context: CallContext, media: MediaAsset): Promise<string[]> {
    switch (media.kind) {
      case 'image':
        return [await uploadImage(context, media)];
      case 'images': {
        if (media.images.length > 4)
          throw new ConnectorError('permanent', 'x: a tweet takes at most 4 images');
        const ids: string[] = [];
        for (const image of media.images) ids.push(await uploadImage(context, image));
        return ids;
      }
      case 'video':
        return [await uploadVideo(context, media)];
      case 'document':
        throw new ConnectorError('permanent', 'x: documents cannot be posted to X');
      default: {
        const never: never = media;
        return never;
      }
    }
  }

  /** The body of the first tweet: everything the payload says about the post itself. */
  function firstTweetBody(
    text: string,
    mediaIds: string[],
    payload: PlatformPayload | null,
  ): Record<string, unknown> {
    const body: Record<string, unknown> = { text };
    if (mediaIds.length > 0) body.media = { media_ids: mediaIds };
    if (payload?.poll)
      body.poll = { options: payload.poll.options, duration_minutes: payload.poll.durationMinutes };
    if (payload?.quoteTweetUrl) {
      const quoted = tweetIdFromUrl(payload.quoteTweetUrl);
      if (!quoted)
        throw new ConnectorError(
          'permanent',
          `x: quoteTweetUrl is not a link to a tweet: ${payload.quoteTweetUrl}`,
        );
      body.quote_tweet_id = quoted;
    }
    const replySettings = xReplySettings(payload?.replySettings);
    if (replySettings) body.reply_settings = replySettings;
    if (payload?.communityUrl) {
      const community = communityIdFromUrl(payload.communityUrl);
      if (!community)
        throw new ConnectorError(
          'permanent',
          `x: communityUrl is not a community link: ${payload.communityUrl}`,
        );
      body.community_id = community;
    }
    return body;
  }

  async function createTweet(context: CallContext, body: Record<string, unknown>): Promise<string> {
    const response = await call<{ data: { id: string; text: string } }>({
      method: 'POST',
      url: `${apiBase}/2/tweets`,
      headers: bearer(context.tokens),
      body,
      // X takes no idempotency key: a tweet whose answer is lost may exist.
      effect: 'create',
      ...(context.signal ? { signal: context.signal } : {}),
    });
    return response.body.data.id;
  }

  return {
    // Reading posts, conversations and the account's own timeline (./x-reads.ts).
    ...createXReads({ apiBase, call }),
    // The reply inbox: mentions, searches, lists and communities, and replies (./x-engagement.ts).
    ...createXEngagement({ apiBase, call }),
    // The research tools: the account's personalized trends (./x-trends.ts).
    ...createXTrends({ apiBase, call }),
    platform: 'x',
    mode: 'live',
    supportsRefresh: true,

    missingConfiguration() {
      return [
        ...(config.clientId ? [] : ['X_CLIENT_ID']),
        ...(config.clientSecret ? [] : ['X_CLIENT_SECRET']),
      ];
    },

    async startAuthorization(request: AuthorizationRequest): Promise<AuthorizationStart> {
      return {
        authorizationUrl: authorizationUrl(authorizeUrl, {
          response_type: 'code',
          client_id: config.clientId ?? '',
          redirect_uri: request.callbackUrl,
          scope: xScopes.join(' '),
          state: request.state,
          ...pkce(request.codeChallenge),
        }),
      };
    },

    async completeAuthorization(callback: AuthorizationCallback): Promise<AuthorizationResult> {
      const { error, error_description: description, code } = callback.params;
      if (error)
        throw new ConnectorError('permanent', `x: authorization refused (${description ?? error})`, {
          platformCode: error,
        });
      if (!code) throw new ConnectorError('permanent', 'x: the callback brought no authorization code');
      const tokens = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: callback.callbackUrl,
        code_verifier: callback.codeVerifier,
      });
      const profile = await me(tokens);
      return { kind: 'accounts', accounts: [{ profile, tokens }] };
    },

    async refresh(_account: AccountRef, tokens: TokenSet): Promise<TokenSet> {
      if (!tokens.refreshToken)
        throw new ConnectorError('auth', 'x: no refresh token; reconnect the account');
      const refreshToken = tokens.refreshToken;
      // X answers 400 invalid_request when a refresh token was revoked, used already or expired.
      return refusedRefreshIsAuth(
        () => token({ grant_type: 'refresh_token', refresh_token: refreshToken }, tokens),
        (refused) => `x: the refresh token was refused; reconnect the account (${refused.message})`,
      );
    },

    async publish(context: CallContext, request: PublishRequest): Promise<PublishOutcome> {
      const mediaIds = request.media ? await uploadMedia(context, request.media) : [];
      const firstId = await createTweet(
        context,
        firstTweetBody(request.contentText, mediaIds, request.platformPayload),
      );
      const replies = request.platformPayload?.thread ?? [];
      let previous = firstId;
      for (const [index, text] of replies.entries()) {
        try {
          previous = await createTweet(context, { text, reply: { in_reply_to_tweet_id: previous } });
        } catch (error) {
          // The first tweet exists, so neither `permanent` (the post would read failed while live) nor a
          // retry (a second copy) fits. `unknown_outcome` is the kind the pipeline never retries blindly:
          // its status check finds the first tweet by its text and records it as published, and this
          // message, kept as the attempt's error, says which replies are missing.
          const cause = error instanceof Error ? error.message : String(error);
          throw new ConnectorError(
            'unknown_outcome',
            `x: thread partly published: first tweet ${firstId} (${tweetUrl(context.account, firstId)}) and ` +
              `${index} of ${replies.length} replies are posted (last ${previous}); reply ${index + 1} failed: ${cause}`,
            {
              platformCode: 'thread_incomplete',
              ...(isConnectorError(error) && error.details.status ? { status: error.details.status } : {}),
            },
          );
        }
      }
      return { kind: 'published', externalId: firstId, url: tweetUrl(context.account, firstId) };
    },

    async checkStatus(context: CallContext, query: StatusQuery): Promise<StatusCheck> {
      const wanted = comparableText(query.contentText);
      let paginationToken: string | undefined;
      // A few pages cover any account's tweets since one attempt started.
      for (let page = 0; page < 5; page += 1) {
        const params = new URLSearchParams({
          start_time: xTime(query.attemptStartedAt),
          max_results: '100',
          'tweet.fields': 'created_at',
          exclude: 'retweets',
        });
        if (paginationToken) params.set('pagination_token', paginationToken);
        const response = await call<{
          data?: Array<{ id: string; text: string }>;
          meta?: { next_token?: string };
        }>({
          url: `${apiBase}/2/users/${encodeURIComponent(context.account.accountExternalId)}/tweets?${params.toString()}`,
          headers: bearer(context.tokens),
          effect: 'read',
          ...(context.signal ? { signal: context.signal } : {}),
        });
        const found = response.body.data?.find((tweet) => comparableText(tweet.text) === wanted);
        if (found)
          return { kind: 'published', externalId: found.id, url: tweetUrl(context.account, found.id) };
        paginationToken = response.body.meta?.next_token;
        if (!paginationToken) break;
      }
      return { kind: 'not_found' };
    },

    async delete(context: CallContext, externalId: string) {
      const response = await call<{ data?: { deleted?: boolean } }>(
        {
          method: 'DELETE',
          url: `${apiBase}/2/tweets/${encodeURIComponent(externalId)}`,
          headers: bearer(context.tokens),
          // Deleting twice deletes nothing more.
          effect: 'read',
          ...(context.signal ? { signal: context.signal } : {}),
        },
        [404],
      );
      if (response.status === 404) return { kind: 'not_found' as const };
      return { kind: 'deleted' as const };
    },

    // X automation's repost: POST /2/users/:id/retweets. X ignores a repeated retweet, so trying again is safe, but
    // a lost answer may still have reposted (`create`: unknown_outcome, which the automation counts against its
    // caps). A repost of a post the account reposted before undoes that one first
    // (DELETE /2/users/:id/retweets/:source_tweet_id), so the new one shows again at the top of timelines.
    async repost(context: CallContext, request: RepostRequest): Promise<RepostOutcome> {
      type RetweetBody = { data?: { retweeted?: boolean }; errors?: XTweetMetricsBody['errors'] };
      const gone = (b: RetweetBody) => !b.data && tweetNotFound({ errors: b.errors ?? [] });
      const user = encodeURIComponent(context.account.accountExternalId);
      const signal = context.signal ? { signal: context.signal } : {};
      if (request.undoFirst) {
        const undone = await call<RetweetBody>(
          {
            method: 'DELETE',
            url: `${apiBase}/2/users/${user}/retweets/${encodeURIComponent(request.externalId)}`,
            headers: bearer(context.tokens),
            effect: 'read',
            ...signal,
          },
          [404],
        );
        const undoneBody = undone.body && typeof undone.body === 'object' ? undone.body : {};
        if (undone.status === 404 || gone(undoneBody)) return { kind: 'not_found' };
      }
      const response = await call<RetweetBody>(
        {
          method: 'POST',
          url: `${apiBase}/2/users/${user}/retweets`,
          headers: bearer(context.tokens),
          body: { tweet_id: request.externalId },
          effect: 'create',
          ...signal,
        },
        [404],
      );
      const body = response.body && typeof response.body === 'object' ? response.body : {};
      if (response.status === 404 || gone(body)) return { kind: 'not_found' };
      if (body.data?.retweeted !== true)
        throw new ConnectorError(
          'permanent',
          `x: ${xErrorMessage(body, response.status)} (the retweet was not confirmed)`,
          { status: response.status },
        );
      return { kind: 'reposted' };
    },

    async accountInfo(context: CallContext): Promise<AccountProfile> {
      return me(context.tokens, context.signal);
    },

    async fetchMetrics(context: CallContext, request: MetricsRequest): Promise<MetricsFetch> {
      const read = async (fields: string) =>
        call<XTweetMetricsBody>(
          {
            url: `${apiBase}/2/tweets/${encodeURIComponent(request.externalId)}?tweet.fields=${fields}`,
            headers: bearer(context.tokens),
            effect: 'read',
            ...(context.signal ? { signal: context.signal } : {}),
          },
          [404],
        );
      const ageMs = now().getTime() - Date.parse(request.publishedAt);
      let response: PlatformResponse<XTweetMetricsBody>;
      if (ageMs < nonPublicMetricsDays * 86_400_000) {
        try {
          response = await read('public_metrics,non_public_metrics');
        } catch (error) {
          // The app may not read non-public metrics (or X no longer serves them): the public ones still count.
          if (!isConnectorError(error) || error.kind !== 'permanent') throw error;
          response = await read('public_metrics');
        }
      } else response = await read('public_metrics');
      const body = response.body && typeof response.body === 'object' ? response.body : {};
      if (response.status === 404 || tweetNotFound(body)) return { kind: 'not_found' };
      const tweet = body.data;
      if (!tweet)
        throw new ConnectorError(
          'retryable',
          `x: ${xErrorMessage(body, response.status)} (the tweet's metrics were not returned)`,
        );
      return { kind: 'metrics', metrics: xMetrics(tweet) };
    },

    // GET /2/tweets?ids=… (up to 100): the posts younger than 30 days with their non-public metrics, the older
    // ones with the public ones; each id X names in `errors` is gone or failed on its own.
    async fetchMetricsBatch(context: CallContext, requests: readonly MetricsRequest[]) {
      const read = async (ids: readonly string[], fields: string) => {
        const query = new URLSearchParams({ ids: ids.join(','), 'tweet.fields': fields });
        const response = await call<XTweetsMetricsBody>({
          url: `${apiBase}/2/tweets?${query.toString()}`,
          headers: bearer(context.tokens),
          effect: 'read',
          ...(context.signal ? { signal: context.signal } : {}),
        });
        return response.body && typeof response.body === 'object' ? response.body : {};
      };
      const answers = new Map<string, MetricsBatchAnswer>();
      const take = (body: XTweetsMetricsBody) => {
        for (const tweet of body.data ?? [])
          answers.set(tweet.id, { kind: 'metrics', metrics: xMetrics(tweet) });
        for (const error of body.errors ?? []) {
          const id = error.resource_id ?? error.value;
          if (!id || answers.has(id)) continue;
          answers.set(
            id,
            isNotFoundError(error)
              ? { kind: 'not_found' }
              : {
                  kind: 'error',
                  message: `x: ${error.detail ?? error.title ?? 'the tweet was not returned'}`,
                },
          );
        }
      };
      const cutoff = now().getTime() - nonPublicMetricsDays * 86_400_000;
      const ids = (recent: boolean) => [
        ...new Set(
          requests.filter((r) => Date.parse(r.publishedAt) > cutoff === recent).map((r) => r.externalId),
        ),
      ];
      for (let i = 0, recent = ids(true); i < recent.length; i += tweetsPerLookup) {
        const chunk = recent.slice(i, i + tweetsPerLookup);
        try {
          take(await read(chunk, 'public_metrics,non_public_metrics'));
        } catch (error) {
          // The app may not read non-public metrics (or X no longer serves them): the public ones still count.
          if (!isConnectorError(error) || error.kind !== 'permanent') throw error;
          take(await read(chunk, 'public_metrics'));
        }
      }
      for (let i = 0, older = ids(false); i < older.length; i += tweetsPerLookup)
        take(await read(older.slice(i, i + tweetsPerLookup), 'public_metrics'));
      return requests.map(
        (r) =>
          answers.get(r.externalId) ?? {
            kind: 'error' as const,
            message: 'x: the tweet was not in the answer',
          },
      );
    },

    // GET /2/users/me with the user's public metrics (users.read): followers, following and tweets.
    async accountStats(context: CallContext): Promise<AccountStats> {
      const response = await call<{
        data?: {
          public_metrics?: { followers_count?: number; following_count?: number; tweet_count?: number };
        };
      }>({
        url: `${apiBase}/2/users/me?user.fields=public_metrics`,
        headers: bearer(context.tokens),
        effect: 'read',
        ...(context.signal ? { signal: context.signal } : {}),
      });
      const metrics = response.body.data?.public_metrics;
      if (typeof metrics?.followers_count !== 'number')
        throw new ConnectorError('retryable', "x: the account's public metrics were not returned");
      return {
        followers: metrics.followers_count,
        following: metrics.following_count ?? null,
        posts: metrics.tweet_count ?? null,
      };
    },
  };
}
