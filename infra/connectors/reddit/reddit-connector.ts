// Live Reddit connector: OAuth2 code flow with permanent grants, the user as the account, submissions (text,
// link, uploaded image, gallery) with Reddit's in-body errors, finding an unconfirmed post again, deletion,
// submissions' score and comments (100 at a time) and the profile's follower count.
import {
  ConnectorError,
  metricsReading,
  type AccountProfile,
  type AccountRef,
  type AccountStats,
  type AuthorizationCallback,
  type AuthorizationRequest,
  type CallContext,
  type MetricsFetch,
  type PlatformConnector,
  type PublishOutcome,
  type PublishRequest,
  type StatusCheck,
  type TokenSet,
} from '../port.js';
import type {
  EngagementCandidate,
  EngagementPage,
  EngagementQuery,
  EngagementReadLimits,
  EngagementReply,
  EngagementReplyOutcome,
} from '../engagement.js';
import type { ImageItem } from '../../../domain/shared/media-asset.js';
import {
  platformCall,
  type LiveConnectorOptions,
  type PlatformRequest,
  type PlatformResponse,
} from '../http.js';
import {
  authorizationUrl,
  callbackCode,
  grantedTokenBody,
  missingSettings,
  refreshTokenOf,
  refusedGrantKind,
  requireSettings,
  tokenEndpointRequest,
  tokenSetFrom,
  type OAuth2TokenBody,
} from '../oauth2.js';

export interface RedditConnectorConfig extends LiveConnectorOptions {
  /** REDDIT_CLIENT_ID / REDDIT_CLIENT_SECRET of a Reddit "web app". */
  clientId?: string;
  clientSecret?: string;
  /** REDDIT_USER_AGENT: Reddit throttles generic agents; it asks for `<platform>:<app id>:<version> (by /u/<user>)`. */
  userAgent?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  /** Host of the OAuth API. */
  apiBaseUrl?: string;
  /** Sending image bytes takes longer than an ordinary call. */
  uploadTimeoutMs?: number;
}

export const redditScopes = ['identity', 'submit', 'read', 'edit'];

const defaults = {
  authorizeUrl: 'https://www.reddit.com/api/v1/authorize',
  tokenUrl: 'https://www.reddit.com/api/v1/access_token',
  apiBaseUrl: 'https://oauth.reddit.com',
  uploadTimeoutMs: 120_000,
};

const titleMax = 300;
/** Submissions found by a status check must be this recent (Reddit's clock may run behind ours). */
const searchSlackMs = 2 * 60_000;
/** An uploaded image post appears in the user's listing once Reddit has processed the image. */
const imagePollMs = 10_000;

type RedditError = [code: string, message: string, field?: string];

interface SubmitBody {
  json?: {
    errors?: RedditError[];
    data?: { url?: string; id?: string; name?: string; user_submitted_page?: string; websocket_url?: string };
  };
}

interface TokenBody extends OAuth2TokenBody {
  message?: string;
}

interface MeBody {
  id?: string;
  name?: string;
  icon_img?: string;
  subreddit?: { title?: string; public_description?: string; subscribers?: number } | null;
}

type Submission = NonNullable<NonNullable<NonNullable<Listing['data']>['children']>[number]['data']>;

/** Fullnames one /api/info call takes. */
const postsPerInfo = 100;

/** A submission's numbers; a post its author deleted is still listed, as [deleted], and counts as gone. */
function submissionMetrics(post: Submission | undefined): MetricsFetch {
  if (!post || post.author === '[deleted]' || post.removed_by_category === 'deleted')
    return { kind: 'not_found' };
  return {
    kind: 'metrics',
    metrics: metricsReading({
      // The score (upvotes less downvotes) is the closest Reddit comes to likes.
      likes: Math.max(0, post.score ?? 0),
      reposts: post.num_crossposts ?? 0,
      replies: post.num_comments ?? 0,
      impressions: typeof post.view_count === 'number' ? post.view_count : null,
    }),
  };
}

