// The live Instagram connector (Instagram API with Instagram Login): OAuth with long-lived tokens and their
// refresh, publishing by media container (image, reel, carousel), container polling; no deletion by API.
import {
  advanceContainer,
  containerState,
  decodePending,
  encodePending,
  type ContainerApi,
  type PendingContainer,
} from '../facebook/containers.js';
import {
  authorizationCode,
  bearer,
  expiresAt,
  findByText,
  form,
  graphCall,
  graphTime,
} from '../facebook/graph.js';
import type { LiveConnectorOptions } from '../http.js';
import {
  ConnectorError,
  isConnectorError,
  type AccountProfile,
  type CallContext,
  type PlatformConnector,
  type PublishOutcome,
  type StatusCheck,
  type TokenSet,
} from '../port.js';

export type InstagramConnectorConfig = LiveConnectorOptions & {
  appId?: string;
  appSecret?: string;
  authorizeUrl?: string;
  /** Where the authorization code is exchanged (api.instagram.com). */
  tokenBaseUrl?: string;
  /** Long-lived exchange, refresh and the Graph calls (graph.instagram.com). */
  graphBaseUrl?: string;
  graphVersion?: string;
};

export const instagramScopes = ['instagram_business_basic', 'instagram_business_content_publish'];

const platform = 'instagram';
const profileFields = 'user_id,username,name,profile_picture_url,biography';
/** Reels take a while to process; polling sooner only spends rate limit. */
const pendingCheckMs = 15_000;

interface InstagramUser {
  id?: string;
  user_id?: string | number;
  username?: string;
  name?: string;
  profile_picture_url?: string;
  biography?: string;
}

function profileOf(user: InstagramUser): AccountProfile {
  // `user_id` is the professional account id that publishing takes; `id` is app-scoped.
  const id = String(user.user_id ?? user.id ?? '');
  return {
    accountExternalId: id,
    accountName: user.name ?? null,
    accountHandle: user.username ?? null,
    profileImageUrl: user.profile_picture_url ?? null,
    profileUrl: user.username ? `https://www.instagram.com/${user.username}/` : null,
    accountBio: user.biography ?? null,
  };
}

