// The live Threads connector (Meta Threads API): OAuth with long-lived tokens and their refresh, publishing by
// media container (text, image, video, carousel, thread items as replies), container polling, deletion.
import {
  advanceContainer,
  containerState,
  decodePending,
  encodePending,
  type ContainerApi,
  type ContainerStep,
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
  isGraphNotFound,
} from '../facebook/graph.js';
import type { LiveConnectorOptions } from '../http.js';
import {
  ConnectorError,
  isConnectorError,
  type AccountProfile,
  type AccountRef,
  type CallContext,
  type PlatformConnector,
  type PublishOutcome,
  type StatusCheck,
  type TokenSet,
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
  const api = `${base}/${config.apiVersion ?? 'v1.0'}`;
  const authorizeUrl = config.authorizeUrl ?? 'https://threads.net/oauth/authorize';
  const now = () => config.now?.() ?? new Date();

  function credentials(): { appId: string; appSecret: string } {
    if (!config.appId || !config.appSecret)
      throw new ConnectorError(
        'permanent',
        'threads: the live connector is not configured (THREADS_APP_ID, THREADS_APP_SECRET)',
      );
    return { appId: config.appId, appSecret: config.appSecret };
  }

  async function get<T>(path: string, token: string, query: Record<string, string>, signal?: AbortSignal) {
    const url = new URL(`${api}/${path}`);
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
        url: `${api}/${path}`,
        headers: bearer(token),
        body,
        effect,
        ...(signal ? { signal } : {}),
      },
      config,
    );
    return response.body;
  }

  /** A token exchange (`access_token`, `refresh_access_token`): tokens travel in the query, as Threads requires. */
  async function tokenGet(path: string, query: Record<string, string>): Promise<TokenSet> {
    const url = new URL(`${base}/${path}`);
    url.search = new URLSearchParams(query).toString();
    const { body } = await graphCall<{ access_token: string; expires_in?: number }>(
      platform,
      { url: url.toString(), effect: 'read' },
      config,
    );
    return {
      accessToken: body.access_token,
      // The long-lived token refreshes itself (th_refresh_token); there is no separate refresh token.
      refreshToken: null,
      expiresAt: expiresAt(now(), body.expires_in),
      scopes: [...threadsScopes],
    };
  }

  function containers(context: CallContext, text: string): ContainerApi {
    const userId = context.account.accountExternalId;
    const token = context.tokens.accessToken;
    return {
      async state(id) {
        const body = await get<{ status?: string; error_message?: string }>(
          id,
          token,
          { fields: 'status,error_message' },
          context.signal,
        );
        return containerState(platform, body.status, body.error_message);
      },
      async createCarousel(children) {
        const created = await post<{ id: string }>(
          `${userId}/threads`,
          token,
          form({ media_type: 'CAROUSEL', children: children.join(','), text: text || undefined }),
          'read',
          context.signal,
        );
        return created.id;
      },
      async publish(id) {
        const published = await post<{ id: string }>(
          `${userId}/threads_publish`,
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
      ? `https://www.threads.net/@${context.account.accountHandle}`
      : 'https://www.threads.net/';
  }

  /**
   * Thread items go out as a chain of replies. Once the first post exists a failure cannot be retried
   * without posting it twice, so it ends the attempt as permanent and says what is already online.
   */
  async function postReplies(context: CallContext, rootId: string, replies: string[]): Promise<void> {
    const userId = context.account.accountExternalId;
    const token = context.tokens.accessToken;
    let parent = rootId;
    for (const [index, text] of replies.entries()) {
      try {
        const container = await post<{ id: string }>(
          `${userId}/threads`,
          token,
          form({ media_type: 'TEXT', text, reply_to_id: parent }),
          'read',
          context.signal,
        );
        parent = (
          await post<{ id: string }>(
            `${userId}/threads_publish`,
            token,
            form({ creation_id: container.id }),
            'create',
            context.signal,
          )
        ).id;
      } catch (error) {
        const reason = isConnectorError(error) ? error.message : String(error);
        throw new ConnectorError(
          'permanent',
          `threads: the first post was published (${await permalink(context, rootId)}) but reply ${index + 1} of ${replies.length} failed, and the rest were not posted: ${reason}`,
        );
      }
    }
  }

  async function finish(
    context: CallContext,
    step: ContainerStep,
    replies: string[],
    lookup: () => Promise<StatusCheck>,
  ): Promise<StatusCheck> {
    switch (step.kind) {
      case 'published':
        await postReplies(context, step.mediaId, replies);
        return { kind: 'published', externalId: step.mediaId, url: await permalink(context, step.mediaId) };
      case 'pending':
        return { kind: 'pending', checkAfterMs: pendingCheckMs };
      case 'failed':
        return { kind: 'failed', message: step.message };
      case 'not_found':
        return { kind: 'not_found' };
      case 'already_published': {
        const found = await lookup();
        // Published, but not listed yet: ask again rather than call it missing.
        return found.kind === 'not_found' ? { kind: 'pending', checkAfterMs: pendingCheckMs } : found;
      }
      default: {
        const never: never = step;
        throw new ConnectorError('permanent', `threads: unexpected step ${JSON.stringify(never)}`);
      }
    }
  }

  async function findRecent(
    context: CallContext,
    contentText: string,
    attemptStartedAt: string,
  ): Promise<StatusCheck> {
    const since = new Date(attemptStartedAt);
    const body = await get<{
      data?: Array<{ id: string; text?: string; timestamp?: string; permalink?: string }>;
    }>(
      `${context.account.accountExternalId}/threads`,
      context.tokens.accessToken,
      {
        fields: 'id,text,timestamp,permalink',
        since: String(Math.floor(since.getTime() / 1000)),
        limit: '50',
      },
      context.signal,
    );
    const found = findByText(
      (body.data ?? []).map((p) => ({ ...p, text: p.text ?? null, createdAt: graphTime(p.timestamp) })),
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
    // th_refresh_token renews the long-lived access token itself; there is no refresh token.
    refreshesAccessToken: true,
    missingConfiguration() {
      return [
        ...(config.appId ? [] : ['THREADS_APP_ID']),
        ...(config.appSecret ? [] : ['THREADS_APP_SECRET']),
      ];
    },

    // Threads' OAuth has no PKCE; the state parameter is the CSRF guard.
    async startAuthorization(request) {
      const { appId } = credentials();
      const url = new URL(authorizeUrl);
      url.search = new URLSearchParams({
        client_id: appId,
        redirect_uri: request.callbackUrl,
        scope: threadsScopes.join(','),
        response_type: 'code',
        state: request.state,
      }).toString();
      return { authorizationUrl: url.toString() };
    },

    async completeAuthorization(callback) {
      const { appId, appSecret } = credentials();
      const code = authorizationCode(platform, callback.params);
      const shortLived = await graphCall<{ access_token: string; user_id?: string | number }>(
        platform,
        {
          method: 'POST',
          url: `${base}/oauth/access_token`,
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
      // The code's token lasts an hour; the long-lived one 60 days and can be refreshed.
      const tokens = await tokenGet('access_token', {
        grant_type: 'th_exchange_token',
        client_secret: appSecret,
        access_token: shortLived.body.access_token,
      });
      const user = await get<ThreadsUser>('me', tokens.accessToken, { fields: profileFields });
      return { kind: 'accounts', accounts: [{ profile: profileOf(user), tokens }] };
    },

    async refresh(_account: AccountRef, tokens) {
      try {
        const renewed = await tokenGet('refresh_access_token', {
          grant_type: 'th_refresh_token',
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
      const text = request.contentText || undefined;
      const replies = (request.platformPayload?.thread ?? []).filter((t) => t.trim() !== '');
      const media = request.media;
      // Containers are invisible until published, so creating one again after a lost answer is harmless.
      const create = (fields: Record<string, string | boolean | undefined>) =>
        post<{ id: string }>(`${userId}/threads`, token, form(fields), 'read', context.signal).then(
          (c) => c.id,
        );
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
      const step = await advanceContainer(containers(context, request.contentText), pending);
      if (step.kind === 'pending')
        return {
          kind: 'pending',
          reference: encodeReference(step.pending, replies),
          checkAfterMs: pendingCheckMs,
        };
      if (step.kind === 'failed') throw new ConnectorError('permanent', step.message);
      if (step.kind === 'published') {
        await postReplies(context, step.mediaId, replies);
        return { kind: 'published', externalId: step.mediaId, url: await permalink(context, step.mediaId) };
      }
      // A container made a moment ago is neither gone nor published by anyone else.
      throw new ConnectorError(
        'unknown_outcome',
        `threads: container ${encodePending(pending)} answered ${step.kind}`,
      );
    },

    async checkStatus(context, query): Promise<StatusCheck> {
      const lookup = () => findRecent(context, query.contentText, query.attemptStartedAt);
      if (!query.reference) return lookup();
      const { pending, replies } = decodeReference(query.reference);
      const step = await advanceContainer(containers(context, query.contentText), pending);
      return finish(context, step, replies, lookup);
    },

    async delete(context, externalId) {
      try {
        await graphCall(
          platform,
          {
            method: 'DELETE',
            url: `${api}/${externalId}`,
            headers: bearer(context.tokens.accessToken),
            effect: 'read',
            ...(context.signal ? { signal: context.signal } : {}),
          },
          config,
        );
        return { kind: 'deleted' };
      } catch (error) {
        if (isGraphNotFound(error)) return { kind: 'not_found' };
        throw error;
      }
    },

    async accountInfo(context) {
      return profileOf(
        await get<ThreadsUser>('me', context.tokens.accessToken, { fields: profileFields }, context.signal),
      );
    },
  };
}