interface Listing {
  data?: {
    children?: Array<{
      kind?: string;
      data?: {
        id?: string;
        name?: string;
        title?: string;
        subreddit?: string;
        created_utc?: number;
        permalink?: string;
        selftext?: string;
        author?: string;
        removed_by_category?: string | null;
        score?: number;
        num_comments?: number;
        num_crossposts?: number;
        view_count?: number | null;
      };
    }>;
  };
}

interface CommentBody {
  json?: {
    errors?: RedditError[];
    data?: { things?: Array<{ kind?: string; data?: { id?: string; name?: string; permalink?: string } }> };
  };
}

interface CommentListing {
  data?: {
    after?: string | null;
    children?: Array<{
      kind?: string;
      data?: { id?: string; name?: string; parent_id?: string; body?: string; permalink?: string };
    }>;
  };
}

/**
 * Reddit's documented limit: 100 queries per minute per OAuth client id (averaged over ten minutes), announced
 * with X-Ratelimit-Used/-Remaining/-Reset (Reddit Data API wiki, "Rate limits").
 */
export const redditEngagementReadLimits: EngagementReadLimits = {
  reddit_search: [{ requests: 100, windowMs: 60_000, per: 'app' }],
};

/** Reddit's `x-ratelimit-remaining` (a float) and `x-ratelimit-reset` (seconds from now). */
function redditRateLimit(headers: Headers, at: Date): EngagementPage['rateLimit'] {
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = headers.get('x-ratelimit-reset');
  if (remaining === null && reset === null) return null;
  return {
    remaining:
      remaining !== null && Number.isFinite(Number(remaining)) ? Math.floor(Number(remaining)) : null,
    resetAt:
      reset !== null && Number.isFinite(Number(reset))
        ? new Date(at.getTime() + Number(reset) * 1000).toISOString()
        : null,
  };
}

/** A thread of a search listing as the inbox's candidate; removed and deleted threads are left out. */
function threadCandidate(post: Submission): EngagementCandidate | null {
  if (!post.id || post.author === '[deleted]' || post.removed_by_category) return null;
  return {
    platform: 'reddit',
    kind: 'mention',
    externalId: post.name ?? fullname(post.id),
    url: `https://www.reddit.com${post.permalink ?? `/comments/${post.id}/`}`,
    text: post.selftext ?? '',
    author: { handle: post.author ?? null, name: null, followers: null },
    postedAt: typeof post.created_utc === 'number' ? new Date(post.created_utc * 1000).toISOString() : null,
    likeCount: Math.max(0, post.score ?? 0),
    replyCount: post.num_comments ?? 0,
    inReplyToText: null,
    title: post.title ?? null,
    community: post.subreddit ?? null,
  };
}

interface AssetLease {
  args?: { action?: string; fields?: Array<{ name: string; value: string }> };
  asset?: { asset_id?: string };
}

/** "… try again in 9 minutes." or "… Take a break for 45 seconds before trying again." → ms. */
export function redditRateLimitWait(message: string): number | undefined {
  const match = /(?:try again in|take a break for) (\d+) (millisecond|second|minute|hour)s?/i.exec(message);
  if (!match) return undefined;
  const unit = { millisecond: 1, second: 1_000, minute: 60_000, hour: 3_600_000 }[
    match[2]!.toLowerCase() as 'millisecond' | 'second' | 'minute' | 'hour'
  ];
  return Number(match[1]) * unit;
}

/** Reddit answers many refusals with 200 and `json.errors`; the first one decides. */
function submitError(errors: RedditError[]): ConnectorError {
  const [code, text] = errors[0] ?? ['UNKNOWN', 'refused'];
  const message = `reddit: ${text} (${code})`;
  if (code === 'RATELIMIT') {
    const wait = redditRateLimitWait(text);
    return new ConnectorError('rate_limited', message, {
      platformCode: code,
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    });
  }
  if (code === 'USER_REQUIRED' || code === 'INVALID_CREDENTIALS')
    return new ConnectorError('auth', message, { platformCode: code });
  return new ConnectorError('permanent', message, { platformCode: code });
}

function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join('');
}

