// The platform connector port: OAuth, publishing, checking an unconfirmed publish, deletion, account info, a
// published post's metrics and the account's follower counts.
// Sandbox and live connectors implement it; nothing above infra/ knows which one it was given.
import type {
  EngagementPage,
  EngagementQuery,
  EngagementReadLimits,
  EngagementReply,
  EngagementReplyOutcome,
} from './engagement.js';
import type { Readable } from 'node:stream';
import type { LinkedInPostRead } from './linkedin-reads.js';
import { sanitizeErrorText } from '../logging/redact.js';
import type { Platform } from '../../domain/shared/platforms.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import type { PlatformPayload } from '../../domain/post-groups/post-content.js';
import type { MetricsReading } from '../../domain/analytics/post-metrics.js';
import type { XTrendsResult } from './x-trends.js';
import type {
  XAccountActivity,
  XAccountActivityRequest,
  XConversationRequest,
  XConversationResult,
  XPostsRequest,
  XPostsResult,
} from './x-reads.js';

export type XSubscription = 'none' | 'basic' | 'premium' | 'premium_plus';

/** What a platform granted. Stored encrypted (infra/crypto), never logged, never returned by the API. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  /** ISO time the access token stops working; null when the platform does not say (or it never expires). */
  expiresAt: string | null;
  /** ISO time the refresh token stops working, when the platform says. */
  refreshTokenExpiresAt?: string | null;
  scopes: string[];
  /** Platform extras needed later: a Bluesky PDS URL and DID, a LinkedIn author URN, a Facebook page token, … */
  extra?: Record<string, unknown>;
}

/** The account as the platform describes it (the SocialAccount fields that come from the platform). */
export interface AccountProfile {
  accountExternalId: string;
  accountName: string | null;
  accountHandle: string | null;
  profileImageUrl: string | null;
  profileUrl: string | null;
  accountBio: string | null;
  /** X only; null when unknown. */
  xSubscription?: XSubscription | null;
}

export interface ConnectedAccount {
  profile: AccountProfile;
  tokens: TokenSet;
}

/** The social account a call acts for, as stored here. */
export interface AccountRef {
  id: string;
  orgId: string;
  platform: Platform;
  accountExternalId: string;
  accountHandle: string | null;
  xSubscription: XSubscription | null;
}

export interface AuthorizationRequest {
  /** Opaque, single use; the callback brings it back. */
  state: string;
  /** Our callback URL for this platform, registered with the platform's app. */
  callbackUrl: string;
  /** PKCE S256 challenge; connectors whose platform has no PKCE ignore it. */
  codeChallenge: string;
  linkedinTarget?: 'profile' | 'page';
  blueskyHandle?: string;
}

export interface AuthorizationStart {
  authorizationUrl: string;
  /** Kept with the state (encrypted) and handed back to completeAuthorization, e.g. a DPoP key or PAR data. */
  context?: Record<string, unknown>;
}

export interface AuthorizationCallback {
  /** Every query parameter the platform sent to the callback (code, state, iss, …). */
  params: Record<string, string>;
  callbackUrl: string;
  codeVerifier: string;
  context?: Record<string, unknown>;
  linkedinTarget?: 'profile' | 'page';
}

/** A choice the user still has to make (LinkedIn pages): the options and the tokens to connect them with. */
export interface AuthorizationChoice {
  tokens: TokenSet;
  options: Array<{ id: string; name: string; vanityName: string | null }>;
}

export type AuthorizationResult =
  { kind: 'accounts'; accounts: ConnectedAccount[] } | { kind: 'choice'; choice: AuthorizationChoice };

/**
 * A media item as connectors upload it: on disk (spooled while it arrived, capped per kind), never whole in
 * memory unless it is small. Whoever supplies `fetchMedia` disposes the files after the platform call.
 */
export interface MediaFile {
  readonly assetId: string;
  readonly contentType: string;
  /** In bytes. */
  readonly size: number;
  /** The whole file; refused (permanent) above IN_MEMORY_LIMIT (20 MiB): images, not videos. */
  bytes(): Promise<Uint8Array>;
  /** `length` bytes from `offset`: one chunk of a chunked upload. */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** A Blob backed by the file, for request bodies and forms: sent with its length, streamed from disk. */
  blob(): Promise<Blob>;
  stream(): Readable;
  /** Removes the spooled file; idempotent. */
  dispose(): Promise<void>;
}

