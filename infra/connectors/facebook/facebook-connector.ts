// The live Facebook Pages connector (Graph API): Facebook Login, one connected account per page the user
// manages, text, link, photo, multi-photo and video posts, video processing status, deletion, a post's metrics,
// the page's follower count.
import type { LiveConnectorOptions } from '../http.js';
import {
  ConnectorError,
  metricsReading,
  orIfPermanent,
  type AccountProfile,
  type AccountStats,
  type CallContext,
  type ConnectedAccount,
  type MetricsFetch,
  type PlatformConnector,
  type PublishOutcome,
  type StatusCheck,
} from '../port.js';
import {
  audiencePermissionError,
  authorizationCode,
  findByText,
  form,
  graphClient,
  graphTime,
  insightValue,
  isGraphNotFound,
  isGraphPermissionError,
  type InsightsBody,
} from './graph.js';
import { graphTokenGet, metaApp, metaAuthorizationUrl } from './meta-oauth.js';

export type FacebookConnectorConfig = LiveConnectorOptions & {
  appId?: string;
  appSecret?: string;
  /** Graph API version path segment; Meta retires each version about two years after release. */
  graphVersion?: string;
  graphBaseUrl?: string;
  /** Where the Login dialog is served. */
  dialogBaseUrl?: string;
};

/** Listing pages, and posting to them as the page. */
export const facebookScopes = ['pages_show_list', 'pages_read_engagement', 'pages_manage_posts'];

interface PageNode {
  id: string;
  name?: string;
  username?: string;
  link?: string;
  about?: string;
  access_token?: string;
  picture?: { data?: { url?: string } };
}

interface VideoStatus {
  video_status?: string;
  processing_phase?: { status?: string; errors?: Array<{ message?: string }> };
  publishing_phase?: { status?: string };
}

const pageFields = 'id,name,username,link,about,picture{url}';
const platform = 'facebook';

interface EngagementNode {
  reactions?: { summary?: { total_count?: number } };
  comments?: { summary?: { total_count?: number } };
  shares?: { count?: number };
}

function pageProfile(page: PageNode): AccountProfile {
  return {
    accountExternalId: page.id,
    accountName: page.name ?? null,
    accountHandle: page.username ?? null,
    profileImageUrl: page.picture?.data?.url ?? null,
    profileUrl: page.link ?? `https://www.facebook.com/${page.id}`,
    accountBio: page.about ?? null,
  };
}

