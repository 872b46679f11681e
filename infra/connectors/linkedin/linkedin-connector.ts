// The live LinkedIn connector: 3-legged OAuth for a member profile or the pages a member administers, the
// Posts API with images, multi-image, documents and videos uploaded first, status checks, deletion, a post's
// metrics (social actions; a page's share statistics) and the follower count (a page's network size, a member's
// follower statistics).
import { platformCall, type LiveConnectorOptions, type PlatformRequest } from '../http.js';
import {
  ConnectorError,
  isConnectorError,
  metricsReading,
  orIfPermanent,
  type AccountProfile,
  type AccountStats,
  type AuthorizationChoice,
  type CallContext,
  type ConnectedAccount,
  type MetricsFetch,
  type PlatformConnector,
  type PublishOutcome,
  type PublishRequest,
  type StatusCheck,
  type TokenSet,
} from '../port.js';
import { authorizationUrl, refusedRefreshIsAuth, tokenEndpointRequest } from '../oauth2.js';
import { fromLittleText, toLittleText } from './little-text.js';
import type { LinkedInPostRead } from '../linkedin-reads.js';

export type LinkedInConnectorConfig = LiveConnectorOptions & {
  clientId?: string;
  clientSecret?: string;
  /** The `LinkedIn-Version` header (YYYYMM); LinkedIn retires each version about a year after release. */
  apiVersion?: string;
  apiBaseUrl?: string;
  authBaseUrl?: string;
};

export const linkedinProfileScopes = ['openid', 'profile', 'w_member_social'];
export const linkedinPageScopes = ['r_organization_social', 'w_organization_social', 'rw_organization_admin'];

const platform = 'linkedin';
const videoCheckMs = 15_000;
/** Our clock and LinkedIn's may disagree a little; a post a minute "before" the attempt is still ours. */
const clockSkewMs = 60_000;

interface TokenResponse {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  refresh_token_expires_in?: number;
  scope?: string;
}

interface Organization {
  id: number | string;
  localizedName?: string;
  vanityName?: string;
}

interface LinkedInPost {
  id?: string;
  author?: string;
  commentary?: string;
  createdAt?: number;
  publishedAt?: number;
  lifecycleState?: string;
  content?: {
    media?: { id?: string; title?: string; altText?: string };
    multiImage?: { images?: Array<{ id?: string; altText?: string }> };
    article?: { source?: string; title?: string };
  };
}

interface SocialActions {
  likesSummary?: { totalLikes?: number; aggregatedTotalLikes?: number };
  commentsSummary?: { totalFirstLevelComments?: number; aggregatedTotalComments?: number };
}

interface ShareStatistics {
  elements?: Array<{
    totalShareStatistics?: {
      likeCount?: number;
      commentCount?: number;
      shareCount?: number;
      impressionCount?: number;
    };
  }>;
}

export function linkedinPostUrl(urn: string): string {
  return `https://www.linkedin.com/feed/update/${urn}`;
}

function organizationProfile(org: Organization): AccountProfile {
  const id = String(org.id);
  return {
    accountExternalId: `urn:li:organization:${id}`,
    accountName: org.localizedName ?? null,
    accountHandle: org.vanityName ?? null,
    profileImageUrl: null,
    profileUrl: `https://www.linkedin.com/company/${org.vanityName ?? id}/`,
    accountBio: null,
  };
}

function organizationId(urn: string): string | null {
  return /^urn:li:organization:(\d+)$/.exec(urn)?.[1] ?? null;
}

