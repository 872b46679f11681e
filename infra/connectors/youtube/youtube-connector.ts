// Live YouTube connector: Google OAuth 2.0 with PKCE, the authorized user's channel, resumable video uploads
// through the YouTube Data API v3, processing status, finding an unconfirmed upload again, deletion, videos'
// statistics (50 at a time) and the channel's subscriber count.
import {
  ConnectorError,
  metricsReading,
  type AccountProfile,
  type AccountStats,
  type AuthorizationCallback,
  type AuthorizationRequest,
  type CallContext,
  type MetricsFetch,
  type PlatformConnector,
  type PublishRequest,
  type StatusCheck,
  type StatusQuery,
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
  missingSettings,
  pkce,
  refreshTokenOf,
  requireSettings,
  secondsFrom,
  tokenEndpointRequest,
  tokenSetFrom,
  type OAuth2TokenBody,
} from '../oauth2.js';

export interface YouTubeConnectorConfig extends LiveConnectorOptions {
  /** GOOGLE_CLIENT_ID / GOOGLE_CLIENT_SECRET of a Google Cloud OAuth client with the YouTube Data API enabled. */
  clientId?: string;
  clientSecret?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  /** Host of the Data API and of its upload endpoint. */
  apiBaseUrl?: string;
  /** Sending the video's bytes takes longer than an ordinary call. */
  uploadTimeoutMs?: number;
}

export const youtubeScopes = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
];

const defaults = {
  authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  apiBaseUrl: 'https://www.googleapis.com',
  uploadTimeoutMs: 600_000,
};

const titleMax = 100;
/** Processing a video takes minutes; polling sooner only spends quota. */
const processingPollMs = 30_000;
/** Uploads found by a status check must be this recent (the platform's clock may run behind ours). */
const searchSlackMs = 5 * 60_000;

interface GoogleErrorBody {
  error?: string | { code?: number; message?: string; errors?: Array<{ reason?: string }> };
  error_description?: string;
}

interface GoogleTokenBody extends OAuth2TokenBody {
  refresh_token_expires_in?: number;
}

interface ChannelBody {
  items?: Array<{
    id: string;
    snippet?: {
      title?: string;
      description?: string;
      customUrl?: string;
      thumbnails?: Record<string, { url?: string } | undefined>;
    };
    contentDetails?: { relatedPlaylists?: { uploads?: string } };
  }>;
}

interface VideoResource {
  id?: string;
  status?: { uploadStatus?: string; failureReason?: string; rejectionReason?: string };
  processingDetails?: { processingStatus?: string; processingProgress?: { timeLeftMs?: string } };
}

interface PlaylistItemsBody {
  items?: Array<{
    snippet?: {
      title?: string;
      description?: string;
      publishedAt?: string;
      resourceId?: { videoId?: string };
    };
  }>;
}

/** Counts arrive as strings of digits (64-bit values); a count the owner hides is absent. */
interface VideoStatistics {
  viewCount?: string;
  likeCount?: string;
  commentCount?: string;
}

interface VideosStatisticsBody {
  items?: Array<{ id?: string; statistics?: VideoStatistics }>;
}

/** Ids one videos.list call takes. */
const videosPerList = 50;

/** A video's statistics in the port's terms: views stand in for impressions. */
function videoMetrics(stats: VideoStatistics) {
  return metricsReading({
    likes: countOf(stats.likeCount) ?? 0,
    replies: countOf(stats.commentCount) ?? 0,
    impressions: countOf(stats.viewCount),
  });
}