/** A media item's file, for platforms that take uploads rather than URLs. */
export type MediaFetcher = (item: {
  url: string;
  contentType: string;
  assetId: string;
  /**
   * The workspace of the post the media belongs to. Connectors leave it out: the publisher's call context sets
   * it, and files in our own storage are only read for the workspace that owns them.
   */
  orgId?: string;
}) => Promise<MediaFile>;

export interface CallContext {
  account: AccountRef;
  tokens: TokenSet;
  fetchMedia: MediaFetcher;
  signal?: AbortSignal;
}

export interface PublishRequest {
  postId: string;
  /** `publish:<postId>:<attempt>`; the same key on a retry of the same attempt. Platforms that take a client key get it. */
  idempotencyKey: string;
  /** Text of the post's group, for platforms whose posts need a title (YouTube, Reddit) when the payload has none. */
  groupTitle: string;
  contentText: string;
  media: MediaAsset | null;
  platformPayload: PlatformPayload | null;
  /** When the attempt started (ISO); status checks look for the post from here on. */
  attemptStartedAt: string;
}

export type PublishOutcome =
  | { kind: 'published'; externalId: string; url: string }
  /** Accepted but still processing (video uploads, media containers); poll with checkStatus. */
  | { kind: 'pending'; reference: string; checkAfterMs?: number };

export interface StatusQuery {
  postId: string;
  idempotencyKey: string;
  /** The pending reference, when the platform gave one. */
  reference: string | null;
  contentText: string;
  attemptStartedAt: string;
  /** As in PublishRequest: platforms that find a post by its title or place (YouTube, Reddit) match on these. */
  groupTitle?: string;
  platformPayload?: PlatformPayload | null;
}

export type StatusCheck =
  | { kind: 'published'; externalId: string; url: string }
  | { kind: 'pending'; checkAfterMs?: number }
  /** The platform confirms the post does not exist: safe to try again. */
  | { kind: 'not_found' }
  | { kind: 'failed'; message: string }
  /** The platform offers no way to tell. */
  | { kind: 'unsupported' };

/** Which published post to read the numbers of (`fetchMetrics`). */
export interface MetricsRequest {
  /** The platform's id of the post, as `publish` answered it. */
  externalId: string;
  url: string | null;
  /** When the post was published (ISO). */
  publishedAt: string;
  /** The workspace's effective time zone; the sandbox uses it, platforms ignore it. */
  timezone: string;
}

/**
 * A post's public numbers as the platform counts them at the time of the call (lifetime totals, not deltas).
 * Counts a platform does not have are 0 (`quotes` outside X, Bluesky and Threads); `bookmarks` and
 * `impressions` are null when the platform does not say (or the app may not read them). Views stand in for
 * impressions on platforms that count views (YouTube, TikTok, Instagram, Threads, Facebook posts).
 */
export type PostMetricsReading = MetricsReading;

/** A reading from the counts a platform has: `reposts` and `quotes` 0, `bookmarks` and `impressions` null when left out. */
export function metricsReading(counts: {
  likes: number;
  replies: number;
  reposts?: number;
  quotes?: number;
  bookmarks?: number | null;
  impressions?: number | null;
}): PostMetricsReading {
  return {
    likes: counts.likes,
    reposts: counts.reposts ?? 0,
    replies: counts.replies,
    quotes: counts.quotes ?? 0,
    bookmarks: counts.bookmarks ?? null,
    impressions: counts.impressions ?? null,
  };
}

export type MetricsFetch =
  | { kind: 'metrics'; metrics: PostMetricsReading }
  /** The platform says the post is gone (deleted, or never existed there): there is nothing more to read. */
  | { kind: 'not_found' };

/**
 * The account's audience as the platform counts it now (`accountStats`): followers always; accounts it follows and
 * its posts where the platform says (null otherwise).
 */
export interface AccountStats {
  followers: number;
  following: number | null;
  posts: number | null;
}

/** One documented request limit of a platform: `requests` per `windowMs`, for the whole app or per account. */
export interface RateLimit {
  requests: number;
  windowMs: number;
  per: 'app' | 'account';
}

