// The live Threads connector (Meta Threads API): OAuth with long-lived tokens and their refresh, publishing by
// media container (text, image, video, carousel, thread items as replies), container polling, deletion, a post's
// metrics (media insights) and the account's follower count (user insights).
import {
  advanceContainer,
  containerApi,
  containerPermalink,
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
  isConnectorError,
  metricsReading,
  type AccountProfile,
  type AccountStats,
  type CallContext,
  type MetricsFetch,
  type PlatformConnector,
  type PublishOutcome,
  type StatusCheck,
} from '../port.js';

export type ThreadsConnectorConfig = LiveConnectorOptions & {
  appId?: string;
  appSecret?: string;
  apiBaseUrl?: string;
  apiVersion?: string;
  authorizeUrl?: string;
};

export const threadsScopes = ['threads_basic', 'threads_content_publish', 'threads_delete'];

const platform = 'threads';
const profileFields = 'id,username,name,threads_profile_picture_url,threads_biography';
/** Meta asks to wait for processing before publishing; polling sooner only spends rate limit. */
const pendingCheckMs = 15_000;

interface ThreadsUser {
  id: string;
  username?: string;
  name?: string;
  threads_profile_picture_url?: string;
  threads_biography?: string;
}

function profileOf(user: ThreadsUser): AccountProfile {
  return {
    accountExternalId: user.id,
    accountName: user.name ?? null,
    accountHandle: user.username ?? null,
    profileImageUrl: user.threads_profile_picture_url ?? null,
    profileUrl: user.username ? `https://www.threads.net/@${user.username}` : null,
    accountBio: user.threads_biography ?? null,
  };
}

/** A pending root post carries the thread items still to post as replies once it is published. */
function encodeReference(pending: PendingContainer, replies: string[]): string {
  const base = encodePending(pending);
  return replies.length ? `${base}#${Buffer.from(JSON.stringify(replies)).toString('base64url')}` : base;
}

function decodeReference(reference: string): { pending: PendingContainer; replies: string[] } {
  const [base = '', encoded] = reference.split('#', 2);
  let replies: string[] = [];
  if (encoded) {
    const parsed: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    if (Array.isArray(parsed)) replies = parsed.filter((r): r is string => typeof r === 'string');
  }
  return { pending: decodePending(base), replies };
}