export function createLinkedInConnector(config: LinkedInConnectorConfig): PlatformConnector {
  const api = (config.apiBaseUrl ?? 'https://api.linkedin.com').replace(/\/$/, '');
  const auth = (config.authBaseUrl ?? 'https://www.linkedin.com/oauth/v2').replace(/\/$/, '');
  const version = config.apiVersion ?? '202611';
  const now = () => config.now?.() ?? new Date();
  const apiHost = new URL(api).host;

  function credentials(): { clientId: string; clientSecret: string } {
    if (!config.clientId || !config.clientSecret)
      throw new ConnectorError(
        'permanent',
        'linkedin: the live connector is not configured (LINKEDIN_CLIENT_ID, LINKEDIN_CLIENT_SECRET)',
      );
    return { clientId: config.clientId, clientSecret: config.clientSecret };
  }

  function restHeaders(token: string, method?: string): Record<string, string> {
    return {
      authorization: `Bearer ${token}`,
      'linkedin-version': version,
      'x-restli-protocol-version': '2.0.0',
      ...(method ? { 'x-restli-method': method } : {}),
    };
  }

  function call<T>(request: PlatformRequest) {
    return platformCall<T>(platform, request, config);
  }

  function withSignal(signal: AbortSignal | undefined): { signal?: AbortSignal } {
    return signal ? { signal } : {};
  }

  async function tokenRequest(fields: Record<string, string>): Promise<TokenSet> {
    const { body } = await call<TokenResponse>(tokenEndpointRequest(`${auth}/accessToken`, fields));
    const at = now().getTime();
    return {
      accessToken: body.access_token,
      refreshToken: body.refresh_token ?? null,
      expiresAt: body.expires_in ? new Date(at + body.expires_in * 1000).toISOString() : null,
      refreshTokenExpiresAt: body.refresh_token_expires_in
        ? new Date(at + body.refresh_token_expires_in * 1000).toISOString()
        : null,
      scopes: (body.scope ?? '').split(/[\s,]+/).filter(Boolean),
    };
  }

  async function memberProfile(token: string, signal?: AbortSignal): Promise<AccountProfile> {
    const { body } = await call<{ sub: string; name?: string; picture?: string }>({
      url: `${api}/v2/userinfo`,
      headers: { authorization: `Bearer ${token}` },
      effect: 'read',
      ...withSignal(signal),
    });
    return {
      accountExternalId: `urn:li:person:${body.sub}`,
      accountName: body.name ?? null,
      // The OpenID profile carries no vanity name, so there is neither a handle nor a profile URL to give.
      accountHandle: null,
      profileImageUrl: body.picture ?? null,
      profileUrl: null,
      accountBio: null,
    };
  }

  async function organizations(token: string, ids: string[]): Promise<Organization[]> {
    if (ids.length === 0) return [];
    // Rest.li 2.0 batch syntax: List(…) must reach LinkedIn unencoded, its items encoded.
    const { body } = await call<{ results?: Record<string, Organization> }>({
      url: `${api}/rest/organizations?ids=List(${ids.map(encodeURIComponent).join(',')})`,
      headers: restHeaders(token),
      effect: 'read',
    });
    return ids.map((id) => body.results?.[id] ?? { id });
  }

  async function administeredOrganizationIds(token: string): Promise<string[]> {
    const url = new URL(`${api}/rest/organizationAcls`);
    url.search = new URLSearchParams({
      q: 'roleAssignee',
      role: 'ADMINISTRATOR',
      state: 'APPROVED',
      count: '100',
    }).toString();
    const { body } = await call<{ elements?: Array<{ organization?: string; organizationTarget?: string }> }>(
      {
        url: url.toString(),
        headers: restHeaders(token),
        effect: 'read',
      },
    );
    const ids = (body.elements ?? [])
      .map((e) => organizationId(e.organization ?? e.organizationTarget ?? ''))
      .filter((id): id is string => id !== null);
    return [...new Set(ids)];
  }

  function authorOf(context: CallContext): string {
    const { accountExternalId } = context.account;
    if (accountExternalId.startsWith('urn:li:')) return accountExternalId;
    const extra = context.tokens.extra?.authorUrn;
    if (typeof extra === 'string') return extra;
    return `urn:li:person:${accountExternalId}`;
  }

  /** Upload URLs may point at LinkedIn's storage hosts; the member's token goes to LinkedIn hosts only. */
  function uploadHeaders(uploadUrl: string, token: string, contentType: string): Record<string, string> {
    const host = new URL(uploadUrl).host;
    const trusted = host === apiHost || host === 'linkedin.com' || host.endsWith('.linkedin.com');
    return { 'content-type': contentType, ...(trusted ? { authorization: `Bearer ${token}` } : {}) };
  }

  /** Images and documents share one flow: initialize an upload for the author, PUT the bytes, use the URN. */
  async function uploadFile(
    context: CallContext,
    kind: 'images' | 'documents',
    item: { url: string; contentType: string; assetId: string },
  ): Promise<string> {
    const token = context.tokens.accessToken;
    // An initialized upload that is never used is invisible, so initializing is safe to repeat.
    const { body } = await call<{ value: { uploadUrl: string; image?: string; document?: string } }>({
      method: 'POST',
      url: `${api}/rest/${kind}?action=initializeUpload`,
      headers: restHeaders(token),
      body: { initializeUploadRequest: { owner: authorOf(context) } },
      effect: 'read',
      ...withSignal(context.signal),
    });
    const urn = kind === 'images' ? body.value.image : body.value.document;
    if (!urn) throw new ConnectorError('retryable', `linkedin: the ${kind} upload was not initialized`);
    const file = await context.fetchMedia(item);
    await call({
      method: 'PUT',
      url: body.value.uploadUrl,
      headers: uploadHeaders(body.value.uploadUrl, token, file.contentType),
      // Streamed from the spooled file (documents run to 100 MB).
      body: await file.blob(),
      effect: 'read',
      ...withSignal(context.signal),
    });
    return urn;
  }

  async function uploadVideo(
    context: CallContext,
    item: { url: string; contentType: string; assetId: string },
  ): Promise<string> {
    const token = context.tokens.accessToken;
    const file = await context.fetchMedia(item);
    const { body } = await call<{
      value: {
        video: string;
        uploadToken?: string;
        uploadInstructions: Array<{ uploadUrl: string; firstByte: number; lastByte: number }>;
      };
    }>({
      method: 'POST',
      url: `${api}/rest/videos?action=initializeUpload`,
      headers: restHeaders(token),
      body: {
        initializeUploadRequest: {
          owner: authorOf(context),
          fileSizeBytes: file.size,
          uploadCaptions: false,
          uploadThumbnail: false,
        },
      },
      effect: 'read',
      ...withSignal(context.signal),
    });
    const partIds: string[] = [];
    // Each part is read from the spooled file as it is sent: one part in memory at a time.
    for (const part of body.value.uploadInstructions) {
      const uploaded = await call({
        method: 'PUT',
        url: part.uploadUrl,
        headers: uploadHeaders(part.uploadUrl, token, 'application/octet-stream'),
        body: await file.read(part.firstByte, part.lastByte + 1 - part.firstByte),
        effect: 'read',
        ...withSignal(context.signal),
      });
      const etag = uploaded.headers.get('etag');
      if (!etag) throw new ConnectorError('retryable', 'linkedin: a video part upload returned no ETag');
      partIds.push(etag);
    }
    await call({
      method: 'POST',
      url: `${api}/rest/videos?action=finalizeUpload`,
      headers: restHeaders(token),
      body: {
        finalizeUploadRequest: {
          video: body.value.video,
          uploadToken: body.value.uploadToken ?? '',
          uploadedPartIds: partIds,
        },
      },
      effect: 'read',
      ...withSignal(context.signal),
    });
    return body.value.video;
  }

  async function postContent(
    context: CallContext,
    request: PublishRequest,
  ): Promise<Record<string, unknown> | undefined> {
    const media = request.media;
    if (!media) return undefined;
    switch (media.kind) {
      case 'image':
        return {
          media: {
            id: await uploadFile(context, 'images', media),
            ...(media.altText ? { altText: media.altText } : {}),
          },
        };
      case 'images': {
        const images: Array<{ id: string; altText?: string }> = [];
        for (const image of media.images)
          images.push({
            id: await uploadFile(context, 'images', image),
            ...(image.altText ? { altText: image.altText } : {}),
          });
        // multiImage takes two to twenty; a set of one is a single image.
        if (images.length === 1) return { media: images[0] };
        return { multiImage: { images } };
      }
      case 'document':
        return { media: { id: await uploadFile(context, 'documents', media), title: media.title } };
      case 'video':
        return { media: { id: await uploadVideo(context, media) } };
      default: {
        const never: never = media;
        throw new ConnectorError('permanent', `linkedin: unsupported media ${JSON.stringify(never)}`);
      }
    }
  }

  async function videoStatus(
    token: string,
    videoUrn: string,
    signal?: AbortSignal,
  ): Promise<'available' | 'processing' | 'failed'> {
    const { body } = await call<{ status?: string }>({
      url: `${api}/rest/videos/${encodeURIComponent(videoUrn)}`,
      headers: restHeaders(token),
      effect: 'read',
      ...withSignal(signal),
    });
    if (body.status === 'AVAILABLE') return 'available';
    if (body.status === 'PROCESSING_FAILED') return 'failed';
    return 'processing';
  }

  async function refreshTokens(tokens: TokenSet): Promise<TokenSet> {
    const { clientId, clientSecret } = credentials();
    if (!tokens.refreshToken)
      throw new ConnectorError(
        'auth',
        'linkedin: LinkedIn issued no refresh token to this app (programmatic refresh is for approved partners); reconnect the account',
      );
    const refreshToken = tokens.refreshToken;
    const renewed = await refusedRefreshIsAuth(() =>
      tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
        client_secret: clientSecret,
      }),
    );
    return {
      ...renewed,
      // LinkedIn keeps the refresh token's original expiry and may not send the token again.
      refreshToken: renewed.refreshToken ?? tokens.refreshToken,
      refreshTokenExpiresAt: renewed.refreshTokenExpiresAt ?? tokens.refreshTokenExpiresAt ?? null,
      scopes: renewed.scopes.length ? renewed.scopes : tokens.scopes,
      ...(tokens.extra ? { extra: tokens.extra } : {}),
    };
  }

  return {
    platform,
    mode: 'live',
    supportsRefresh: true,
    missingConfiguration() {
      return [
        ...(config.clientId ? [] : ['LINKEDIN_CLIENT_ID']),
        ...(config.clientSecret ? [] : ['LINKEDIN_CLIENT_SECRET']),
      ];
    },

    // LinkedIn offers PKCE to native apps only, not to web apps with a client secret; state is the CSRF guard.
    async startAuthorization(request) {
      const { clientId } = credentials();
      const scopes = request.linkedinTarget === 'page' ? linkedinPageScopes : linkedinProfileScopes;
      return {
        authorizationUrl: authorizationUrl(`${auth}/authorization`, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: request.callbackUrl,
          state: request.state,
          scope: scopes.join(' '),
        }),
      };
    },

    async completeAuthorization(callback) {
      const { clientId, clientSecret } = credentials();
      const { code, error, error_description: description } = callback.params;
      if (error)
        throw new ConnectorError(
          'permanent',
          `linkedin: authorization was not granted (${description ?? error})`,
        );
      if (!code)
        throw new ConnectorError('permanent', 'linkedin: the callback carried no authorization code');
      const tokens = await tokenRequest({
        grant_type: 'authorization_code',
        code,
        redirect_uri: callback.callbackUrl,
        client_id: clientId,
        client_secret: clientSecret,
      });
      if (callback.linkedinTarget === 'page') {
        const ids = await administeredOrganizationIds(tokens.accessToken);
        if (ids.length === 0)
          throw new ConnectorError('permanent', 'linkedin: this member administers no LinkedIn Page');
        const choice: AuthorizationChoice = {
          tokens,
          options: (await organizations(tokens.accessToken, ids)).map((org) => ({
            id: String(org.id),
            name: org.localizedName ?? `Organization ${org.id}`,
            vanityName: org.vanityName ?? null,
          })),
        };
        return { kind: 'choice', choice };
      }
      const profile = await memberProfile(tokens.accessToken);
      return {
        kind: 'accounts',
        accounts: [{ profile, tokens: { ...tokens, extra: { authorUrn: profile.accountExternalId } } }],
      };
    },

    async connectChoice(tokens, optionIds): Promise<ConnectedAccount[]> {
      const administered = new Set(await administeredOrganizationIds(tokens.accessToken));
      const refused = optionIds.filter((id) => !administered.has(id));
      if (refused.length)
        throw new ConnectorError(
          'permanent',
          `linkedin: the member does not administer organization ${refused.join(', ')}`,
        );
      return (await organizations(tokens.accessToken, optionIds)).map((org) => {
        const profile = organizationProfile(org);
        return { profile, tokens: { ...tokens, extra: { authorUrn: profile.accountExternalId } } };
      });
    },

    async refresh(_account, tokens) {
      return refreshTokens(tokens);
    },

    async publish(context, request): Promise<PublishOutcome> {
      const token = context.tokens.accessToken;
      const content = await postContent(context, request);
      const created = await call<{ id?: string }>({
        method: 'POST',
        url: `${api}/rest/posts`,
        headers: restHeaders(token),
        body: {
          author: authorOf(context),
          commentary: toLittleText(request.contentText),
          visibility: 'PUBLIC',
          distribution: {
            feedDistribution: 'MAIN_FEED',
            targetEntities: [],
            thirdPartyDistributionChannels: [],
          },
          ...(content ? { content } : {}),
          lifecycleState: 'PUBLISHED',
          isReshareDisabledByAuthor: false,
        },
        effect: 'create',
        ...withSignal(context.signal),
      });
      const urn =
        created.headers.get('x-restli-id') ?? (typeof created.body?.id === 'string' ? created.body.id : null);
      if (!urn)
        throw new ConnectorError(
          'unknown_outcome',
          'linkedin: the post was accepted but LinkedIn returned no post id',
        );
      const media = content?.media as { id?: string } | undefined;
      if (media?.id?.startsWith('urn:li:video:')) {
        try {
          const status = await videoStatus(token, media.id, context.signal);
          if (status === 'available')
            return { kind: 'published', externalId: urn, url: linkedinPostUrl(urn) };
        } catch {
          // the post exists; checkStatus reads the video again
        }
        return { kind: 'pending', reference: urn, checkAfterMs: videoCheckMs };
      }
      return { kind: 'published', externalId: urn, url: linkedinPostUrl(urn) };
    },

    async checkStatus(context, query): Promise<StatusCheck> {
      const token = context.tokens.accessToken;
      if (query.reference) {
        const { status, body } = await call<LinkedInPost>({
          url: `${api}/rest/posts/${encodeURIComponent(query.reference)}`,
          headers: restHeaders(token),
          effect: 'read',
          passStatuses: [404],
          ...withSignal(context.signal),
        });
        if (status === 404) return { kind: 'not_found' };
        const mediaId = body.content?.media?.id;
        if (mediaId?.startsWith('urn:li:video:')) {
          const video = await videoStatus(token, mediaId, context.signal);
          if (video === 'processing') return { kind: 'pending', checkAfterMs: videoCheckMs };
          if (video === 'failed')
            return { kind: 'failed', message: 'linkedin: LinkedIn could not process the video' };
        }
        return { kind: 'published', externalId: query.reference, url: linkedinPostUrl(query.reference) };
      }
      const url = new URL(`${api}/rest/posts`);
      url.search = new URLSearchParams({
        author: authorOf(context),
        q: 'author',
        count: '20',
        sortBy: 'LAST_MODIFIED',
      }).toString();
      const { body } = await call<{ elements?: LinkedInPost[] }>({
        url: url.toString(),
        headers: restHeaders(token, 'FINDER'),
        effect: 'read',
        ...withSignal(context.signal),
      });
      const since = Date.parse(query.attemptStartedAt) - clockSkewMs;
      const wanted = new Set([toLittleText(query.contentText).trim(), query.contentText.trim()]);
      const found = (body.elements ?? []).find(
        (post) =>
          typeof post.id === 'string' &&
          wanted.has((post.commentary ?? '').trim()) &&
          (post.createdAt ?? post.publishedAt ?? Number.POSITIVE_INFINITY) >= since,
      );
      if (!found?.id) return { kind: 'not_found' };
      return { kind: 'published', externalId: found.id, url: linkedinPostUrl(found.id) };
    },

    async delete(context, externalId) {
      const { status } = await call({
        method: 'DELETE',
        url: `${api}/rest/posts/${encodeURIComponent(externalId)}`,
        headers: restHeaders(context.tokens.accessToken, 'DELETE'),
        effect: 'read',
        passStatuses: [404, 410],
        ...withSignal(context.signal),
      });
      return status === 404 || status === 410 ? { kind: 'not_found' } : { kind: 'deleted' };
    },

    async fetchMetrics(context, request): Promise<MetricsFetch> {
      const token = context.tokens.accessToken;
      const urn = request.externalId;
      // Likes and comments of any post (r_member_social for a member's, r_organization_social for a page's).
      const social = await call<SocialActions>({
        url: `${api}/rest/socialActions/${encodeURIComponent(urn)}`,
        headers: restHeaders(token),
        effect: 'read',
        passStatuses: [404, 410],
        ...withSignal(context.signal),
      });
      if (social.status === 404 || social.status === 410) return { kind: 'not_found' };
      const likes = social.body.likesSummary;
      const comments = social.body.commentsSummary;
      const metrics = metricsReading({
        likes: likes?.aggregatedTotalLikes ?? likes?.totalLikes ?? 0,
        replies: comments?.aggregatedTotalComments ?? comments?.totalFirstLevelComments ?? 0,
      });
      const orgId = organizationId(authorOf(context));
      if (!orgId) return { kind: 'metrics', metrics };
      // A page's posts also have organic share statistics: reshares and impressions (rw_organization_admin).
      const url = new URL(`${api}/rest/organizationalEntityShareStatistics`);
      url.search = new URLSearchParams({
        q: 'organizationalEntity',
        organizationalEntity: `urn:li:organization:${orgId}`,
      }).toString();
      // Rest.li 2.0 list syntax: List(…) unencoded, its item encoded.
      const list = urn.startsWith('urn:li:ugcPost:') ? 'ugcPosts' : 'shares';
      // Without the admin permission the statistics are refused; likes and comments still count.
      const statistics = await orIfPermanent(
        call<ShareStatistics>({
          url: `${url.toString()}&${list}=List(${encodeURIComponent(urn)})`,
          headers: restHeaders(token),
          effect: 'read',
          ...withSignal(context.signal),
        }),
        null,
      );
      const stats = statistics?.body.elements?.[0]?.totalShareStatistics;
      if (stats)
        return {
          kind: 'metrics',
          metrics: {
            ...metrics,
            likes: stats.likeCount ?? metrics.likes,
            replies: stats.commentCount ?? metrics.replies,
            reposts: stats.shareCount ?? 0,
            impressions: stats.impressionCount ?? null,
          },
        };
      return { kind: 'metrics', metrics };
    },

    // A page's followers from its network size (rw_organization_admin); a member's from memberFollowersCount
    // (r_member_profileAnalytics, restricted to approved apps). LinkedIn offers neither following nor post counts.
    async accountStats(context): Promise<AccountStats> {
      const token = context.tokens.accessToken;
      const orgId = organizationId(context.account.accountExternalId);
      try {
        if (orgId) {
          const urn = encodeURIComponent(`urn:li:organization:${orgId}`);
          const { body } = await call<{ firstDegreeSize?: number }>({
            url: `${api}/rest/networkSizes/${urn}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`,
            headers: restHeaders(token),
            effect: 'read',
            ...withSignal(context.signal),
          });
          if (typeof body.firstDegreeSize !== 'number')
            throw new ConnectorError('retryable', 'linkedin: the page follower count was not returned');
          return { followers: body.firstDegreeSize, following: null, posts: null };
        }
        const { body } = await call<{ elements?: Array<{ memberFollowersCount?: number }> }>({
          url: `${api}/rest/memberFollowersCount?q=me`,
          headers: restHeaders(token),
          effect: 'read',
          ...withSignal(context.signal),
        });
        const followers = body.elements?.[0]?.memberFollowersCount;
        if (typeof followers !== 'number')
          throw new ConnectorError('retryable', 'linkedin: the member follower count was not returned');
        return { followers, following: null, posts: null };
      } catch (error) {
        if (isConnectorError(error) && error.kind === 'permanent' && error.details.status === 403)
          throw new ConnectorError(
            'permanent',
            `linkedin: reading follower counts needs the ${orgId ? 'rw_organization_admin' : 'r_member_profileAnalytics'} permission; reconnect the account to grant it (${error.message})`,
            { status: 403, platformCode: 'needs_permission' },
          );
        throw error;
      }
    },

    // Reading a post that is not the account's own needs r_member_social (granted by LinkedIn to approved
    // partners only) or, for a page's posts, r_organization_social; a 403 says which (docs/decisions.md).
    async readLinkedInPost(context, request): Promise<LinkedInPostRead | null> {
      const token = context.tokens.accessToken;
      let post: LinkedInPost;
      try {
        const { status, body } = await call<LinkedInPost>({
          url: `${api}/rest/posts/${encodeURIComponent(request.urn)}`,
          headers: restHeaders(token),
          effect: 'read',
          passStatuses: [404, 410],
          ...withSignal(context.signal),
        });
        if (status === 404 || status === 410) return null;
        post = body;
      } catch (error) {
        if (isConnectorError(error) && error.kind === 'permanent' && error.details.status === 403)
          throw new ConnectorError(
            'permanent',
            `linkedin: reading this post needs the r_member_social permission (or r_organization_social for a page's post) (${error.message})`,
            { status: 403, platformCode: 'needs_permission' },
          );
        throw error;
      }
      if (post.lifecycleState && post.lifecycleState !== 'PUBLISHED') return null;
      const urn = post.id ?? request.urn;
      const social = await orIfPermanent(
        call<SocialActions>({
          url: `${api}/rest/socialActions/${encodeURIComponent(urn)}`,
          headers: restHeaders(token),
          effect: 'read',
          ...withSignal(context.signal),
        }).then((r) => r.body),
        null,
      );
      const author = post.author ?? null;
      const pageId = author ? organizationId(author) : null;
      const page = pageId
        ? await orIfPermanent(
            call<Organization>({
              url: `${api}/rest/organizations/${pageId}`,
              headers: restHeaders(token),
              effect: 'read',
              ...withSignal(context.signal),
            }).then((r) => r.body),
            null,
          )
        : null;
      const media: LinkedInPostRead['media'] = [];
      const c = post.content;
      if (c?.media?.id)
        media.push({
          type: c.media.id.startsWith('urn:li:video:')
            ? 'video'
            : c.media.id.startsWith('urn:li:document:')
              ? 'document'
              : c.media.id.startsWith('urn:li:image:')
                ? 'image'
                : 'other',
          url: linkedinPostUrl(urn),
          alt: c.media.altText ?? c.media.title ?? '',
        });
      for (const image of c?.multiImage?.images ?? [])
        if (image.id) media.push({ type: 'image', url: linkedinPostUrl(urn), alt: image.altText ?? '' });
      if (c?.article?.source) media.push({ type: 'link', url: c.article.source, alt: c.article.title ?? '' });
      const likes = social?.likesSummary;
      const comments = social?.commentsSummary;
      const at = post.publishedAt ?? post.createdAt;
      return {
        urn,
        url: linkedinPostUrl(urn),
        text: fromLittleText(post.commentary ?? ''),
        authorUrn: author,
        authorName: page?.localizedName ?? null,
        authorHandle: page?.vanityName ?? null,
        authorProfileUrl: page ? organizationProfile(page).profileUrl : null,
        publishedAt: typeof at === 'number' ? new Date(at).toISOString() : null,
        media,
        likes: likes ? (likes.aggregatedTotalLikes ?? likes.totalLikes ?? null) : null,
        comments: comments
          ? (comments.aggregatedTotalComments ?? comments.totalFirstLevelComments ?? null)
          : null,
      };
    },

    async accountInfo(context) {
      const orgId = organizationId(context.account.accountExternalId);
      if (!orgId) return memberProfile(context.tokens.accessToken, context.signal);
      const { body } = await call<Organization>({
        url: `${api}/rest/organizations/${orgId}`,
        headers: restHeaders(context.tokens.accessToken),
        effect: 'read',
        ...withSignal(context.signal),
      });
      return organizationProfile(body);
    },
  };
}