function fullname(id: string): string {
  return /^t3_/.test(id) ? id : `t3_${id}`;
}

const subredditName = (value: string) => value.replace(/^\/?r\//i, '').toLowerCase();

/** Reddit escapes `&` in the image URLs of its JSON. */
const unescapeUrl = (url: string | undefined) => (url ? url.replace(/&amp;/g, '&') : null);

export function createRedditConnector(config: RedditConnectorConfig = {}): PlatformConnector {
  const authorizeUrl = config.authorizeUrl ?? defaults.authorizeUrl;
  const tokenUrl = config.tokenUrl ?? defaults.tokenUrl;
  const api = config.apiBaseUrl ?? defaults.apiBaseUrl;
  const now = () => config.now?.() ?? new Date();
  /** Per account: when Reddit's window reopens after x-ratelimit-remaining ran out. */
  const exhaustedUntil = new Map<string, number>();

  const settings = [
    { env: 'REDDIT_CLIENT_ID', value: config.clientId },
    { env: 'REDDIT_CLIENT_SECRET', value: config.clientSecret },
    { env: 'REDDIT_USER_AGENT', value: config.userAgent },
  ] as const;

  function client(): { clientId: string; clientSecret: string; userAgent: string } {
    const [clientId, clientSecret, userAgent] = requireSettings('reddit', settings);
    return { clientId, clientSecret, userAgent };
  }

  /** One OAuth API call for an account, keeping within Reddit's announced rate-limit window. */
  async function call<T>(
    account: AccountRef | null,
    tokens: TokenSet,
    request: Omit<PlatformRequest, 'url'> & { path: string },
  ): Promise<PlatformResponse<T>> {
    const { userAgent } = client();
    const until = account ? exhaustedUntil.get(account.id) : undefined;
    const at = now().getTime();
    if (until !== undefined && at < until)
      throw new ConnectorError('rate_limited', 'reddit: the rate-limit window of this account is used up', {
        retryAfterMs: until - at,
      });
    const { path, ...rest } = request;
    const response = await platformCall<T>(
      'reddit',
      {
        ...rest,
        url: `${api}${path}`,
        headers: { ...rest.headers, authorization: `Bearer ${tokens.accessToken}`, 'user-agent': userAgent },
      },
      config,
    );
    const remaining = Number(response.headers.get('x-ratelimit-remaining'));
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    if (!account) return response;
    if (response.headers.has('x-ratelimit-remaining') && remaining < 1 && Number.isFinite(reset))
      exhaustedUntil.set(account.id, at + reset * 1000);
    else exhaustedUntil.delete(account.id);
    return response;
  }

  async function tokenRequest(form: Record<string, string>, grant: 'code' | 'refresh'): Promise<TokenBody> {
    const { clientId, clientSecret, userAgent } = client();
    const response = await platformCall<TokenBody>(
      'reddit',
      {
        ...tokenEndpointRequest(tokenUrl, form, {
          authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
          'user-agent': userAgent,
        }),
        passStatuses: [400, 401, 403],
      },
      config,
    );
    const granted = grantedTokenBody(response);
    if (granted) return granted;
    const body: TokenBody = response.body && typeof response.body === 'object' ? response.body : {};
    if (response.status === 401)
      throw new ConnectorError(
        'permanent',
        'reddit: the app credentials were refused (REDDIT_CLIENT_ID/SECRET)',
        {
          status: 401,
        },
      );
    const code = typeof body.error === 'string' ? body.error : `http_${response.status}`;
    const kind = refusedGrantKind(grant, code);
    throw new ConnectorError(kind, `reddit: the token request was refused (${code})`, {
      status: response.status,
      platformCode: code,
    });
  }

  function tokenSet(body: TokenBody, previous: TokenSet | null): TokenSet {
    return tokenSetFrom(body, previous, { now: now(), defaultScopes: redditScopes });
  }

  async function me(account: AccountRef | null, tokens: TokenSet): Promise<AccountProfile> {
    const { body } = await call<MeBody>(account, tokens, { path: '/api/v1/me?raw_json=1', effect: 'read' });
    if (!body.id || !body.name)
      throw new ConnectorError('permanent', 'reddit: the account answer has no user');
    return {
      accountExternalId: body.id,
      accountName: body.subreddit?.title || body.name,
      accountHandle: body.name,
      profileImageUrl: unescapeUrl(body.icon_img),
      profileUrl: `https://www.reddit.com/user/${body.name}`,
      accountBio: body.subreddit?.public_description || null,
    };
  }

  /** Uploads an image to Reddit's media storage (a lease, then a form POST there); returns its asset id and URL. */
  async function uploadImage(
    context: CallContext,
    image: ImageItem,
  ): Promise<{ assetId: string; url: string }> {
    const file = await context.fetchMedia({
      url: image.url,
      contentType: image.contentType,
      assetId: image.assetId,
    });
    const extension = file.contentType.split('/')[1]?.replace('jpeg', 'jpg') ?? 'bin';
    const { body: lease } = await call<AssetLease>(context.account, context.tokens, {
      method: 'POST',
      path: '/api/media/asset.json',
      body: new URLSearchParams({ filepath: `${image.assetId}.${extension}`, mimetype: file.contentType }),
      effect: 'read',
    });
    const action = lease.args?.action;
    const assetId = lease.asset?.asset_id;
    if (!action || !assetId)
      throw new ConnectorError('retryable', 'reddit: the media upload lease was incomplete');
    const target = new URL(action, 'https://reddit.invalid');
    const form = new FormData();
    for (const field of lease.args?.fields ?? []) form.append(field.name, field.value);
    form.append('file', await file.blob(), `${image.assetId}.${extension}`);
    // The storage host gets the form alone: no Reddit token leaves for it.
    const uploaded = await platformCall<string>(
      'reddit',
      { method: 'POST', url: target.toString(), body: form, effect: 'read', headers: { accept: '*/*' } },
      { ...config, timeoutMs: config.uploadTimeoutMs ?? defaults.uploadTimeoutMs },
    );
    const location = /<Location>([^<]+)<\/Location>/.exec(String(uploaded.body))?.[1];
    const key = lease.args?.fields?.find((f) => f.name === 'key')?.value;
    const url = location
      ? decodeURIComponent(location)
      : `${target.origin}${target.pathname.replace(/\/$/, '')}/${key ?? ''}`;
    return { assetId, url };
  }

  function submitted(body: SubmitBody): { externalId: string; url: string } | null {
    const errors = body.json?.errors ?? [];
    if (errors.length > 0) throw submitError(errors);
    const data = body.json?.data;
    const id = data?.name ?? (data?.id ? fullname(data.id) : undefined);
    return id && data?.url ? { externalId: id, url: data.url } : null;
  }

  async function submitGallery(
    context: CallContext,
    request: PublishRequest,
    settings: NonNullable<NonNullable<PublishRequest['platformPayload']>['reddit']>,
    images: ImageItem[],
  ): Promise<PublishOutcome> {
    const uploads = [];
    for (const image of images) uploads.push({ image, upload: await uploadImage(context, image) });
    const { body } = await call<SubmitBody>(context.account, context.tokens, {
      method: 'POST',
      path: '/api/submit_gallery_post.json?raw_json=1',
      body: {
        api_type: 'json',
        show_error_list: true,
        sr: subredditName(settings.subreddit),
        title: truncate(settings.title, titleMax),
        text: request.contentText,
        items: uploads.map(({ image, upload }) => ({
          media_id: upload.assetId,
          caption: image.altText ?? '',
          outbound_url: '',
        })),
        nsfw: settings.nsfw ?? false,
        spoiler: settings.spoiler ?? false,
        sendreplies: true,
        ...(settings.flairId ? { flair_id: settings.flairId } : {}),
      },
      effect: 'create',
    });
    const done = submitted(body);
    if (!done) throw new ConnectorError('unknown_outcome', 'reddit: the gallery was accepted without an id');
    return { kind: 'published', ...done };
  }

  /** The user's submissions since the attempt started, in the post's subreddit with its title. */
  async function findSubmission(
    context: CallContext,
    query: {
      contentText: string;
      attemptStartedAt: string;
      platformPayload?: PublishRequest['platformPayload'];
    },
  ): Promise<{ externalId: string; url: string } | null> {
    const name = context.account.accountHandle ?? (await me(context.account, context.tokens)).accountHandle;
    const { body } = await call<Listing>(context.account, context.tokens, {
      path: `/user/${encodeURIComponent(name ?? '')}/submitted?sort=new&limit=25&raw_json=1`,
      effect: 'read',
    });
    const settings = query.platformPayload?.reddit;
    const since = Date.parse(query.attemptStartedAt) - searchSlackMs;
    const match = (body.data?.children ?? [])
      .map((child) => child.data ?? {})
      .filter((post) => (post.created_utc ?? 0) * 1000 >= since)
      .filter((post) =>
        settings
          ? subredditName(post.subreddit ?? '') === subredditName(settings.subreddit) &&
            post.title === truncate(settings.title, titleMax)
          : post.selftext === query.contentText,
      )
      .sort((a, b) => (a.created_utc ?? 0) - (b.created_utc ?? 0))[0];
    if (!match?.id) return null;
    return {
      externalId: match.name ?? fullname(match.id),
      url: `https://www.reddit.com${match.permalink ?? `/comments/${match.id}/`}`,
    };
  }

  /** The account's own name: the stored handle, else Reddit's answer. */
  async function accountName(context: CallContext): Promise<string> {
    const name = context.account.accountHandle ?? (await me(context.account, context.tokens)).accountHandle;
    if (!name) throw new ConnectorError('permanent', 'reddit: the account has no user name');
    return name;
  }

  return {
    platform: 'reddit',
    mode: 'live',
    engagementReadLimits: redditEngagementReadLimits,

    // GET /search (or /r/a+b/search restricted to those subreddits), newest first, threads only (type=link).
    async readEngagement(context: CallContext, query: EngagementQuery): Promise<EngagementPage> {
      if (query.source !== 'reddit_search')
        throw new ConnectorError('permanent', `reddit: ${query.source} is not a Reddit source`);
      if (!query.query.trim()) throw new ConnectorError('permanent', 'reddit: a search needs a query');
      const subreddits = query.subreddits.map(subredditName).filter((s) => /^[a-z0-9_]{2,21}$/.test(s));
      const params = new URLSearchParams({
        q: query.query,
        sort: 'new',
        type: 'link',
        limit: String(Math.min(100, Math.max(1, Math.floor(query.max) || 25))),
        raw_json: '1',
      });
      if (subreddits.length > 0) params.set('restrict_sr', 'true');
      if (query.nextToken) params.set('after', query.nextToken);
      const path = subreddits.length > 0 ? `/r/${subreddits.join('+')}/search` : '/search';
      const response = await call<Listing & { data?: { after?: string | null } }>(
        context.account,
        context.tokens,
        {
          path: `${path}?${params.toString()}`,
          effect: 'read',
          ...(context.signal ? { signal: context.signal } : {}),
        },
      );
      const children = response.body?.data?.children ?? [];
      const items = children
        .filter((c) => c.kind === undefined || c.kind === 't3')
        .map((c) => (c.data ? threadCandidate(c.data) : null))
        .filter((c): c is EngagementCandidate => c !== null);
      const first = children[0]?.data;
      return {
        items,
        nextToken: response.body?.data?.after ?? null,
        newestId: first?.name ?? (first?.id ? fullname(first.id) : null),
        rateLimit: redditRateLimit(response.headers, now()),
      };
    },

    // POST /api/comment (submit scope): a comment on a thread (t3_) or an answer to a comment (t1_).
    async sendEngagementReply(context: CallContext, reply: EngagementReply): Promise<EngagementReplyOutcome> {
      if (!/^t[13]_[a-z0-9]+$/i.test(reply.inReplyTo))
        throw new ConnectorError('permanent', 'reddit: a reply answers a thread (t3_) or a comment (t1_)');
      const { body } = await call<CommentBody>(context.account, context.tokens, {
        method: 'POST',
        path: '/api/comment?raw_json=1',
        body: new URLSearchParams({ api_type: 'json', thing_id: reply.inReplyTo, text: reply.text }),
        // Reddit takes no idempotency key: a comment whose answer is lost may exist (findEngagementReply).
        effect: 'create',
        ...(context.signal ? { signal: context.signal } : {}),
      });
      const errors = body?.json?.errors ?? [];
      if (errors.length > 0) throw submitError(errors);
      const comment = body?.json?.data?.things?.find((t) => t.kind === 't1')?.data;
      const id = comment?.name ?? (comment?.id ? `t1_${comment.id}` : undefined);
      if (!id) throw new ConnectorError('unknown_outcome', 'reddit: the comment was accepted without an id');
      return {
        externalId: id,
        url: `https://www.reddit.com${comment?.permalink ?? `/comments/${id.slice(3)}/`}`,
      };
    },

    // The account's newest comments (/user/{name}/comments): the one under that parent with exactly that body.
    async findEngagementReply(
      context: CallContext,
      reply: EngagementReply,
    ): Promise<EngagementReplyOutcome | null> {
      const name = await accountName(context);
      const { body } = await call<CommentListing>(context.account, context.tokens, {
        path: `/user/${encodeURIComponent(name)}/comments?sort=new&limit=100&raw_json=1`,
        effect: 'read',
        ...(context.signal ? { signal: context.signal } : {}),
      });
      const found = (body?.data?.children ?? [])
        .map((c) => c.data ?? {})
        .find((c) => c.parent_id === reply.inReplyTo && (c.body ?? '').trim() === reply.text.trim());
      if (!found?.id) return null;
      return {
        externalId: found.name ?? `t1_${found.id}`,
        url: `https://www.reddit.com${found.permalink ?? `/comments/${found.id}/`}`,
      };
    },
    supportsRefresh: true,
    missingConfiguration: () => missingSettings(settings),

    async startAuthorization(request: AuthorizationRequest) {
      const { clientId } = client();
      // Reddit has no PKCE; the single-use state carries the protection.
      return {
        authorizationUrl: authorizationUrl(authorizeUrl, {
          client_id: clientId,
          response_type: 'code',
          state: request.state,
          redirect_uri: request.callbackUrl,
          duration: 'permanent',
          scope: redditScopes.join(' '),
        }),
      };
    },

    async completeAuthorization(callback: AuthorizationCallback) {
      client();
      const code = callbackCode('reddit', callback.params);
      const body = await tokenRequest(
        { grant_type: 'authorization_code', code, redirect_uri: callback.callbackUrl },
        'code',
      );
      const tokens = tokenSet(body, null);
      return { kind: 'accounts', accounts: [{ profile: await me(null, tokens), tokens }] };
    },

    async refresh(_account, tokens) {
      const body = await tokenRequest(
        { grant_type: 'refresh_token', refresh_token: refreshTokenOf('reddit', tokens) },
        'refresh',
      );
      return tokenSet(body, tokens);
    },

    async publish(context, request): Promise<PublishOutcome> {
      const settings = request.platformPayload?.reddit;
      if (!settings?.subreddit || !settings.title)
        throw new ConnectorError('permanent', 'reddit: a Reddit post needs a subreddit and a title', {
          platformCode: 'payload_required',
        });
      const media = request.media;
      if (media && media.kind !== 'image' && media.kind !== 'images')
        throw new ConnectorError('permanent', `reddit: ${media.kind} posts are not supported on Reddit yet`, {
          platformCode: 'media_not_supported',
        });
      if (media?.kind === 'images') return submitGallery(context, request, settings, media.images);

      const form = new URLSearchParams({
        api_type: 'json',
        sr: subredditName(settings.subreddit),
        title: truncate(settings.title, titleMax),
        nsfw: String(settings.nsfw ?? false),
        spoiler: String(settings.spoiler ?? false),
        sendreplies: 'true',
      });
      if (settings.flairId) form.set('flair_id', settings.flairId);
      const text = request.contentText.trim();
      let upload: { assetId: string; url: string } | null = null;
      if (media?.kind === 'image') {
        upload = await uploadImage(context, media);
        form.set('kind', 'image');
        form.set('url', upload.url);
      } else if (/^https?:\/\/\S+$/.test(text)) {
        // A text that is only a link is a link post, as Reddit's own composer makes it.
        form.set('kind', 'link');
        form.set('url', text);
        form.set('resubmit', 'true');
      } else {
        form.set('kind', 'self');
        form.set('text', request.contentText);
      }
      const { body } = await call<SubmitBody>(context.account, context.tokens, {
        method: 'POST',
        path: '/api/submit?raw_json=1',
        body: form,
        effect: 'create',
      });
      const done = submitted(body);
      if (done) return { kind: 'published', ...done };
      // Image posts are answered with a websocket to wait on; the post shows in the user's listing once ready.
      if (upload) return { kind: 'pending', reference: `image:${upload.assetId}`, checkAfterMs: imagePollMs };
      throw new ConnectorError('unknown_outcome', 'reddit: the post was accepted without an id');
    },

    async checkStatus(context, query): Promise<StatusCheck> {
      const found = await findSubmission(context, query);
      if (found) return { kind: 'published', ...found };
      // A pending image post may still be processing; without a reference nothing was confirmed.
      return query.reference ? { kind: 'pending', checkAfterMs: imagePollMs } : { kind: 'not_found' };
    },

    async delete(context, externalId) {
      const id = fullname(externalId);
      const { body } = await call<Listing>(context.account, context.tokens, {
        path: `/api/info?id=${encodeURIComponent(id)}&raw_json=1`,
        effect: 'read',
      });
      const post = body.data?.children?.[0]?.data;
      // Reddit answers /api/del with 200 whether or not there was anything to delete.
      if (!post || post.author === '[deleted]' || post.removed_by_category === 'deleted')
        return { kind: 'not_found' };
      await call(context.account, context.tokens, {
        method: 'POST',
        path: '/api/del',
        body: new URLSearchParams({ id }),
        effect: 'read',
      });
      return { kind: 'deleted' };
    },

    async fetchMetrics(context, request): Promise<MetricsFetch> {
      const { body } = await call<Listing>(context.account, context.tokens, {
        path: `/api/info?id=${encodeURIComponent(fullname(request.externalId))}&raw_json=1`,
        effect: 'read',
        ...(context.signal ? { signal: context.signal } : {}),
      });
      return submissionMetrics(body.data?.children?.[0]?.data);
    },

    // /api/info takes up to 100 fullnames at once.
    async fetchMetricsBatch(context, requests) {
      const found = new Map<string, MetricsFetch>();
      const names = [...new Set(requests.map((r) => fullname(r.externalId)))];
      for (let i = 0; i < names.length; i += postsPerInfo) {
        const { body } = await call<Listing>(context.account, context.tokens, {
          path: `/api/info?id=${encodeURIComponent(names.slice(i, i + postsPerInfo).join(','))}&raw_json=1`,
          effect: 'read',
          ...(context.signal ? { signal: context.signal } : {}),
        });
        for (const child of body.data?.children ?? [])
          if (child.data?.name) found.set(child.data.name, submissionMetrics(child.data));
      }
      return requests.map((r) => found.get(fullname(r.externalId)) ?? { kind: 'not_found' as const });
    },

    // /api/v1/me (identity): the user's profile subreddit counts its followers as subscribers. Reddit offers no
    // following or post count.
    async accountStats(context): Promise<AccountStats> {
      const { body } = await call<MeBody>(context.account, context.tokens, {
        path: '/api/v1/me?raw_json=1',
        effect: 'read',
        ...(context.signal ? { signal: context.signal } : {}),
      });
      const followers = body.subreddit?.subscribers;
      if (typeof followers !== 'number')
        throw new ConnectorError('retryable', 'reddit: the profile follower count was not returned');
      return { followers, following: null, posts: null };
    },

    async accountInfo(context) {
      return me(context.account, context.tokens);
    },
  };
}