export function createInstagramConnector(config: InstagramConnectorConfig): PlatformConnector {
  const graphBase = (config.graphBaseUrl ?? 'https://graph.instagram.com').replace(/\/$/, '');
  const graph = `${graphBase}/${config.graphVersion ?? 'v21.0'}`;
  const tokenBase = (config.tokenBaseUrl ?? 'https://api.instagram.com').replace(/\/$/, '');
  const authorizeUrl = config.authorizeUrl ?? 'https://www.instagram.com/oauth/authorize';
  const now = () => config.now?.() ?? new Date();

  function credentials(): { appId: string; appSecret: string } {
    if (!config.appId || !config.appSecret)
      throw new ConnectorError(
        'permanent',
        'instagram: the live connector is not configured (INSTAGRAM_APP_ID, INSTAGRAM_APP_SECRET)',
      );
    return { appId: config.appId, appSecret: config.appSecret };
  }

  async function get<T>(path: string, token: string, query: Record<string, string>, signal?: AbortSignal) {
    const url = new URL(`${graph}/${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const response = await graphCall<T>(
      platform,
      { url: url.toString(), headers: bearer(token), effect: 'read', ...(signal ? { signal } : {}) },
      config,
    );
    return response.body;
  }

  async function post<T>(
    path: string,
    token: string,
    body: URLSearchParams,
    effect: 'create' | 'read',
    signal?: AbortSignal,
  ) {
    const response = await graphCall<T>(
      platform,
      {
        method: 'POST',
        url: `${graph}/${path}`,
        headers: bearer(token),
        body,
        effect,
        ...(signal ? { signal } : {}),
      },
      config,
    );
    return response.body;
  }

  async function tokenGet(path: string, query: Record<string, string>): Promise<TokenSet> {
    const url = new URL(`${graphBase}/${path}`);
    url.search = new URLSearchParams(query).toString();
    const { body } = await graphCall<{ access_token: string; expires_in?: number }>(
      platform,
      { url: url.toString(), effect: 'read' },
      config,
    );
    return {
      accessToken: body.access_token,
      // The long-lived token refreshes itself (ig_refresh_token); there is no separate refresh token.
      refreshToken: null,
      expiresAt: expiresAt(now(), body.expires_in),
      scopes: [...instagramScopes],
    };
  }

  function containers(context: CallContext, caption: string): ContainerApi {
    const userId = context.account.accountExternalId;
    const token = context.tokens.accessToken;
    return {
      async state(id) {
        const body = await get<{ status_code?: string; status?: string }>(
          id,
          token,
          { fields: 'status_code,status' },
          context.signal,
        );
        return containerState(platform, body.status_code, body.status);
      },
      async createCarousel(children) {
        const created = await post<{ id: string }>(
          `${userId}/media`,
          token,
          form({ media_type: 'CAROUSEL', children: children.join(','), caption: caption || undefined }),
          'read',
          context.signal,
        );
        return created.id;
      },
      async publish(id) {
        const published = await post<{ id: string }>(
          `${userId}/media_publish`,
          token,
          form({ creation_id: id }),
          'create',
          context.signal,
        );
        return published.id;
      },
    };
  }

  async function permalink(context: CallContext, mediaId: string): Promise<string> {
    try {
      const body = await get<{ permalink?: string }>(
        mediaId,
        context.tokens.accessToken,
        { fields: 'permalink' },
        context.signal,
      );
      if (body.permalink) return body.permalink;
    } catch {
      // the post exists; a failed lookup must not read as a failed publish
    }
    return context.account.accountHandle
      ? `https://www.instagram.com/${context.account.accountHandle}/`
      : 'https://www.instagram.com/';
  }

  async function findRecent(
    context: CallContext,
    contentText: string,
    attemptStartedAt: string,
  ): Promise<StatusCheck> {
    const since = new Date(attemptStartedAt);
    const body = await get<{
      data?: Array<{ id: string; caption?: string; timestamp?: string; permalink?: string }>;
    }>(
      `${context.account.accountExternalId}/media`,
      context.tokens.accessToken,
      {
        fields: 'id,caption,timestamp,permalink',
        since: String(Math.floor(since.getTime() / 1000)),
        limit: '50',
      },
      context.signal,
    );
    const found = findByText(
      (body.data ?? []).map((p) => ({ ...p, text: p.caption ?? '', createdAt: graphTime(p.timestamp) })),
      contentText,
      since,
    );
    if (!found) return { kind: 'not_found' };
    return {
      kind: 'published',
      externalId: found.id,
      url: found.permalink ?? (await permalink(context, found.id)),
    };
  }

  return {
    platform,
    mode: 'live',
    supportsRefresh: true,
    // ig_refresh_token renews the long-lived access token itself; there is no refresh token.
    refreshesAccessToken: true,
    missingConfiguration() {
      return [
        ...(config.appId ? [] : ['INSTAGRAM_APP_ID']),
        ...(config.appSecret ? [] : ['INSTAGRAM_APP_SECRET']),
      ];
    },

    // Instagram Login for web apps has no PKCE; the state parameter is the CSRF guard.
    async startAuthorization(request) {
      const { appId } = credentials();
      const url = new URL(authorizeUrl);
      url.search = new URLSearchParams({
        client_id: appId,
        redirect_uri: request.callbackUrl,
        response_type: 'code',
        scope: instagramScopes.join(','),
        state: request.state,
      }).toString();
      return { authorizationUrl: url.toString() };
    },

    async completeAuthorization(callback) {
      const { appId, appSecret } = credentials();
      // Instagram appends `#_` to the redirect; it is not part of the code if a client passes it along.
      const code = authorizationCode(platform, callback.params).replace(/#_$/, '');
      const { body } = await graphCall<{
        access_token?: string;
        data?: Array<{ access_token?: string }>;
      }>(
        platform,
        {
          method: 'POST',
          url: `${tokenBase}/oauth/access_token`,
          body: form({
            client_id: appId,
            client_secret: appSecret,
            grant_type: 'authorization_code',
            redirect_uri: callback.callbackUrl,
            code,
          }),
          effect: 'read',
        },
        config,
      );
      // Documented as a flat object; newer answers wrap it in `data`.
      const shortLived = body.access_token ?? body.data?.[0]?.access_token;
      if (!shortLived)
        throw new ConnectorError('permanent', 'instagram: the token exchange returned no access token');
      const tokens = await tokenGet('access_token', {
        grant_type: 'ig_exchange_token',
        client_secret: appSecret,
        access_token: shortLived,
      });
      const user = await get<InstagramUser>('me', tokens.accessToken, { fields: profileFields });
      return { kind: 'accounts', accounts: [{ profile: profileOf(user), tokens }] };
    },

    async refresh(_account, tokens) {
      try {
        const renewed = await tokenGet('refresh_access_token', {
          grant_type: 'ig_refresh_token',
          access_token: tokens.accessToken,
        });
        return { ...renewed, scopes: tokens.scopes.length ? tokens.scopes : renewed.scopes };
      } catch (error) {
        if (isConnectorError(error) && error.kind === 'permanent')
          throw new ConnectorError('auth', error.message, error.details);
        throw error;
      }
    },

    async publish(context, request): Promise<PublishOutcome> {
      const userId = context.account.accountExternalId;
      const token = context.tokens.accessToken;
      const caption = request.contentText || undefined;
      const media = request.media;
      // Containers are invisible until published, so creating one again after a lost answer is harmless.
      const create = (fields: Record<string, string | boolean | undefined>) =>
        post<{ id: string }>(`${userId}/media`, token, form(fields), 'read', context.signal).then(
          (c) => c.id,
        );
      let pending: PendingContainer;
      if (!media)
        throw new ConnectorError(
          'permanent',
          'instagram: Instagram posts need an image or a video; a text-only post cannot be published',
        );
      switch (media.kind) {
        case 'image':
          pending = {
            kind: 'container',
            id: await create({ image_url: media.url, caption, alt_text: media.altText }),
          };
          break;
        case 'video':
          // Instagram publishes every feed video as a reel.
          pending = {
            kind: 'container',
            id: await create({ media_type: 'REELS', video_url: media.url, caption }),
          };
          break;
        case 'images': {
          const children: string[] = [];
          for (const image of media.images)
            children.push(
              await create({ image_url: image.url, is_carousel_item: true, alt_text: image.altText }),
            );
          pending = { kind: 'carousel', children };
          break;
        }
        case 'document':
          throw new ConnectorError(
            'permanent',
            'instagram: Instagram cannot publish a PDF document; attach images or a video',
          );
        default: {
          const never: never = media;
          throw new ConnectorError('permanent', `instagram: unsupported media ${JSON.stringify(never)}`);
        }
      }
      const step = await advanceContainer(containers(context, request.contentText), pending);
      switch (step.kind) {
        case 'published':
          return { kind: 'published', externalId: step.mediaId, url: await permalink(context, step.mediaId) };
        case 'pending':
          return { kind: 'pending', reference: encodePending(step.pending), checkAfterMs: pendingCheckMs };
        case 'failed':
          throw new ConnectorError('permanent', step.message);
        case 'already_published':
        case 'not_found':
          // A container made a moment ago is neither gone nor published by anyone else.
          throw new ConnectorError(
            'unknown_outcome',
            `instagram: container ${encodePending(pending)} answered ${step.kind}`,
          );
        default: {
          const never: never = step;
          throw new ConnectorError('permanent', `instagram: unexpected step ${JSON.stringify(never)}`);
        }
      }
    },

    async checkStatus(context, query): Promise<StatusCheck> {
      const lookup = () => findRecent(context, query.contentText, query.attemptStartedAt);
      if (!query.reference) return lookup();
      const step = await advanceContainer(
        containers(context, query.contentText),
        decodePending(query.reference),
      );
      switch (step.kind) {
        case 'published':
          return { kind: 'published', externalId: step.mediaId, url: await permalink(context, step.mediaId) };
        case 'pending':
          return { kind: 'pending', checkAfterMs: pendingCheckMs };
        case 'failed':
          return { kind: 'failed', message: step.message };
        case 'not_found':
          return { kind: 'not_found' };
        case 'already_published': {
          const found = await lookup();
          return found.kind === 'not_found' ? { kind: 'pending', checkAfterMs: pendingCheckMs } : found;
        }
        default: {
          const never: never = step;
          throw new ConnectorError('permanent', `instagram: unexpected step ${JSON.stringify(never)}`);
        }
      }
    },

    async delete() {
      throw new ConnectorError(
        'permanent',
        'instagram: the Instagram API offers no way to delete a post; delete it in the Instagram app',
      );
    },

    async accountInfo(context) {
      return profileOf(
        await get<InstagramUser>('me', context.tokens.accessToken, { fields: profileFields }, context.signal),
      );
    },
  };
}
