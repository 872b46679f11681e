// Live TikTok connector: Login Kit v2 with PKCE, the user and creator info, and the Content Posting API's
// direct posts (videos by chunked upload or URL pull, photo posts by URL) with their publish-status polls, and
// videos' counts (Display API video query, 20 at a time) and the account's follower counts.
import {
  ConnectorError,
  metricsReading,
  type AccountProfile,
  type AccountStats,
  type AuthorizationCallback,
  type AuthorizationRequest,
  type CallContext,
  type MediaFile,
  type MetricsFetch,
  type PlatformConnector,
  type PublishOutcome,
  type PublishRequest,
  type StatusCheck,
  type TikTokCreatorInfo,
  type TokenSet,
} from '../port.js';
import {
  platformCall,
  retryAfterMs,
  type LiveConnectorOptions,
  type PlatformRequest,
  type PlatformResponse,
} from '../http.js';
import {
  authorizationUrl,
  callbackCode,
  grantedTokenBody,
  missingSettings,
  pkce,
  refreshTokenOf,
  refusedGrantKind,
  requireSettings,
  secondsFrom,
  tokenEndpointRequest,
  tokenSetFrom,
  type OAuth2TokenBody,
} from '../oauth2.js';

export interface TikTokConnectorConfig extends LiveConnectorOptions {
  /** TIKTOK_CLIENT_KEY / TIKTOK_CLIENT_SECRET of a TikTok app with Login Kit and the Content Posting API. */
  clientKey?: string;
  clientSecret?: string;
  authorizeUrl?: string;
  /** Host of the OAuth token endpoint and of the Content Posting API. */
  apiBaseUrl?: string;
  /**
   * How videos reach TikTok: `FILE_UPLOAD` (default) sends the bytes; `PULL_FROM_URL` lets TikTok fetch the
   * media URL, which only works when our media domain is verified with TikTok. Photos are always pulled.
   */
  videoSource?: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  /** Chunk size of video uploads; TikTok takes 5–64 MB chunks (smaller only in tests). */
  chunkBytes?: number;
  /** Sending the video's bytes takes longer than an ordinary call. */
  uploadTimeoutMs?: number;
}

export const tiktokScopes = ['user.info.basic', 'video.publish', 'video.upload'];

interface TikTokVideoCounts {
  id?: string;
  like_count?: number;
  comment_count?: number;
  share_count?: number;
  view_count?: number;
}

/** Video ids one /v2/video/query/ takes. */
const videosPerQuery = 20;

/** A video's counts in the port's terms: shares as reposts, views as impressions. */
function videoMetrics(video: TikTokVideoCounts) {
  return metricsReading({
    likes: video.like_count ?? 0,
    reposts: video.share_count ?? 0,
    replies: video.comment_count ?? 0,
    impressions: video.view_count ?? null,
  });
}

const defaults = {
  authorizeUrl: 'https://www.tiktok.com/v2/auth/authorize/',
  apiBaseUrl: 'https://open.tiktokapis.com',
  chunkBytes: 10 * 1024 * 1024,
  uploadTimeoutMs: 600_000,
};

const videoTitleMax = 2_200;
const photoTitleMax = 90;
const photoDescriptionMax = 4_000;
/** TikTok processes a post within seconds to a few minutes. */
const statusPollMs = 10_000;
/** Most open first: posting to fewer people than the creator allows is the safer fallback. */
const privacyPreference = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];

interface TikTokEnvelope<T> {
  data?: T;
  error?: { code?: string; message?: string; log_id?: string };
}

interface TikTokTokenBody extends OAuth2TokenBody {
  open_id?: string;
  refresh_expires_in?: number;
}

interface CreatorInfoData {
  creator_avatar_url?: string;
  creator_username?: string;
  creator_nickname?: string;
  privacy_level_options?: string[];
  comment_disabled?: boolean;
  duet_disabled?: boolean;
  stitch_disabled?: boolean;
  max_video_post_duration_sec?: number;
}

interface StatusData {
  status?: string;
  fail_reason?: string;
  /** Spelled so in TikTok's API. */
  publicaly_available_post_id?: Array<string | number>;
  publicly_available_post_id?: Array<string | number>;
}