/** What reading posts' metrics costs against a platform's limits (processes/analytics budgets it). */
export interface MetricsReadLimits {
  /** The documented limits the reads count against (every one of them must allow a read). */
  limits: readonly RateLimit[];
  /** Requests one post's reading takes (2 where the numbers come from the post and its insights). */
  requestsPerPost: number;
  /** Posts one read may ask for at once (`fetchMetricsBatch`); 1 without it. */
  postsPerRequest: number;
}

/** One post's answer in a batch read: its numbers, gone, or an error of its own (the others still count). */
export type MetricsBatchAnswer = MetricsFetch | { kind: 'error'; message: string };
/** Which published post to repost (`repost`), and whether the account's earlier repost of it is undone first. */
export interface RepostRequest {
  /** The platform's id of the post, as `publish` answered it. */
  externalId: string;
  /** The account reposted it before: undo that repost first, so this one is new (X ignores a repeated repost). */
  undoFirst: boolean;
}

export type RepostOutcome =
  | { kind: 'reposted' }
  /** The platform says the post is gone. */
  | { kind: 'not_found' };

export interface TikTokCreatorInfo {
  creatorAvatarUrl: string | null;
  creatorUsername: string | null;
  creatorNickname: string | null;
  privacyLevelOptions: string[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoPostDurationSec: number | null;
  directPostEnabled: boolean;
}

export interface PlatformConnector {
  readonly platform: Platform;
  readonly mode: 'sandbox' | 'live';
  /** Environment variables the live connector still needs; empty when it is ready. */
  missingConfiguration(): string[];
  /** Whether the platform issues refresh tokens (else the service warns ahead of expiry). */
  readonly supportsRefresh: boolean;
  /**
   * The platform renews the long-lived access token itself, without a refresh token (Threads, Instagram):
   * `refresh` is called with tokens whose refreshToken is null.
   */
  readonly refreshesAccessToken?: boolean;

  startAuthorization(request: AuthorizationRequest): Promise<AuthorizationStart>;
  completeAuthorization(callback: AuthorizationCallback): Promise<AuthorizationResult>;
  /** Connects the options picked from a choice (LinkedIn pages). */
  connectChoice?(tokens: TokenSet, optionIds: string[]): Promise<ConnectedAccount[]>;
  /** Bluesky: a session from a handle and an app password (the password is not kept). */
  connectWithAppPassword?(handle: string, appPassword: string): Promise<ConnectedAccount>;
  /** New tokens; throws ConnectorError kind `auth` when the platform refuses (revoked, expired). */
  refresh(account: AccountRef, tokens: TokenSet): Promise<TokenSet>;