function countOf(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Google resets the Data API's daily quota at midnight Pacific time. */
export function msUntilPacificMidnight(now: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    hourCycle: 'h23',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(now);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const elapsed = (part('hour') * 3600 + part('minute') * 60 + part('second')) * 1000 + now.getMilliseconds();
  return 86_400_000 - elapsed;
}

/** Google's error body (`{error:{code,message,errors[{reason}]}}` or OAuth's `{error, error_description}`) as a ConnectorError. */
function googleError(
  response: PlatformResponse,
  now: Date,
  oauth: 'code' | 'refresh' | null,
): ConnectorError {
  const body = (response.body && typeof response.body === 'object' ? response.body : {}) as GoogleErrorBody;
  const status = response.status;
  const error = body.error;
  const reason = typeof error === 'object' ? error.errors?.[0]?.reason : error;
  const text =
    typeof error === 'object'
      ? (error.message ?? `HTTP ${status}`)
      : (body.error_description ?? error ?? `HTTP ${status}`);
  const message = `youtube: ${text} (HTTP ${status}${reason ? `, ${reason}` : ''})`;
  const details = { status, ...(reason ? { platformCode: reason } : {}) };
  if (reason === 'quotaExceeded' || reason === 'dailyLimitExceeded' || reason === 'uploadLimitExceeded')
    return new ConnectorError('rate_limited', message, {
      ...details,
      retryAfterMs: msUntilPacificMidnight(now),
    });
  if (reason === 'rateLimitExceeded' || reason === 'userRateLimitExceeded' || status === 429) {
    const wait = retryAfterMs(response.headers, now.getTime());
    return new ConnectorError('rate_limited', message, {
      ...details,
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    });
  }
  if (reason === 'authError' || reason === 'insufficientPermissions' || status === 401)
    return new ConnectorError('auth', message, details);
  // An expired or reused code is the user's to retry; a refused refresh token means reconnecting.
  if (reason === 'invalid_grant')
    return new ConnectorError(oauth === 'code' ? 'permanent' : 'auth', message, details);
  return new ConnectorError('permanent', message, details);
}

function firstString(...values: Array<string | undefined | null>): string | null {
  for (const value of values) if (typeof value === 'string' && value) return value;
  return null;
}

function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

/** The video title: `youtube.title`, else the group title (content rules keep it within 100 characters). */
function videoTitle(payloadTitle: string | undefined, groupTitle: string | undefined): string {
  return truncate((payloadTitle ?? groupTitle ?? '').trim(), titleMax);
}

export function createYouTubeConnector(config: YouTubeConnectorConfig = {}): PlatformConnector {
  const authorizeUrl = config.authorizeUrl ?? defaults.authorizeUrl;
  const tokenUrl = config.tokenUrl ?? defaults.tokenUrl;
  const api = config.apiBaseUrl ?? defaults.apiBaseUrl;
  const now = () => config.now?.() ?? new Date();

  const settings = [
    { env: 'GOOGLE_CLIENT_ID', value: config.clientId },
    { env: 'GOOGLE_CLIENT_SECRET', value: config.clientSecret },
  ] as const;

  function client(): { clientId: string; clientSecret: string } {
    const [clientId, clientSecret] = requireSettings('youtube', settings);
    return { clientId, clientSecret };
  }

  /** One Data API or OAuth call; Google's 4xx bodies are read here, 5xx and lost answers by platformCall. */
  async function call<T>(
    request: PlatformRequest & { allow?: number[]; oauth?: 'code' | 'refresh' },
    options: LiveConnectorOptions = config,
  ): Promise<PlatformResponse<T>> {
    const passStatuses = [400, 401, 403, 404, 409, 412, 429];
    const response = await platformCall<T>('youtube', { ...request, passStatuses }, options);
    if (response.status < 400 || request.allow?.includes(response.status)) return response;
    throw googleError(response, now(), request.oauth ?? null);
  }

  const bearer = (tokens: TokenSet) => ({ authorization: `Bearer ${tokens.accessToken}` });

  async function tokenRequest(
    form: Record<string, string>,
    oauth: 'code' | 'refresh',
  ): Promise<GoogleTokenBody> {
    const { body } = await call<GoogleTokenBody>({ ...tokenEndpointRequest(tokenUrl, form), oauth });
    if (typeof body !== 'object' || typeof body.access_token !== 'string')
      throw new ConnectorError('permanent', 'youtube: the token answer has no access token');
    return body;
  }

  function tokenSet(body: GoogleTokenBody, previous: TokenSet | null): TokenSet {
    const at = now();
    // Google sends a refresh token with the first grant only; a refresh answer keeps the one we have.
    const { accessToken, refreshToken, expiresAt, scopes } = tokenSetFrom(body, previous, {
      now: at,
      defaultScopes: youtubeScopes,
    });
    return {
      accessToken,
      refreshToken,
      expiresAt,
      refreshTokenExpiresAt:
        secondsFrom(at, body.refresh_token_expires_in) ?? previous?.refreshTokenExpiresAt ?? null,
      scopes,
    };
  }

  async function channel(tokens: TokenSet, signal?: AbortSignal): Promise<AccountProfile> {
    const { body } = await call<ChannelBody>({
      url: `${api}/youtube/v3/channels?part=snippet&mine=true`,
      headers: bearer(tokens),
      effect: 'read',
      ...(signal ? { signal } : {}),
    });
    const item = body.items?.[0];
    if (!item)
      throw new ConnectorError(
        'permanent',
        'youtube: this Google account has no YouTube channel; create one and connect again',
      );
    const snippet = item.snippet ?? {};
    const handle = snippet.customUrl ? snippet.customUrl.replace(/^@/, '') : null;
    const thumbnails = snippet.thumbnails ?? {};
    return {
      accountExternalId: item.id,
      accountName: snippet.title ?? null,
      accountHandle: handle,
      profileImageUrl: firstString(thumbnails.high?.url, thumbnails.medium?.url, thumbnails.default?.url),
      profileUrl: handle
        ? `https://www.youtube.com/@${handle}`
        : `https://www.youtube.com/channel/${item.id}`,
      accountBio: snippet.description || null,
    };
  }

  async function videoStatus(context: CallContext, videoId: string): Promise<StatusCheck> {
    const { body } = await call<{ items?: VideoResource[] }>({
      url: `${api}/youtube/v3/videos?part=status,processingDetails&id=${encodeURIComponent(videoId)}`,
      headers: bearer(context.tokens),
      effect: 'read',
      ...(context.signal ? { signal: context.signal } : {}),
    });
    const video = body.items?.[0];
    // The upload was accepted, so a missing video was deleted on YouTube: uploading again would undo that.
    if (!video) return { kind: 'failed', message: `YouTube no longer has video ${videoId}` };
    return statusOf(video, videoId);
  }

  function statusOf(video: VideoResource, videoId: string): StatusCheck {
    const uploadStatus = video.status?.uploadStatus;
    if (uploadStatus === 'processed')
      return { kind: 'published', externalId: videoId, url: `https://www.youtube.com/watch?v=${videoId}` };
    if (uploadStatus === 'failed')
      return {
        kind: 'failed',
        message: `YouTube could not process the video (${video.status?.failureReason ?? 'no reason given'})`,
      };
    if (uploadStatus === 'rejected')
      return {
        kind: 'failed',
        message: `YouTube rejected the video (${video.status?.rejectionReason ?? 'no reason given'})`,
      };
    if (uploadStatus === 'deleted')
      return { kind: 'failed', message: `YouTube no longer has video ${videoId}` };
    // `uploaded`: still processing; YouTube sometimes says how long it expects to take.
    const left = Number(video.processingDetails?.processingProgress?.timeLeftMs);
    const wait =
      Number.isFinite(left) && left > 0 ? Math.min(Math.max(left, 5_000), 300_000) : processingPollMs;
    return { kind: 'pending', checkAfterMs: wait };
  }

  /** Finds an upload whose answer was lost: the channel's recent uploads with this title (or description). */
  async function findUpload(context: CallContext, query: StatusQuery): Promise<string | null> {
    const headers = bearer(context.tokens);
    const signal = context.signal ? { signal: context.signal } : {};
    const { body: channels } = await call<ChannelBody>({
      url: `${api}/youtube/v3/channels?part=contentDetails&mine=true`,
      headers,
      effect: 'read',
      ...signal,
    });
    const uploads = channels.items?.[0]?.contentDetails?.relatedPlaylists?.uploads;
    if (!uploads) return null;
    const { body } = await call<PlaylistItemsBody>({
      url: `${api}/youtube/v3/playlistItems?part=snippet&maxResults=50&playlistId=${encodeURIComponent(uploads)}`,
      headers,
      effect: 'read',
      ...signal,
    });
    const title =
      query.platformPayload?.youtube?.title !== undefined || query.groupTitle !== undefined
        ? videoTitle(query.platformPayload?.youtube?.title, query.groupTitle)
        : null;
    const since = Date.parse(query.attemptStartedAt) - searchSlackMs;
    const match = (body.items ?? [])
      .map((item) => item.snippet ?? {})
      .filter((s) => Date.parse(s.publishedAt ?? '') >= since)
      .filter((s) => (title !== null ? s.title === title : s.description === query.contentText))
      .sort((a, b) => Date.parse(a.publishedAt ?? '') - Date.parse(b.publishedAt ?? ''))[0];
    return match?.resourceId?.videoId ?? null;
  }

  return {
    platform: 'youtube',
    mode: 'live',
    supportsRefresh: true,
    missingConfiguration: () => missingSettings(settings),

    async startAuthorization(request: AuthorizationRequest) {
      const { clientId } = client();
      return {
        authorizationUrl: authorizationUrl(authorizeUrl, {
          client_id: clientId,
          redirect_uri: request.callbackUrl,
          response_type: 'code',
          scope: youtubeScopes.join(' '),
          // Offline access with forced consent is what makes Google hand out a refresh token every time.
          access_type: 'offline',
          prompt: 'consent',
          include_granted_scopes: 'true',
          state: request.state,
          ...pkce(request.codeChallenge),
        }),
      };
    },

    async completeAuthorization(callback: AuthorizationCallback) {
      const { clientId, clientSecret } = client();
      const code = callbackCode('youtube', callback.params);
      const body = await tokenRequest(
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: callback.callbackUrl,
          client_id: clientId,
          client_secret: clientSecret,
          code_verifier: callback.codeVerifier,
        },
        'code',
      );
      const tokens = tokenSet(body, null);
      return { kind: 'accounts', accounts: [{ profile: await channel(tokens), tokens }] };
    },

    async refresh(_account, tokens) {
      const { clientId, clientSecret } = client();
      const body = await tokenRequest(
        {
          grant_type: 'refresh_token',
          refresh_token: refreshTokenOf('youtube', tokens),
          client_id: clientId,
          client_secret: clientSecret,
        },
        'refresh',
      );
      return tokenSet(body, tokens);
    },

    async publish(context, request: PublishRequest) {
      const media = request.media;
      if (media?.kind !== 'video')
        throw new ConnectorError('permanent', 'youtube: a YouTube post needs a video', {
          platformCode: 'media_required',
        });
      const payload = request.platformPayload?.youtube ?? {};
      const title = videoTitle(payload.title, request.groupTitle);
      if (!title) throw new ConnectorError('permanent', 'youtube: the video needs a title');
      const signal = context.signal ? { signal: context.signal } : {};
      const file = await context.fetchMedia({
        url: media.url,
        contentType: media.contentType,
        assetId: media.assetId,
      });
      // Opening a resumable session creates nothing on the channel, so it is safe to repeat.
      const session = await call({
        method: 'POST',
        url: `${api}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`,
        headers: {
          ...bearer(context.tokens),
          'content-type': 'application/json; charset=UTF-8',
          'x-upload-content-length': String(file.size),
          'x-upload-content-type': file.contentType,
        },
        body: {
          snippet: { title, description: request.contentText },
          status: {
            privacyStatus: payload.privacyStatus ?? 'public',
            selfDeclaredMadeForKids: payload.madeForKids ?? false,
          },
        },
        effect: 'read',
        ...signal,
      });
      const location = session.headers.get('location');
      if (!location) throw new ConnectorError('retryable', 'youtube: the upload session has no address');
      const { body: video } = await call<VideoResource>(
        {
          method: 'PUT',
          url: location,
          headers: { ...bearer(context.tokens), 'content-type': file.contentType },
          // Backed by the spooled file: sent with its length, streamed from disk, never whole in memory.
          body: await file.blob(),
          effect: 'create',
          ...signal,
        },
        { ...config, timeoutMs: config.uploadTimeoutMs ?? defaults.uploadTimeoutMs },
      );
      if (typeof video !== 'object' || !video.id)
        throw new ConnectorError('unknown_outcome', 'youtube: the upload was answered without a video id');
      const status = statusOf(video, video.id);
      if (status.kind === 'published') return status;
      if (status.kind === 'failed') throw new ConnectorError('permanent', `youtube: ${status.message}`);
      return { kind: 'pending', reference: video.id, checkAfterMs: processingPollMs };
    },

    async checkStatus(context, query) {
      const videoId = query.reference ?? (await findUpload(context, query));
      if (!videoId) return { kind: 'not_found' };
      return videoStatus(context, videoId);
    },

    async delete(context, externalId) {
      const { status } = await call({
        method: 'DELETE',
        url: `${api}/youtube/v3/videos?id=${encodeURIComponent(externalId)}`,
        headers: bearer(context.tokens),
        effect: 'read',
        allow: [404],
        ...(context.signal ? { signal: context.signal } : {}),
      });
      return status === 404 ? { kind: 'not_found' } : { kind: 'deleted' };
    },

    async fetchMetrics(context, request): Promise<MetricsFetch> {
      const { body } = await call<VideosStatisticsBody>({
        url: `${api}/youtube/v3/videos?part=statistics&id=${encodeURIComponent(request.externalId)}`,
        headers: bearer(context.tokens),
        effect: 'read',
        ...(context.signal ? { signal: context.signal } : {}),
      });
      // A deleted (or never uploaded) video is simply not among the items.
      const stats = body.items?.[0]?.statistics;
      if (!stats) return { kind: 'not_found' };
      return { kind: 'metrics', metrics: videoMetrics(stats) };
    },

    // videos.list takes up to 50 ids for one quota unit; a deleted video is simply not among the items.
    async fetchMetricsBatch(context, requests) {
      const found = new Map<string, MetricsFetch>();
      const ids = [...new Set(requests.map((r) => r.externalId))];
      for (let i = 0; i < ids.length; i += videosPerList) {
        const query = new URLSearchParams({
          part: 'statistics',
          id: ids.slice(i, i + videosPerList).join(','),
        });
        const { body } = await call<VideosStatisticsBody>({
          url: `${api}/youtube/v3/videos?${query.toString()}`,
          headers: bearer(context.tokens),
          effect: 'read',
          ...(context.signal ? { signal: context.signal } : {}),
        });
        for (const item of body.items ?? [])
          if (item.id && item.statistics)
            found.set(item.id, { kind: 'metrics', metrics: videoMetrics(item.statistics) });
      }
      return requests.map((r) => found.get(r.externalId) ?? { kind: 'not_found' as const });
    },

    // channels.list of the authorized user's channel (youtube.readonly): subscribers and videos. A channel that
    // hides its subscriber count answers none.
    async accountStats(context): Promise<AccountStats> {
      const { body } = await call<{
        items?: Array<{
          statistics?: { subscriberCount?: string; videoCount?: string; hiddenSubscriberCount?: boolean };
        }>;
      }>({
        url: `${api}/youtube/v3/channels?part=statistics&mine=true`,
        headers: bearer(context.tokens),
        effect: 'read',
        ...(context.signal ? { signal: context.signal } : {}),
      });
      const stats = body.items?.[0]?.statistics;
      if (!body.items?.[0])
        throw new ConnectorError('permanent', 'youtube: this Google account has no YouTube channel');
      const followers = stats?.hiddenSubscriberCount ? null : countOf(stats?.subscriberCount);
      if (followers === null)
        throw new ConnectorError('permanent', 'youtube: the channel hides its subscriber count', {
          platformCode: 'hidden_subscriber_count',
        });
      return { followers, following: null, posts: countOf(stats?.videoCount) };
    },

    async accountInfo(context) {
      return channel(context.tokens, context.signal);
    },
  };
}