/** Creator states in which TikTok refuses direct posts for now; creator info reports them as not enabled. */
const postingBlocked = new Set([
  'spam_risk_too_many_posts',
  'spam_risk_user_banned_from_posting',
  'spam_risk_too_many_pending_share',
  'reached_active_user_cap',
]);

const authCodes = new Set(['access_token_invalid', 'scope_not_authorized', 'scope_permission_missed']);

/** TikTok's `{error:{code,message,log_id}}` envelope (sent with 200 and with 4xx answers) as a ConnectorError. */
function tiktokError(response: PlatformResponse, now: Date): ConnectorError {
  const body = (
    response.body && typeof response.body === 'object' ? response.body : {}
  ) as TikTokEnvelope<unknown>;
  const code = body.error?.code ?? `http_${response.status}`;
  const text = body.error?.message || `HTTP ${response.status}`;
  const message = `tiktok: ${text} (${code}${body.error?.log_id ? `, log id ${body.error.log_id}` : ''})`;
  const details = { status: response.status, platformCode: code };
  if (code === 'rate_limit_exceeded' || response.status === 429) {
    const wait = retryAfterMs(response.headers, now.getTime());
    return new ConnectorError('rate_limited', message, {
      ...details,
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    });
  }
  if (authCodes.has(code) || response.status === 401) return new ConnectorError('auth', message, details);
  return new ConnectorError('permanent', message, details);
}

/**
 * Post ids are 64-bit integers, which JSON.parse would round; quote them before parsing so the URL names the
 * right post.
 */