/** The first http(s) URL in a text, sent as the post's link so Facebook attaches its preview. */
function firstLink(text: string): string | undefined {
  return /https?:\/\/[^\s<>"]+/.exec(text)?.[0]?.replace(/[.,;:!?)\]]+$/, '');
}

function absoluteFacebookUrl(url: string): string {
  return url.startsWith('/') ? `https://www.facebook.com${url}` : url;
}

export function createFacebookConnector(config: FacebookConnectorConfig): PlatformConnector {
  const version = config.graphVersion ?? 'v21.0';
  const graphUrl = `${(config.graphBaseUrl ?? 'https://graph.facebook.com').replace(/\/$/, '')}/${version}`;
  const dialog = `${(config.dialogBaseUrl ?? 'https://www.facebook.com').replace(/\/$/, '')}/${version}`;
  const graph = graphClient(platform, graphUrl, config);
  const { get, post } = graph;
  const app = metaApp(platform, config, { appId: 'FACEBOOK_APP_ID', appSecret: 'FACEBOOK_APP_SECRET' });

  /** Once a post exists, a failed permalink read must not turn into an error that invites a second post. */
  async function permalink(id: string, token: string, signal?: AbortSignal): Promise<string> {
    try {
      const body = await get<{ permalink_url?: string }>(id, token, { fields: 'permalink_url' }, signal);
      if (body.permalink_url) return absoluteFacebookUrl(body.permalink_url);
    } catch {
      // fall through to the URL Facebook serves for any post id
    }
    return `https://www.facebook.com/${id}`;
  }

  async function videoState(
    videoId: string,
    token: string,
    signal?: AbortSignal,
  ): Promise<{ kind: 'ready'; url: string } | { kind: 'processing' } | { kind: 'error'; message: string }> {
    const body = await get<{ status?: VideoStatus; permalink_url?: string }>(
      videoId,
      token,
      { fields: 'status,permalink_url' },
      signal,
    );
    const status = body.status ?? {};
    const processingError = status.processing_phase?.errors?.[0]?.message;
    if (status.video_status === 'error' || status.processing_phase?.status === 'error')
      return {
        kind: 'error',
        message: `facebook: the video could not be processed (${processingError ?? 'no reason given'})`,
      };
    if (status.publishing_phase?.status === 'error')
      return { kind: 'error', message: 'facebook: the processed video could not be published' };
    const published = status.publishing_phase
      ? status.publishing_phase.status === 'complete'
      : status.video_status === 'ready';
    if (!published) return { kind: 'processing' };
    return {
      kind: 'ready',
      url: body.permalink_url
        ? absoluteFacebookUrl(body.permalink_url)
        : `https://www.facebook.com/${videoId}`,
    };
  }

  return {
    platform,
    mode: 'live',
    // Page tokens obtained from a long-lived user token do not expire, and Facebook offers no refresh grant.
    supportsRefresh: false,
    missingConfiguration: () => app.missingConfiguration(),

    async startAuthorization(request) {
      const { appId } = app.credentials();
      return {
        authorizationUrl: metaAuthorizationUrl(`${dialog}/dialog/oauth`, appId, request, facebookScopes, {
          withPkce: true,
        }),
      };
    },

    async completeAuthorization(callback) {
      const { appId, appSecret } = app.credentials();
      const code = authorizationCode(platform, callback.params);
      const tokenUrl = `${graphUrl}/oauth/access_token`;
      const shortLived = await graphTokenGet<{ access_token: string }>(
        platform,
        tokenUrl,
        {
          client_id: appId,
          client_secret: appSecret,
          redirect_uri: callback.callbackUrl,
          code,
          // PKCE: the verifier of the challenge the Login dialog was given.
          code_verifier: callback.codeVerifier,
        },
        config,
      );
      // Page tokens inherit the user token's lifetime: from a long-lived user token they never expire.
      const longLived = await graphTokenGet<{ access_token: string }>(
        platform,
        tokenUrl,
        {
          grant_type: 'fb_exchange_token',
          client_id: appId,
          client_secret: appSecret,
          fb_exchange_token: shortLived.access_token,
        },
        config,
      );
      const userToken = longLived.access_token;
      const pages: PageNode[] = [];
      let after: string | undefined;
      // Bounded: a user managing more than 1,000 pages is not a case worth an unbounded loop.
      for (let page = 0; page < 10; page += 1) {
        const body = await get<{
          data?: PageNode[];
          paging?: { cursors?: { after?: string }; next?: string };
        }>('me/accounts', userToken, {
          fields: `${pageFields},access_token`,
          limit: '100',
          ...(after ? { after } : {}),
        });
        pages.push(...(body.data ?? []));
        after = body.paging?.next ? body.paging.cursors?.after : undefined;
        if (!after) break;
      }
      const accounts: ConnectedAccount[] = pages
        .filter((p): p is PageNode & { access_token: string } => typeof p.access_token === 'string')
        .map((p) => ({
          profile: pageProfile(p),
          tokens: {
            accessToken: p.access_token,
            refreshToken: null,
            expiresAt: null,
            scopes: [...facebookScopes],
            extra: { pageId: p.id },
          },
        }));
      if (accounts.length === 0)
        throw new ConnectorError(
          'permanent',
          'facebook: no Facebook Page was shared with this app; connect again and select at least one page',
        );
      return { kind: 'accounts', accounts };
    },

    // Nothing to renew; this checks the page token is still accepted so a revoked one shows up as `auth`.
    async refresh(account, tokens) {
      await get<{ id: string }>(account.accountExternalId, tokens.accessToken, { fields: 'id' });
      return tokens;
    },

    async publish(context: CallContext, request): Promise<PublishOutcome> {
      const pageId = context.account.accountExternalId;
      const token = context.tokens.accessToken;
      const { signal } = context;
      const media = request.media;
      const message = request.contentText || undefined;
      if (!media) {
        const created = await post<{ id: string }>(
          `${pageId}/feed`,
          token,
          form({ message, link: firstLink(request.contentText) }),
          'create',
          signal,
        );
        return { kind: 'published', externalId: created.id, url: await permalink(created.id, token, signal) };
      }
      switch (media.kind) {
        case 'image': {
          const created = await post<{ id: string; post_id?: string }>(
            `${pageId}/photos`,
            token,
            form({ url: media.url, message, alt_text_custom: media.altText }),
            'create',
            signal,
          );
          const id = created.post_id ?? created.id;
          return { kind: 'published', externalId: id, url: await permalink(id, token, signal) };
        }
        case 'images': {
          const attached: string[] = [];
          for (const image of media.images) {
            // Unpublished photos are invisible until attached, so uploading one again is harmless.
            const photo = await post<{ id: string }>(
              `${pageId}/photos`,
              token,
              form({ url: image.url, published: false, alt_text_custom: image.altText }),
              'read',
              signal,
            );
            attached.push(photo.id);
          }
          const fields: Record<string, string | undefined> = { message };
          attached.forEach((id, i) => (fields[`attached_media[${i}]`] = JSON.stringify({ media_fbid: id })));
          const created = await post<{ id: string }>(`${pageId}/feed`, token, form(fields), 'create', signal);
          return {
            kind: 'published',
            externalId: created.id,
            url: await permalink(created.id, token, signal),
          };
        }
        case 'video': {
          const created = await post<{ id: string }>(
            `${pageId}/videos`,
            token,
            form({ file_url: media.url, description: message }),
            'create',
            signal,
          );
          try {
            const state = await videoState(created.id, token, signal);
            if (state.kind === 'ready') return { kind: 'published', externalId: created.id, url: state.url };
          } catch {
            // the video exists; its status is read again by checkStatus
          }
          return { kind: 'pending', reference: created.id, checkAfterMs: 10_000 };
        }
        case 'document':
          throw new ConnectorError(
            'permanent',
            'facebook: Pages cannot publish a PDF document; attach images or a video',
          );
        default: {
          const never: never = media;
          throw new ConnectorError('permanent', `facebook: unsupported media ${JSON.stringify(never)}`);
        }
      }
    },

    async checkStatus(context, query): Promise<StatusCheck> {
      const token = context.tokens.accessToken;
      if (query.reference) {
        try {
          const state = await videoState(query.reference, token, context.signal);
          if (state.kind === 'ready')
            return { kind: 'published', externalId: query.reference, url: state.url };
          if (state.kind === 'error') return { kind: 'failed', message: state.message };
          return { kind: 'pending', checkAfterMs: 10_000 };
        } catch (error) {
          if (isGraphNotFound(error)) return { kind: 'not_found' };
          throw error;
        }
      }
      const since = new Date(query.attemptStartedAt);
      const body = await get<{
        data?: Array<{ id: string; message?: string; created_time?: string; permalink_url?: string }>;
      }>(
        `${context.account.accountExternalId}/posts`,
        token,
        {
          fields: 'id,message,created_time,permalink_url',
          since: String(Math.floor(since.getTime() / 1000)),
          limit: '50',
        },
        context.signal,
      );
      const found = findByText(
        (body.data ?? []).map((p) => ({
          ...p,
          text: p.message ?? null,
          createdAt: graphTime(p.created_time),
        })),
        query.contentText,
        since,
      );
      if (!found) return { kind: 'not_found' };
      return {
        kind: 'published',
        externalId: found.id,
        url: found.permalink_url
          ? absoluteFacebookUrl(found.permalink_url)
          : `https://www.facebook.com/${found.id}`,
      };
    },

    async delete(context, externalId) {
      return graph.remove(externalId, context.tokens.accessToken, context.signal);
    },

    async fetchMetrics(context, request): Promise<MetricsFetch> {
      const token = context.tokens.accessToken;
      const id = request.externalId;
      // Page posts are `<page id>_<post id>`; a video post is the video's own id, which has no `shares`.
      const isVideo = !id.includes('_');
      let node: EngagementNode;
      try {
        node = await get<EngagementNode>(
          id,
          token,
          {
            fields: [
              'reactions.summary(total_count).limit(0)',
              'comments.summary(total_count).limit(0)',
              ...(isVideo ? [] : ['shares']),
            ].join(','),
          },
          context.signal,
        );
      } catch (error) {
        if (isGraphNotFound(error)) return { kind: 'not_found' };
        throw error;
      }
      // Insights need read_insights on the page; without it the other numbers still count. Post impressions
      // were retired for every Graph version on 15 November 2025; their views (`post_media_view`) replace them.
      const metric = isVideo ? 'total_video_impressions' : 'post_media_view';
      const impressions = await orIfPermanent(
        get<InsightsBody>(
          `${id}/${isVideo ? 'video_insights' : 'insights'}`,
          token,
          { metric },
          context.signal,
        ).then((insights) => insightValue(insights, metric)),
        null,
      );
      return {
        kind: 'metrics',
        metrics: metricsReading({
          likes: node.reactions?.summary?.total_count ?? 0,
          // Facebook leaves `shares` out of a post nobody shared.
          reposts: node.shares?.count ?? 0,
          replies: node.comments?.summary?.total_count ?? 0,
          impressions,
        }),
      };
    },

    // The page's followers (pages_read_engagement); `fan_count` (its likes) where Graph leaves followers out.
    async accountStats(context): Promise<AccountStats> {
      let page: { followers_count?: number; fan_count?: number };
      try {
        page = await get<{ followers_count?: number; fan_count?: number }>(
          context.account.accountExternalId,
          context.tokens.accessToken,
          { fields: 'followers_count,fan_count' },
          context.signal,
        );
      } catch (error) {
        if (isGraphPermissionError(error))
          throw audiencePermissionError(platform, 'pages_read_engagement', error);
        throw error;
      }
      const followers = page.followers_count ?? page.fan_count;
      if (typeof followers !== 'number')
        throw new ConnectorError('retryable', 'facebook: the page follower count was not returned');
      return { followers, following: null, posts: null };
    },

    async accountInfo(context) {
      const page = await get<PageNode>(
        context.account.accountExternalId,
        context.tokens.accessToken,
        { fields: pageFields },
        context.signal,
      );
      return pageProfile(page);
    },
  };
}
