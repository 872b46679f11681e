// The live Instagram connector (Instagram API with Instagram Login): OAuth with long-lived tokens and their
// refresh, publishing by media container (image, reel, carousel), container polling, a post's metrics, the
// account's follower counts; no deletion by API.
import {
  advanceContainer,
  containerApi,
  createContainer,
  decodePending,
  encodePending,
  findRecentPost,
  publishOutcome,
  stepStatus,
  type ContainerPlatform,
  type PendingContainer,
} from '../facebook/containers.js';
import {
  audiencePermissionError,
  authorizationCode,
  graphClient,
  insightValue,
  isGraphNotFound,
  isGraphPermissionError,
  type InsightsBody,
} from '../facebook/graph.js';
import {
  longLivedTokenFromCode,
  metaApp,
  metaAuthorizationUrl,
  refreshLongLivedToken,
  type LongLivedTokenFlow,
} from '../facebook/meta-oauth.js';
import type { LiveConnectorOptions } from '../http.js';
import {
  ConnectorError,
  metricsReading,
  orIfPermanent,
  type AccountProfile,
  type AccountStats,
  type MetricsFetch,
  type PlatformConnector,
  type PublishOutcome,
  type StatusCheck,
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
  const tokenBase = (config.tokenBaseUrl ?? 'https://api.instagram.com').replace(/\/$/, '');
  const authorizeUrl = config.authorizeUrl ?? 'https://www.instagram.com/oauth/authorize';
  const graph = graphClient(platform, `${graphBase}/${config.graphVersion ?? 'v21.0'}`, config);
  const app = metaApp(platform, config, { appId: 'INSTAGRAM_APP_ID', appSecret: 'INSTAGRAM_APP_SECRET' });
  const tokens: LongLivedTokenFlow = {
    platform,
    codeExchangeUrl: `${tokenBase}/oauth/access_token`,
    tokenBaseUrl: graphBase,
    exchangeGrant: 'ig_exchange_token',
    refreshGrant: 'ig_refresh_token',
    scopes: instagramScopes,
    options: config,
  };
  const containers: ContainerPlatform = {
    platform,
    graph,
    mediaEdge: 'media',
    publishEdge: 'media_publish',
    statusField: 'status_code',
    errorField: 'status',
    textField: 'caption',
    // A post without a caption is the one an attempt without text made.
    missingText: '',
    profileUrl: (handle) => (handle ? `https://www.instagram.com/${handle}/` : 'https://www.instagram.com/'),
    pendingCheckMs,
  };
  const nothingAfterPublishing = { published: async () => {} };

  return {
    platform,
    mode: 'live',
    supportsRefresh: true,
    // ig_refresh_token renews the long-lived access token itself; there is no refresh token.
    refreshesAccessToken: true,
    missingConfiguration: () => app.missingConfiguration(),

    async startAuthorization(request) {
      const { appId } = app.credentials();
      return { authorizationUrl: metaAuthorizationUrl(authorizeUrl, appId, request, instagramScopes) };
    },

    async completeAuthorization(callback) {
      const credentials = app.credentials();
      // Instagram appends `#_` to the redirect; it is not part of the code if a client passes it along.
      const code = authorizationCode(platform, callback.params).replace(/#_$/, '');
      const granted = await longLivedTokenFromCode(tokens, credentials, code, callback.callbackUrl);
      const user = await graph.get<InstagramUser>('me', granted.accessToken, { fields: profileFields });
      return { kind: 'accounts', accounts: [{ profile: profileOf(user), tokens: granted }] };
    },

    async refresh(_account, current) {
      return refreshLongLivedToken(tokens, current);
    },

    async publish(context, request): Promise<PublishOutcome> {
      const caption = request.contentText || undefined;
      const media = request.media;
      const create = (fields: Record<string, string | boolean | undefined>) =>
        createContainer(containers, context, fields);
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
      const step = await advanceContainer(containerApi(containers, context, request.contentText), pending);
      return publishOutcome(
        containers,
        step,
        pending,
        { ...nothingAfterPublishing, reference: encodePending },
        context,
      );
    },

    async checkStatus(context, query): Promise<StatusCheck> {
      const lookup = () => findRecentPost(containers, context, query.contentText, query.attemptStartedAt);
      if (!query.reference) return lookup();
      const step = await advanceContainer(
        containerApi(containers, context, query.contentText),
        decodePending(query.reference),
      );
      return stepStatus(containers, step, { ...nothingAfterPublishing, lookup }, context);
    },

    async delete() {
      throw new ConnectorError(
        'permanent',
        'instagram: the Instagram API offers no way to delete a post; delete it in the Instagram app',
      );
    },

    async fetchMetrics(context, request): Promise<MetricsFetch> {
      const token = context.tokens.accessToken;
      let media: { like_count?: number; comments_count?: number };
      try {
        media = await graph.get(
          request.externalId,
          token,
          { fields: 'like_count,comments_count' },
          context.signal,
        );
      } catch (error) {
        if (isGraphNotFound(error)) return { kind: 'not_found' };
        throw error;
      }
      // Views, shares and saves need instagram_business_manage_insights; likes and comments do not.
      const insights = await orIfPermanent<InsightsBody>(
        graph.get<InsightsBody>(
          `${request.externalId}/insights`,
          token,
          { metric: 'views,shares,saved' },
          context.signal,
        ),
        {},
      );
      return {
        kind: 'metrics',
        metrics: metricsReading({
          likes: media.like_count ?? 0,
          reposts: insightValue(insights, 'shares') ?? 0,
          replies: media.comments_count ?? 0,
          bookmarks: insightValue(insights, 'saved'),
          impressions: insightValue(insights, 'views'),
        }),
      };
    },

    // The professional account's own counts (instagram_business_basic): followers, follows and media.
    async accountStats(context): Promise<AccountStats> {
      let user: { followers_count?: number; follows_count?: number; media_count?: number };
      try {
        user = await graph.get(
          'me',
          context.tokens.accessToken,
          { fields: 'followers_count,follows_count,media_count' },
          context.signal,
        );
      } catch (error) {
        if (isGraphPermissionError(error))
          throw audiencePermissionError(platform, 'instagram_business_basic', error);
        throw error;
      }
      if (typeof user.followers_count !== 'number')
        throw new ConnectorError('retryable', 'instagram: followers_count was not returned');
      return {
        followers: user.followers_count,
        following: user.follows_count ?? null,
        posts: user.media_count ?? null,
      };
    },

    async accountInfo(context) {
      return profileOf(
        await graph.get<InstagramUser>(
          'me',
          context.tokens.accessToken,
          { fields: profileFields },
          context.signal,
        ),
      );
    },
  };
}