function quotingPostIds(baseFetch: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await baseFetch(input, init);
    const text = await response.text();
    const quoted = text.replace(
      /("publicl?a?l?y_available_post_id"\s*:\s*\[)([^\]]*)\]/g,
      (_m, head: string, ids: string) => `${head}${ids.replace(/-?\d+/g, (id) => `"${id}"`)}]`,
    );
    return new Response(quoted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

export function createTikTokConnector(config: TikTokConnectorConfig = {}): PlatformConnector {
  const authorizeUrl = config.authorizeUrl ?? defaults.authorizeUrl;
  const api = config.apiBaseUrl ?? defaults.apiBaseUrl;
  const chunkBytes = config.chunkBytes ?? defaults.chunkBytes;
  const now = () => config.now?.() ?? new Date();

  const settings = [
    { env: 'TIKTOK_CLIENT_KEY', value: config.clientKey },
    { env: 'TIKTOK_CLIENT_SECRET', value: config.clientSecret },
  ] as const;

  function client(): { clientKey: string; clientSecret: string } {
    const [clientKey, clientSecret] = requireSettings('tiktok', settings);
    return { clientKey, clientSecret };
  }

  /** One Content Posting API call; its envelope says whether it worked, whatever the HTTP status. */
  async function call<T>(
    request: PlatformRequest & { tolerate?: (code: string) => boolean },
    options: LiveConnectorOptions = config,
  ): Promise<{ data: T; code: string }> {
    const passStatuses = [400, 401, 403, 404, 409, 413, 422, 429];
    const response = await platformCall<TikTokEnvelope<T>>('tiktok', { ...request, passStatuses }, options);
    const code = response.body?.error?.code ?? (response.status < 400 ? 'ok' : `http_${response.status}`);
    if ((code === 'ok' && response.status < 400) || request.tolerate?.(code))
      return { data: (response.body?.data ?? {}) as T, code };
    throw tiktokError(response, now());
  }

  const json = (tokens: TokenSet) => ({
    authorization: `Bearer ${tokens.accessToken}`,
    'content-type': 'application/json; charset=UTF-8',
  });

  async function tokenRequest(
    form: Record<string, string>,
    grant: 'code' | 'refresh',
  ): Promise<TikTokTokenBody> {
    const response = await platformCall<TikTokTokenBody>(
      'tiktok',
      {
        ...tokenEndpointRequest(`${api}/v2/oauth/token/`, form, { 'cache-control': 'no-cache' }),
        passStatuses: [400, 401, 403],
      },
      config,
    );
    const granted = grantedTokenBody(response);
    if (granted) return granted;
    const body: TikTokTokenBody = response.body && typeof response.body === 'object' ? response.body : {};
    const code = body.error ?? `http_${response.status}`;
    const message = `tiktok: ${body.error_description || 'the token request was refused'} (${code})`;
    // TikTok also answers a refresh token it no longer knows with 401.
    const kind = grant === 'refresh' && response.status === 401 ? 'auth' : refusedGrantKind(grant, code);
    throw new ConnectorError(kind, message, { status: response.status, platformCode: code });
  }

  function tokenSet(body: TikTokTokenBody, previous: TokenSet | null): TokenSet {
    const at = now();
    const openId = body.open_id ?? previous?.extra?.openId;
    const { accessToken, refreshToken, expiresAt, scopes } = tokenSetFrom(body, previous, {
      now: at,
      defaultScopes: tiktokScopes,
    });
    return {
      accessToken,
      refreshToken,
      expiresAt,
      refreshTokenExpiresAt:
        secondsFrom(at, body.refresh_expires_in) ?? previous?.refreshTokenExpiresAt ?? null,
      scopes,
      ...(typeof openId === 'string' ? { extra: { ...previous?.extra, openId } } : {}),
    };
  }

  /** Creator info, and TikTok's code when it refuses direct posts for now (spam risk, daily caps). */
  async function queryCreatorInfo(
    tokens: TokenSet,
    signal?: AbortSignal,
  ): Promise<{ info: TikTokCreatorInfo; code: string }> {
    const { data, code } = await call<CreatorInfoData>({
      method: 'POST',
      url: `${api}/v2/post/publish/creator_info/query/`,
      headers: json(tokens),
      effect: 'read',
      tolerate: (c) => postingBlocked.has(c),
      ...(signal ? { signal } : {}),
    });
    const info: TikTokCreatorInfo = {
      creatorAvatarUrl: data.creator_avatar_url ?? null,
      creatorUsername: data.creator_username ?? null,
      creatorNickname: data.creator_nickname ?? null,
      privacyLevelOptions: data.privacy_level_options ?? [],
      commentDisabled: data.comment_disabled ?? false,
      duetDisabled: data.duet_disabled ?? false,
      stitchDisabled: data.stitch_disabled ?? false,
      maxVideoPostDurationSec: data.max_video_post_duration_sec ?? null,
      directPostEnabled: code === 'ok',
    };
    return { info, code };
  }

  async function creatorInfo(tokens: TokenSet, signal?: AbortSignal): Promise<TikTokCreatorInfo> {
    return (await queryCreatorInfo(tokens, signal)).info;
  }

  /** The Display API's video query: the counts of the videos TikTok still has among `ids` (at most 20). */
  async function queryVideos(context: CallContext, ids: readonly string[]): Promise<TikTokVideoCounts[]> {
    const { data, code } = await call<{ videos?: TikTokVideoCounts[] }>({
      method: 'POST',
      url: `${api}/v2/video/query/?fields=id,like_count,comment_count,share_count,view_count`,
      headers: json(context.tokens),
      body: { filters: { video_ids: [...ids] } },
      effect: 'read',
      // A missing scope is not a token TikTok refuses: refreshing would not help, reconnecting with it would.
      tolerate: (c) => c === 'scope_not_authorized',
      ...(context.signal ? { signal: context.signal } : {}),
    });
    if (code === 'scope_not_authorized')
      throw new ConnectorError(
        'permanent',
        'tiktok: reading video counts needs the video.list scope; reconnect the account to grant it',
        { platformCode: code },
      );
    return data.videos ?? [];
  }

  async function profile(tokens: TokenSet, signal?: AbortSignal): Promise<AccountProfile> {
    const { data } = await call<{
      user?: { open_id?: string; avatar_url?: string; display_name?: string };
    }>({
      url: `${api}/v2/user/info/?fields=open_id,union_id,avatar_url,display_name`,
      headers: { authorization: `Bearer ${tokens.accessToken}` },
      effect: 'read',
      ...(signal ? { signal } : {}),
    });
    const openId = data.user?.open_id ?? tokens.extra?.openId;
    if (typeof openId !== 'string')
      throw new ConnectorError('permanent', 'tiktok: the user info has no open_id');
    // The username needs user.info.profile with Login Kit, but creator info (video.publish) carries it.
    const creator = await creatorInfo(tokens, signal);
    const username = creator.creatorUsername;
    return {
      accountExternalId: openId,
      accountName: data.user?.display_name ?? creator.creatorNickname,
      accountHandle: username,
      profileImageUrl: data.user?.avatar_url ?? creator.creatorAvatarUrl,
      profileUrl: username ? `https://www.tiktok.com/@${username}` : null,
      accountBio: null,
    };
  }

  function privacyLevel(info: TikTokCreatorInfo): string {
    const level =
      privacyPreference.find((p) => info.privacyLevelOptions.includes(p)) ?? info.privacyLevelOptions[0];
    if (!level)
      throw new ConnectorError('permanent', 'tiktok: the creator has no privacy level to post with');
    return level;
  }

  /** Sends the file in TikTok's chunks; the last chunk holds the remainder, as TikTok asks. */
  async function uploadChunks(context: CallContext, uploadUrl: string, file: MediaFile) {
    const { size, contentType } = file;
    const count = size <= chunkBytes ? 1 : Math.floor(size / chunkBytes);
    for (let index = 0; index < count; index++) {
      const first = index * chunkBytes;
      const last = index === count - 1 ? size - 1 : first + chunkBytes - 1;
      // Read from the spooled file as it is sent: one chunk in memory at a time.
      const chunk = await file.read(first, last + 1 - first);
      await platformCall(
        'tiktok',
        {
          method: 'PUT',
          url: uploadUrl,
          headers: {
            'content-type': contentType,
            'content-range': `bytes ${first}-${last}/${size}`,
          },
          body: chunk,
          // The last chunk completes the upload, and with it the post.
          effect: index === count - 1 ? 'create' : 'read',
          ...(context.signal ? { signal: context.signal } : {}),
        },
        { ...config, timeoutMs: config.uploadTimeoutMs ?? defaults.uploadTimeoutMs },
      );
    }
  }

  async function publishVideo(
    context: CallContext,
    request: PublishRequest,
    media: Extract<PublishRequest['media'], { kind: 'video' }>,
    info: TikTokCreatorInfo,
  ): Promise<string> {
    const payload = request.platformPayload?.tiktok ?? {};
    if (info.maxVideoPostDurationSec !== null && media.durationSeconds > info.maxVideoPostDurationSec)
      throw new ConnectorError(
        'permanent',
        `tiktok: the video is ${Math.ceil(media.durationSeconds)} s long; this creator may post up to ${info.maxVideoPostDurationSec} s`,
        { platformCode: 'duration_check_failed' },
      );
    const postInfo = {
      title: truncate(payload.title ?? request.contentText, videoTitleMax),
      privacy_level: privacyLevel(info),
      disable_comment: info.commentDisabled,
      disable_duet: info.duetDisabled,
      disable_stitch: info.stitchDisabled,
      ...(payload.isAigc !== undefined ? { is_aigc: payload.isAigc } : {}),
    };
    const signal = context.signal ? { signal: context.signal } : {};
    if (config.videoSource === 'PULL_FROM_URL') {
      const { data } = await call<{ publish_id?: string }>({
        method: 'POST',
        url: `${api}/v2/post/publish/video/init/`,
        headers: json(context.tokens),
        body: { post_info: postInfo, source_info: { source: 'PULL_FROM_URL', video_url: media.url } },
        effect: 'create',
        ...signal,
      });
      return publishId(data.publish_id);
    }
    const file = await context.fetchMedia({
      url: media.url,
      contentType: media.contentType,
      assetId: media.assetId,
    });
    const size = file.size;
    const chunk = size <= chunkBytes ? size : chunkBytes;
    // Nothing is posted until the last chunk arrives, so a lost answer here can be tried again.
    const { data } = await call<{ publish_id?: string; upload_url?: string }>({
      method: 'POST',
      url: `${api}/v2/post/publish/video/init/`,
      headers: json(context.tokens),
      body: {
        post_info: postInfo,
        source_info: {
          source: 'FILE_UPLOAD',
          video_size: size,
          chunk_size: chunk,
          total_chunk_count: size <= chunkBytes ? 1 : Math.floor(size / chunkBytes),
        },
      },
      effect: 'read',
      ...signal,
    });
    const id = publishId(data.publish_id);
    if (!data.upload_url)
      throw new ConnectorError('retryable', 'tiktok: the upload was initialised without an upload URL');
    await uploadChunks(context, data.upload_url, file);
    return id;
  }

  async function publishPhotos(
    context: CallContext,
    request: PublishRequest,
    media: Extract<PublishRequest['media'], { kind: 'images' }>,
    info: TikTokCreatorInfo,
  ): Promise<string> {
    const payload = request.platformPayload?.tiktok ?? {};
    const cover = payload.photoCoverIndex ?? 0;
    if (cover < 0 || cover >= media.images.length)
      throw new ConnectorError(
        'permanent',
        `tiktok: photoCoverIndex ${cover} is not one of the ${media.images.length} images`,
      );
    const { data } = await call<{ publish_id?: string }>({
      method: 'POST',
      url: `${api}/v2/post/publish/content/init/`,
      headers: json(context.tokens),
      body: {
        post_info: {
          title: truncate(payload.title ?? '', photoTitleMax),
          description: truncate(request.contentText, photoDescriptionMax),
          privacy_level: privacyLevel(info),
          disable_comment: info.commentDisabled,
          auto_add_music: true,
          ...(payload.isAigc !== undefined ? { is_aigc: payload.isAigc } : {}),
        },
        source_info: {
          source: 'PULL_FROM_URL',
          photo_cover_index: cover,
          photo_images: media.images.map((image) => image.url),
        },
        post_mode: 'DIRECT_POST',
        media_type: 'PHOTO',
      },
      effect: 'create',
      ...(context.signal ? { signal: context.signal } : {}),
    });
    return publishId(data.publish_id);
  }

  function publishId(id: string | undefined): string {
    if (!id)
      throw new ConnectorError('unknown_outcome', 'tiktok: the post was accepted without a publish_id');
    return id;
  }

  return {
    platform: 'tiktok',
    mode: 'live',
    supportsRefresh: true,
    missingConfiguration: () => missingSettings(settings),

    async startAuthorization(request: AuthorizationRequest) {
      const { clientKey } = client();
      return {
        authorizationUrl: authorizationUrl(authorizeUrl, {
          client_key: clientKey,
          scope: tiktokScopes.join(','),
          response_type: 'code',
          redirect_uri: request.callbackUrl,
          state: request.state,
          ...pkce(request.codeChallenge),
        }),
      };
    },

    async completeAuthorization(callback: AuthorizationCallback) {
      const { clientKey, clientSecret } = client();
      const code = callbackCode('tiktok', callback.params);
      const body = await tokenRequest(
        {
          client_key: clientKey,
          client_secret: clientSecret,
          code,
          grant_type: 'authorization_code',
          redirect_uri: callback.callbackUrl,
          code_verifier: callback.codeVerifier,
        },
        'code',
      );
      const tokens = tokenSet(body, null);
      return { kind: 'accounts', accounts: [{ profile: await profile(tokens), tokens }] };
    },

    async refresh(_account, tokens) {
      const { clientKey, clientSecret } = client();
      const body = await tokenRequest(
        {
          client_key: clientKey,
          client_secret: clientSecret,
          grant_type: 'refresh_token',
          refresh_token: refreshTokenOf('tiktok', tokens),
        },
        'refresh',
      );
      return tokenSet(body, tokens);
    },

    async publish(context, request): Promise<PublishOutcome> {
      const media = request.media;
      if (media?.kind !== 'video' && media?.kind !== 'images')
        throw new ConnectorError('permanent', 'tiktok: a TikTok post needs a video or photos', {
          platformCode: 'media_required',
        });
      // TikTok asks for fresh creator info before each post: options and limits change.
      const { info, code } = await queryCreatorInfo(context.tokens, context.signal);
      if (!info.directPostEnabled)
        throw new ConnectorError(
          'permanent',
          `tiktok: TikTok does not let this creator post right now (${code})`,
          {
            platformCode: code,
          },
        );
      const reference =
        media.kind === 'video'
          ? await publishVideo(context, request, media, info)
          : await publishPhotos(context, request, media, info);
      return { kind: 'pending', reference, checkAfterMs: statusPollMs };
    },

    async checkStatus(context, query): Promise<StatusCheck> {
      // Without a publish_id TikTok offers no lookup (listing videos needs a scope we do not ask for).
      if (!query.reference) return { kind: 'unsupported' };
      const { data } = await call<StatusData>(
        {
          method: 'POST',
          url: `${api}/v2/post/publish/status/fetch/`,
          headers: json(context.tokens),
          body: { publish_id: query.reference },
          effect: 'read',
          ...(context.signal ? { signal: context.signal } : {}),
        },
        { ...config, fetch: quotingPostIds(config.fetch ?? fetch) },
      );
      if (data.status === 'FAILED')
        return {
          kind: 'failed',
          message: `TikTok could not publish the post (${data.fail_reason || 'no reason given'})`,
        };
      if (data.status !== 'PUBLISH_COMPLETE') return { kind: 'pending', checkAfterMs: statusPollMs };
      const handle =
        context.account.accountHandle ?? (await creatorInfo(context.tokens, context.signal)).creatorUsername;
      const profileUrl = `https://www.tiktok.com/@${handle ?? ''}`;
      const postId = (data.publicaly_available_post_id ?? data.publicly_available_post_id)?.[0];
      // A private or still-moderated post has no public id yet; the publish id and the profile stand in.
      return postId !== undefined
        ? { kind: 'published', externalId: String(postId), url: `${profileUrl}/video/${String(postId)}` }
        : { kind: 'published', externalId: query.reference, url: profileUrl };
    },

    async delete() {
      throw new ConnectorError(
        'permanent',
        'tiktok: the TikTok API does not offer deleting posts; delete it in the TikTok app',
        {
          platformCode: 'delete_not_supported',
        },
      );
    },

    async fetchMetrics(context, request): Promise<MetricsFetch> {
      // Deleted videos (and a publish id standing in for a private post's) are not among the answers.
      const [video] = await queryVideos(context, [request.externalId]);
      if (!video) return { kind: 'not_found' };
      return { kind: 'metrics', metrics: videoMetrics(video) };
    },

    // /v2/video/query/ takes up to 20 video ids; videos TikTok no longer has are not among the answers.
    async fetchMetricsBatch(context, requests) {
      const found = new Map<string, MetricsFetch>();
      const ids = [...new Set(requests.map((r) => r.externalId))];
      for (let i = 0; i < ids.length; i += videosPerQuery) {
        const videos = await queryVideos(context, ids.slice(i, i + videosPerQuery));
        for (const video of videos)
          if (video.id) found.set(video.id, { kind: 'metrics', metrics: videoMetrics(video) });
      }
      return requests.map((r) => found.get(r.externalId) ?? { kind: 'not_found' as const });
    },

    // /v2/user/info/ with the stats fields (user.info.stats): followers, following and videos.
    async accountStats(context): Promise<AccountStats> {
      const { data, code } = await call<{
        user?: { follower_count?: number; following_count?: number; video_count?: number };
      }>({
        url: `${api}/v2/user/info/?fields=open_id,follower_count,following_count,video_count`,
        headers: { authorization: `Bearer ${context.tokens.accessToken}` },
        effect: 'read',
        tolerate: (c) => c === 'scope_not_authorized',
        ...(context.signal ? { signal: context.signal } : {}),
      });
      if (code === 'scope_not_authorized')
        throw new ConnectorError(
          'permanent',
          'tiktok: reading follower counts needs the user.info.stats scope; reconnect the account to grant it',
          { platformCode: 'needs_permission' },
        );
      const user = data.user;
      if (typeof user?.follower_count !== 'number')
        throw new ConnectorError('retryable', 'tiktok: follower_count was not returned');
      return {
        followers: user.follower_count,
        following: user.following_count ?? null,
        posts: user.video_count ?? null,
      };
    },

    async accountInfo(context) {
      return profile(context.tokens, context.signal);
    },

    async creatorInfo(context) {
      return creatorInfo(context.tokens, context.signal);
    },
  };
}