export function createThreadsConnector(config: ThreadsConnectorConfig): PlatformConnector {
  const base = (config.apiBaseUrl ?? 'https://graph.threads.net').replace(/\/$/, '');
  const authorizeUrl = config.authorizeUrl ?? 'https://threads.net/oauth/authorize';
  const graph = graphClient(platform, `${base}/${config.apiVersion ?? 'v1.0'}`, config);
  const app = metaApp(platform, config, { appId: 'THREADS_APP_ID', appSecret: 'THREADS_APP_SECRET' });
  const tokens: LongLivedTokenFlow = {
    platform,
    codeExchangeUrl: `${base}/oauth/access_token`,
    tokenBaseUrl: base,
    exchangeGrant: 'th_exchange_token',
    refreshGrant: 'th_refresh_token',
    scopes: threadsScopes,
    options: config,
  };
  const containers: ContainerPlatform = {
    platform,
    graph,
    mediaEdge: 'threads',
    publishEdge: 'threads_publish',
    statusField: 'status',
    errorField: 'error_message',
    textField: 'text',
    // An image-only post has no text: it matches an attempt without text, so a lost answer is found, not resent.
    missingText: '',
    profileUrl: (handle) => (handle ? `https://www.threads.net/@${handle}` : 'https://www.threads.net/'),
    pendingCheckMs,
  };

  /**
   * Thread items go out as a chain of replies. Once the first post exists a failure cannot be retried
   * without posting it twice, so it ends the attempt as permanent and says what is already online.
   */
  async function postReplies(context: CallContext, rootId: string, replies: string[]): Promise<void> {
    // Replies are text only: the container steps' own text (for carousels) is never used here.
    const api = containerApi(containers, context, '');
    let parent = rootId;
    for (const [index, text] of replies.entries()) {
      try {
        const container = await createContainer(containers, context, {
          media_type: 'TEXT',
          text,
          reply_to_id: parent,
        });
        parent = await api.publish(container);
      } catch (error) {
        const reason = isConnectorError(error) ? error.message : String(error);
        throw new ConnectorError(
          'permanent',
          `threads: the first post was published (${await containerPermalink(containers, context, rootId)}) but reply ${index + 1} of ${replies.length} failed, and the rest were not posted: ${reason}`,
        );
      }
    }
  }

  return {
    platform,
    mode: 'live',
    supportsRefresh: true,
    // th_refresh_token renews the long-lived access token itself; there is no refresh token.
    refreshesAccessToken: true,
    missingConfiguration: () => app.missingConfiguration(),

    async startAuthorization(request) {
      const { appId } = app.credentials();
      return { authorizationUrl: metaAuthorizationUrl(authorizeUrl, appId, request, threadsScopes) };
    },

    async completeAuthorization(callback) {
      const credentials = app.credentials();
      const code = authorizationCode(platform, callback.params);
      const granted = await longLivedTokenFromCode(tokens, credentials, code, callback.callbackUrl);
      const user = await graph.get<ThreadsUser>('me', granted.accessToken, { fields: profileFields });
      return { kind: 'accounts', accounts: [{ profile: profileOf(user), tokens: granted }] };
    },

    async refresh(_account, current) {
      return refreshLongLivedToken(tokens, current);
    },

    async publish(context, request): Promise<PublishOutcome> {
      const text = request.contentText || undefined;
      const replies = (request.platformPayload?.thread ?? []).filter((t) => t.trim() !== '');
      const media = request.media;
      const create = (fields: Record<string, string | boolean | undefined>) =>
        createContainer(containers, context, fields);
      let pending: PendingContainer;
      if (!media) pending = { kind: 'container', id: await create({ media_type: 'TEXT', text }) };
      else
        switch (media.kind) {
          case 'image':
            pending = {
              kind: 'container',
              id: await create({ media_type: 'IMAGE', image_url: media.url, text, alt_text: media.altText }),
            };
            break;
          case 'video':
            pending = {
              kind: 'container',
              id: await create({ media_type: 'VIDEO', video_url: media.url, text }),
            };
            break;
          case 'images': {
            const children: string[] = [];
            for (const image of media.images)
              children.push(
                await create({
                  media_type: 'IMAGE',
                  image_url: image.url,
                  is_carousel_item: true,
                  alt_text: image.altText,
                }),
              );
            pending = { kind: 'carousel', children };
            break;
          }
          case 'document':
            throw new ConnectorError(
              'permanent',
              'threads: Threads cannot publish a PDF document; attach images or a video',
            );
          default: {
            const never: never = media;
            throw new ConnectorError('permanent', `threads: unsupported media ${JSON.stringify(never)}`);
          }
        }
      const step = await advanceContainer(containerApi(containers, context, request.contentText), pending);
      return publishOutcome(
        containers,
        step,
        pending,
        {
          published: (mediaId) => postReplies(context, mediaId, replies),
          reference: (next) => encodeReference(next, replies),
        },
        context,
      );
    },

    async checkStatus(context, query): Promise<StatusCheck> {
      const lookup = () => findRecentPost(containers, context, query.contentText, query.attemptStartedAt);
      if (!query.reference) return lookup();
      const { pending, replies } = decodeReference(query.reference);
      const step = await advanceContainer(containerApi(containers, context, query.contentText), pending);
      return stepStatus(
        containers,
        step,
        { published: (mediaId) => postReplies(context, mediaId, replies), lookup },
        context,
      );
    },

    async delete(context, externalId) {
      return graph.remove(externalId, context.tokens.accessToken, context.signal);
    },

    async fetchMetrics(context, request): Promise<MetricsFetch> {
      let insights: InsightsBody;
      try {
        // Media insights (threads_manage_insights): every count Threads keeps of a post.
        insights = await graph.get<InsightsBody>(
          `${request.externalId}/insights`,
          context.tokens.accessToken,
          { metric: 'views,likes,replies,reposts,quotes' },
          context.signal,
        );
      } catch (error) {
        if (isGraphNotFound(error)) return { kind: 'not_found' };
        throw error;
      }
      return {
        kind: 'metrics',
        metrics: metricsReading({
          likes: insightValue(insights, 'likes') ?? 0,
          reposts: insightValue(insights, 'reposts') ?? 0,
          replies: insightValue(insights, 'replies') ?? 0,
          quotes: insightValue(insights, 'quotes') ?? 0,
          impressions: insightValue(insights, 'views'),
        }),
      };
    },

    // The user insights' followers_count (threads_manage_insights); Threads offers no following or post count.
    async accountStats(context): Promise<AccountStats> {
      let insights: InsightsBody;
      try {
        insights = await graph.get<InsightsBody>(
          `${context.account.accountExternalId}/threads_insights`,
          context.tokens.accessToken,
          { metric: 'followers_count' },
          context.signal,
        );
      } catch (error) {
        if (isGraphPermissionError(error))
          throw audiencePermissionError(platform, 'threads_manage_insights', error);
        throw error;
      }
      const followers = insightValue(insights, 'followers_count');
      if (followers === null)
        throw new ConnectorError('retryable', 'threads: the followers_count insight was not returned');
      return { followers, following: null, posts: null };
    },

    async accountInfo(context) {
      return profileOf(
        await graph.get<ThreadsUser>(
          'me',
          context.tokens.accessToken,
          { fields: profileFields },
          context.signal,
        ),
      );
    },
  };
}