  publish(context: CallContext, request: PublishRequest): Promise<PublishOutcome>;
  checkStatus(context: CallContext, query: StatusQuery): Promise<StatusCheck>;
  /** Deletes a published post; `not_found` when it is already gone. */
  delete(context: CallContext, externalId: string): Promise<{ kind: 'deleted' } | { kind: 'not_found' }>;
  /**
   * X only (X automation): reposts one of the account's own published posts with the account. A repeated repost
   * changes nothing on X, so it is safe to try again; failures throw ConnectorError as every call does.
   */
  repost?(context: CallContext, request: RepostRequest): Promise<RepostOutcome>;
  accountInfo(context: CallContext): Promise<AccountProfile>;
  /**
   * The post's engagement now. `not_found` when the platform says the post is gone; failures throw
   * ConnectorError as every call does (`auth`, `rate_limited`, `retryable` are worth another try later).
   */
  fetchMetrics(context: CallContext, request: MetricsRequest): Promise<MetricsFetch>;
  /**
   * Several posts of one account in one request, where the platform takes a list of ids (X, YouTube, Reddit,
   * Bluesky, TikTok, the sandbox): one answer per request, in order. A failure of the whole read throws.
   */
  fetchMetricsBatch?(
    context: CallContext,
    requests: readonly MetricsRequest[],
  ): Promise<MetricsBatchAnswer[]>;
  /** What metrics reads cost against the platform's limits; the documented values by default. */
  readonly metricsReadLimits?: MetricsReadLimits;
  /**
   * The account's follower count now (and following and post counts where offered). ConnectorError `permanent`
   * with platformCode `needs_permission` when the grant lacks what the platform needs to answer.
   */
  accountStats(context: CallContext): Promise<AccountStats>;
  /** TikTok only. */
  creatorInfo?(context: CallContext): Promise<TikTokCreatorInfo>;
  /**
   * LinkedIn only (./linkedin-reads.ts): one post by its URN, or null when LinkedIn has none (deleted, hidden, or
   * not visible to the account).
   */
  readLinkedInPost?(context: CallContext, request: { urn: string }): Promise<LinkedInPostRead | null>;
  /** X only: posts by id with their authors, media and referenced posts (./x-reads.ts). */
  readXPosts?(context: CallContext, request: XPostsRequest): Promise<XPostsResult>;
  /** X only: a conversation's posts, the root author's own thread and, when asked, everyone else's replies. */
  readXConversation?(context: CallContext, request: XConversationRequest): Promise<XConversationResult>;
  /** X only: the account's own posts and replies since a time, with their numbers, and its audience now. */
  readXAccountActivity?(context: CallContext, request: XAccountActivityRequest): Promise<XAccountActivity>;
  /** X only (the research tools, ./x-trends.ts): the account's personalized trends. */
  readXTrends?(context: CallContext): Promise<XTrendsResult>;
  /**
   * X and Reddit (the reply inbox, ./engagement.ts): one page of posts to answer. Reads only; failures throw
   * ConnectorError as every call does (`rate_limited` with `retryAfterMs` from the platform's headers).
   */
  readEngagement?(context: CallContext, query: EngagementQuery): Promise<EngagementPage>;
  /**
   * X and Reddit: sends one reply (an X post `in_reply_to`, a Reddit comment). A create: a timeout or reset after
   * sending is `unknown_outcome`, and the caller checks (`findEngagementReply`) before any retry.
   */
  sendEngagementReply?(context: CallContext, reply: EngagementReply): Promise<EngagementReplyOutcome>;
  /**
   * Whether a reply with exactly this text to that post already exists from the account (after an unknown outcome):
   * its outcome, or null when there is none.
   */
  findEngagementReply?(context: CallContext, reply: EngagementReply): Promise<EngagementReplyOutcome | null>;
  /** What the inbox's reads count against; the documented values. */
  readonly engagementReadLimits?: EngagementReadLimits;
}

/**
 * How a platform call failed, which decides what the pipeline does next:
 * - `auth`: the token is not accepted; refresh and try once more, else the account needs reconnecting;
 * - `rate_limited`: not done; try again after `retryAfterMs`;
 * - `retryable`: not done (network error before sending, 5xx on a read); try again with backoff;
 * - `permanent`: refused for good (validation, policy, media rejected); the post fails;
 * - `unknown_outcome`: sent, but no answer (timeout, connection reset, 5xx on a create); check before any retry.
 */
export type ConnectorErrorKind = 'auth' | 'rate_limited' | 'retryable' | 'permanent' | 'unknown_outcome';

export class ConnectorError extends Error {
  constructor(
    readonly kind: ConnectorErrorKind,
    message: string,
    readonly details: { status?: number; platformCode?: string; retryAfterMs?: number } = {},
  ) {
    // Messages carry what platforms answered: on their way to logs, API answers and a post's lastError they
    // are capped, kept on one line and cleared of anything that looks like a token.
    super(sanitizeErrorText(message));
    this.name = 'ConnectorError';
  }
}

/** Whether these tokens can be refreshed on this connector's platform. */
export function canRefresh(
  connector: Pick<PlatformConnector, 'supportsRefresh' | 'refreshesAccessToken'>,
  hasRefreshToken: boolean,
): boolean {
  return connector.supportsRefresh && (hasRefreshToken || connector.refreshesAccessToken === true);
}

export function isConnectorError(error: unknown): error is ConnectorError {
  return error instanceof ConnectorError;
}

/**
 * An optional extra read: its result, or `fallback` when the platform refuses it permanently (a permission the
 * app or account lacks). Any other failure is thrown.
 */
export async function orIfPermanent<T>(read: Promise<T>, fallback: T): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (!(error instanceof ConnectorError) || error.kind !== 'permanent') throw error;
    return fallback;
  }
}

/** One connector per platform (sandbox or live, as configured). */
export interface ConnectorRegistry {
  get(platform: Platform): PlatformConnector;
}
