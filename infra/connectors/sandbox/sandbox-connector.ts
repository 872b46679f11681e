// The sandbox connector: one simulated platform per platform value, with real OAuth checks (single-use codes,
// PKCE), publications recorded in PostgreSQL (duplicates kept, so tests can prove exactly-once), injected faults,
// deterministic engagement numbers for published posts and follower counts for accounts (./metrics.ts).
import { createSandboxLinkedInReads } from './linkedin-reads.js';
import { pkceChallenge } from '../../crypto/digests.js';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { platformNames, type Platform } from '../../../domain/shared/platforms.js';
import { missingAudienceScopes } from '../analytics-access.js';
import {
  ConnectorError,
  metricsReading,
  type AccountProfile,
  type AccountStats,
  type AuthorizationCallback,
  type AuthorizationRequest,
  type CallContext,
  type ConnectedAccount,
  type MetricsFetch,
  type MetricsRequest,
  type PlatformConnector,
  type PublishOutcome,
  type PublishRequest,
  type StatusCheck,
  type StatusQuery,
  type TikTokCreatorInfo,
  type TokenSet,
} from '../port.js';
import {
  base32,
  consumeAuthorizationCode,
  defaultSandboxAccount,
  isSandboxAccountRevoked,
  recordSandboxAccount,
  SANDBOX_ACCOUNT_NAME,
  sandboxExternalId,
} from './accounts.js';
import { faultSharesFor, pickFault, type SandboxFaultSource } from './faults.js';
import { sandboxAudience, sandboxMetrics } from './metrics.js';
import type { SandboxPublicationsTable, SandboxTables } from './migrations.js';
import { createSandboxXReads } from './x-reads.js';
import { createSandboxEngagement } from './engagement.js';
import { createSandboxXTrends } from './x-trends.js';
import type { EngagementReply, EngagementReplyOutcome } from '../engagement.js';

export interface SandboxDeps {
  // The sandbox only touches its own tables; callers hand in whichever database type they hold.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  publicBaseUrl: string;
  faults: SandboxFaultSource;
  /** How long a publish answered `pending` stays pending. */
  pendingMs: number;
  now?: () => Date;
  /** Draws the faults (and whether a lost answer was recorded); Math.random unless a test fixes it. */
  random?: () => number;
  /** How long a `timeout` fault holds the call before its answer is "lost". */
  timeoutDelayMs?: number;
}

const ACCESS_TOKEN_TTL_MS = 2 * 3_600_000;
/** Facebook page tokens from a long-lived user token last about 60 days and cannot be refreshed. */
const FACEBOOK_TOKEN_TTL_MS = 60 * 86_400_000;

const scopes: Record<Platform, string[]> = {
  x: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
  linkedin: ['openid', 'profile', 'w_member_social'],
  tiktok: ['user.info.basic', 'video.upload', 'video.publish'],
  reddit: ['identity', 'submit', 'read', 'edit'],
  facebook: ['pages_show_list', 'pages_read_engagement', 'pages_manage_posts'],
  instagram: ['instagram_business_basic', 'instagram_business_content_publish'],
  youtube: [
    'https://www.googleapis.com/auth/youtube.upload',
    'https://www.googleapis.com/auth/youtube.readonly',
  ],
  bluesky: ['atproto', 'transition:generic'],
  threads: ['threads_basic', 'threads_content_publish'],
};

const linkedinPageScopes = ['r_organization_social', 'w_organization_social', 'rw_organization_admin'];

/** The organizations every sandbox LinkedIn member administers. */
export const sandboxLinkedinOrganizations = [
  { id: '90000001', name: 'Sandbox Bakery', vanityName: 'sandbox-bakery' },
  { id: '90000002', name: 'Sandbox Robotics GmbH', vanityName: 'sandbox-robotics' },
  { id: '90000003', name: 'Sandbox Community Choir', vanityName: null },
] as const;

const APP_PASSWORD = /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/i;

const digits = (length: number) => {
  const bytes = randomBytes(length);
  return Array.from(bytes, (b, i) => (i === 0 ? 1 + (b % 9) : b % 10)).join('');
};

/** Ids shaped like each platform's own, so URLs and logs look familiar. */
function newPostExternalId(platform: Platform): string {
  switch (platform) {
    case 'x':
      return digits(19);
    case 'bluesky':
      return base32(randomBytes(9)).slice(0, 13);
    case 'linkedin':
      return `urn:li:share:${digits(19)}`;
    case 'youtube':
      return randomBytes(8).toString('base64url').slice(0, 11);
    case 'reddit':
      return `t3_${base32(randomBytes(5)).slice(0, 7)}`;
    case 'tiktok':
    case 'facebook':
    case 'instagram':
    case 'threads':
      return digits(17);
    default: {
      const never: never = platform;
      return never;
    }
  }
}

const displayName = (handle: string) =>
  handle
    .split(/[_.-]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createSandboxConnector(platform: Platform, deps: SandboxDeps): PlatformConnector {
  const db = deps.db as Kysely<SandboxTables>;
  const now = deps.now ?? (() => new Date());
  const random = deps.random ?? Math.random;
  const base = deps.publicBaseUrl.replace(/\/$/, '');
  const label = `${platform} (sandbox)`;
  const supportsRefresh = platform !== 'facebook';

  const profileFor = (externalId: string, handle: string, name: string): AccountProfile => ({
    accountExternalId: externalId,
    accountName: name,
    accountHandle: handle,
    profileImageUrl: null,
    profileUrl: `${base}/v1/sandbox/${platform}/accounts/${encodeURIComponent(externalId)}`,
    accountBio: `Sandbox account on ${platformNames[platform]}: posts stay on this service.`,
    ...(platform === 'x' ? { xSubscription: 'none' as const } : {}),
  });

  const issueTokens = (extra: Record<string, unknown>, grantedScopes = scopes[platform]): TokenSet => {
    const at = now().getTime();
    return {
      accessToken: `sbx_at_${randomBytes(24).toString('base64url')}`,
      refreshToken: supportsRefresh ? `sbx_rt_${randomBytes(24).toString('base64url')}` : null,
      expiresAt: new Date(at + (supportsRefresh ? ACCESS_TOKEN_TTL_MS : FACEBOOK_TOKEN_TTL_MS)).toISOString(),
      scopes: [...grantedScopes],
      extra: { sandbox: true, ...extra },
    };
  };

  const connect = async (handle: string, extra: Record<string, unknown> = {}): Promise<ConnectedAccount> => {
    const externalId = sandboxExternalId(platform, handle);
    const name = `${displayName(handle)} (${platformNames[platform]} sandbox)`;
    await recordSandboxAccount(db, { platform, externalId, handle, name });
    const platformExtra =
      platform === 'bluesky'
        ? { did: externalId, handle, service: `${base}/v1/sandbox/bluesky` }
        : platform === 'linkedin'
          ? { authorUrn: `urn:li:person:${externalId}` }
          : {};
    return {
      profile: profileFor(externalId, handle, name),
      tokens: issueTokens({ ...platformExtra, ...extra }),
    };
  };

  /** What a real platform checks on every call: the grant still stands and the access token has not expired. */
  const authorize = async (context: CallContext) => {
    if (await isSandboxAccountRevoked(db, platform, context.account.accountExternalId))
      throw new ConnectorError('auth', `${label}: access was revoked for this account`, { status: 401 });
    const expiresAt = context.tokens.expiresAt ? Date.parse(context.tokens.expiresAt) : Number.NaN;
    if (Number.isFinite(expiresAt) && expiresAt <= now().getTime())
      throw new ConnectorError('auth', `${label}: the access token has expired`, { status: 401 });
  };

  const record = async (
    context: CallContext,
    request: Pick<PublishRequest, 'postId' | 'idempotencyKey' | 'contentText'>,
    status: 'published' | 'pending',
    // A Reddit reply is a comment (t1_), not a thread.
    kind: 'post' | 'comment' = 'post',
  ): Promise<{ externalId: string; url: string }> => {
    const externalId =
      kind === 'comment' && platform === 'reddit'
        ? newPostExternalId(platform).replace(/^t3_/, 't1_')
        : newPostExternalId(platform);
    const url = `${base}/v1/sandbox/${platform}/posts/${encodeURIComponent(externalId)}`;
    const at = now();
    await db
      .insertInto('sandbox_publications')
      .values({
        platform,
        account_external_id: context.account.accountExternalId,
        post_id: request.postId,
        idempotency_key: request.idempotencyKey,
        external_id: externalId,
        url,
        text: request.contentText,
        status,
        ready_at: new Date(at.getTime() + (status === 'pending' ? deps.pendingMs : 0)).toISOString(),
        created_at: at.toISOString(),
        deleted_at: null,
      })
      .execute();
    return { externalId, url };
  };

  /** A pending publication becomes published once its time has come (checked whenever someone looks). */
  const settle = async (row: Pick<SandboxPublicationsTable, 'status' | 'ready_at'> & { id: string }) => {
    if (row.status !== 'pending' || Date.parse(row.ready_at) > now().getTime()) return row.status;
    await db
      .updateTable('sandbox_publications')
      .set({ status: 'published' })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
    return 'published' as const;
  };

  /** The numbers of each requested post: one query for all of them. */
  const readMetrics = async (requests: readonly MetricsRequest[]): Promise<MetricsFetch[]> => {
    if (requests.length === 0) return [];
    const rows = await db
      .selectFrom('sandbox_publications')
      .select(['id', 'external_id', 'status', 'ready_at'])
      .where('platform', '=', platform)
      .where(
        'external_id',
        'in',
        requests.map((r) => r.externalId),
      )
      .orderBy('id')
      .execute();
    const byPost = new Map<string, typeof rows>();
    for (const row of rows) byPost.set(row.external_id, [...(byPost.get(row.external_id) ?? []), row]);
    const at = now();
    const zero = metricsReading({ likes: 0, replies: 0, impressions: 0 });
    const answers: MetricsFetch[] = [];
    for (const request of requests) {
      const publications = byPost.get(request.externalId) ?? [];
      const row = publications[0];
      // Like a platform: a post it never had, or one deleted since, is not found.
      if (!row || publications.every((r) => r.status === 'deleted')) {
        answers.push({ kind: 'not_found' });
        continue;
      }
      if ((await settle(row)) === 'pending') {
        answers.push({ kind: 'metrics', metrics: zero });
        continue;
      }
      answers.push({
        kind: 'metrics',
        metrics: sandboxMetrics({
          platform,
          externalId: request.externalId,
          publishedAt: request.publishedAt,
          timezone: request.timezone,
          now: at,
        }),
      });
    }
    return answers;
  };

  /**
   * A create call's (a publish's, a reply's) fault, drawn from the current shares: `auth`, `reject` and `fail`
   * refuse before anything is recorded; `timeout` records the call or not (½ each), then its answer is lost
   * (`unknown_outcome`). What is left, `pending` or no fault, is the caller's to answer.
   */
  const simulateCreate = async (recordIt: () => Promise<unknown>): Promise<'pending' | null> => {
    const fault = pickFault(faultSharesFor(await deps.faults.current(), platform), random());
    switch (fault) {
      case 'auth':
        throw new ConnectorError('auth', `${label}: the access token was refused (simulated)`, {
          status: 401,
        });
      case 'reject':
        throw new ConnectorError('permanent', `${label}: the platform rejected the post (simulated)`, {
          status: 400,
        });
      case 'fail':
        throw new ConnectorError('retryable', `${label}: the platform is unavailable (simulated)`, {
          status: 503,
        });
      case 'timeout':
        if (random() < 0.5) await recordIt();
        await sleep(deps.timeoutDelayMs ?? 200);
        throw new ConnectorError('unknown_outcome', `${label}: the answer was lost (simulated timeout)`);
      case 'pending':
      case null:
        return fault;
      default: {
        const never: never = fault;
        return never;
      }
    }
  };

  const connector: PlatformConnector = {
    platform,
    mode: 'sandbox',
    supportsRefresh,
    missingConfiguration: () => [],

    async startAuthorization(request: AuthorizationRequest) {
      const url = new URL(`${base}/v1/sandbox/oauth/${platform}/authorize`);
      url.searchParams.set('state', request.state);
      url.searchParams.set('redirect_uri', request.callbackUrl);
      url.searchParams.set('code_challenge', request.codeChallenge);
      url.searchParams.set('code_challenge_method', 'S256');
      url.searchParams.set(
        'scope',
        (request.linkedinTarget === 'page' ? linkedinPageScopes : scopes[platform]).join(' '),
      );
      if (request.blueskyHandle) url.searchParams.set('login_hint', request.blueskyHandle);
      return { authorizationUrl: url.toString() };
    },

    async completeAuthorization(callback: AuthorizationCallback) {
      if (callback.params.error)
        throw new ConnectorError(
          'permanent',
          `${label}: authorization was not granted (${callback.params.error})`,
        );
      const code = callback.params.code;
      if (!code)
        throw new ConnectorError('permanent', `${label}: the callback carries no authorization code`);
      const grant = await consumeAuthorizationCode(db, { platform, code, now: now() });
      // One message for unknown, used and expired codes, as OAuth servers answer `invalid_grant` for all three.
      if (!grant)
        throw new ConnectorError(
          'permanent',
          `${label}: invalid_grant (the code is unknown, used or expired)`,
          {
            status: 400,
            platformCode: 'invalid_grant',
          },
        );
      if (grant.redirectUri !== callback.callbackUrl)
        throw new ConnectorError(
          'permanent',
          `${label}: invalid_grant (redirect_uri differs from the authorization request)`,
          {
            status: 400,
            platformCode: 'invalid_grant',
          },
        );
      const challenge = pkceChallenge(callback.codeVerifier);
      if (challenge !== grant.codeChallenge)
        throw new ConnectorError('permanent', `${label}: invalid_grant (PKCE verification failed)`, {
          status: 400,
          platformCode: 'invalid_grant',
        });
      if (platform === 'linkedin' && callback.linkedinTarget === 'page') {
        const member = sandboxExternalId(platform, grant.accountHandle);
        return {
          kind: 'choice',
          choice: {
            tokens: issueTokens({ memberUrn: `urn:li:person:${member}` }, linkedinPageScopes),
            options: sandboxLinkedinOrganizations.map((o) => ({ ...o })),
          },
        };
      }
      return { kind: 'accounts', accounts: [await connect(grant.accountHandle)] };
    },

    async refresh(account, tokens) {
      if (!supportsRefresh)
        throw new ConnectorError('permanent', `${label}: tokens cannot be refreshed; reconnect the account`);
      if (!tokens.refreshToken)
        throw new ConnectorError('auth', `${label}: no refresh token`, { status: 400 });
      if (await isSandboxAccountRevoked(db, platform, account.accountExternalId))
        throw new ConnectorError('auth', `${label}: access was revoked for this account`, {
          status: 400,
          platformCode: 'invalid_grant',
        });
      const { sandbox: _sandbox, ...extra } = tokens.extra ?? {};
      return issueTokens(extra, tokens.scopes.length > 0 ? tokens.scopes : scopes[platform]);
    },

    async publish(context, request): Promise<PublishOutcome> {
      await authorize(context);
      const fault = await simulateCreate(() => record(context, request, 'published'));
      if (fault === 'pending') {
        const { externalId } = await record(context, request, 'pending');
        return { kind: 'pending', reference: externalId, checkAfterMs: deps.pendingMs };
      }
      const published = await record(context, request, 'published');
      return { kind: 'published', ...published };
    },

    async checkStatus(context, query: StatusQuery): Promise<StatusCheck> {
      await authorize(context);
      let lookup = db
        .selectFrom('sandbox_publications')
        .select(['id', 'external_id', 'url', 'status', 'ready_at'])
        .where('platform', '=', platform);
      lookup = lookup.where((eb) =>
        query.reference
          ? eb.or([eb('idempotency_key', '=', query.idempotencyKey), eb('external_id', '=', query.reference)])
          : eb('idempotency_key', '=', query.idempotencyKey),
      );
      const rows = await lookup.orderBy('id').execute();
      if (rows.length === 0) return { kind: 'not_found' };
      // A publication deleted since still happened: publishing again would be a duplicate.
      const ranked = [...rows].sort(
        (a, b) => (a.status === 'pending' ? 1 : 0) - (b.status === 'pending' ? 1 : 0),
      );
      for (const row of ranked) {
        const status = await settle(row);
        if (status !== 'pending') return { kind: 'published', externalId: row.external_id, url: row.url };
      }
      const first = ranked[0]!;
      return { kind: 'pending', checkAfterMs: Math.max(0, Date.parse(first.ready_at) - now().getTime()) };
    },

    async delete(context, externalId) {
      await authorize(context);
      const deleted = await db
        .updateTable('sandbox_publications')
        .set({ status: 'deleted', deleted_at: now().toISOString() })
        .where('platform', '=', platform)
        .where('external_id', '=', externalId)
        .where('status', '!=', 'deleted')
        .returning('id')
        .execute();
      return deleted.length > 0 ? { kind: 'deleted' } : { kind: 'not_found' };
    },

    // Faults are not drawn here: they simulate publishing trouble, and a metrics read has nothing to lose.
    async fetchMetrics(context, request): Promise<MetricsFetch> {
      await authorize(context);
      const [reading] = await readMetrics([request]);
      return reading!;
    },

    // Like the platforms that take a list of ids: one read for many posts.
    async fetchMetricsBatch(context, requests): Promise<MetricsFetch[]> {
      await authorize(context);
      return readMetrics(requests);
    },

    async accountStats(context): Promise<AccountStats> {
      await authorize(context);
      const account = context.account;
      // A real platform refuses the read to a grant without its scope; so does the sandbox.
      const missing = missingAudienceScopes(platform, account.accountExternalId, context.tokens.scopes);
      if (missing)
        throw new ConnectorError(
          'permanent',
          `${label}: reading follower counts needs the ${missing.join(' or ')} scope; reconnect the account to grant it`,
          { status: 403, platformCode: 'needs_permission' },
        );
      const at = now();
      const [published] = await db
        .selectFrom('sandbox_publications')
        .select((eb) => eb.fn.countAll<string>().as('posts'))
        .where('platform', '=', platform)
        .where('account_external_id', '=', account.accountExternalId)
        .where('status', '!=', 'deleted')
        .where('ready_at', '<=', at.toISOString())
        .execute();
      return {
        ...sandboxAudience({ platform, accountExternalId: account.accountExternalId, now: at }),
        posts: Number(published?.posts ?? 0),
      };
    },

    async accountInfo(context) {
      await authorize(context);
      const row = await db
        .selectFrom('sandbox_accounts')
        .select(['handle', 'name'])
        .where('platform', '=', platform)
        .where('external_id', '=', context.account.accountExternalId)
        .executeTakeFirst();
      const handle = row?.handle ?? context.account.accountHandle ?? defaultSandboxAccount(platform);
      return profileFor(context.account.accountExternalId, handle, row?.name ?? displayName(handle));
    },
  };

  // X automation's repost, deterministic: a post the sandbox published and has not deleted is reposted (a
  // repeated repost, as on X, changes nothing); any other is not found. Nothing is recorded: a repost makes no new
  // publication.
  if (platform === 'x') {
    connector.repost = async (context, request) => {
      await authorize(context);
      const live = await db
        .selectFrom('sandbox_publications')
        .select('id')
        .where('platform', '=', platform)
        .where('external_id', '=', request.externalId)
        .where('status', '!=', 'deleted')
        .executeTakeFirst();
      return live ? { kind: 'reposted' } : { kind: 'not_found' };
    };
  }

  if (platform === 'linkedin') {
    connector.connectChoice = async (tokens, optionIds) => {
      if (optionIds.length === 0) throw new ConnectorError('permanent', `${label}: no organization chosen`);
      const chosen = optionIds.map((id) => {
        const organization = sandboxLinkedinOrganizations.find((o) => o.id === id);
        if (!organization)
          throw new ConnectorError(
            'permanent',
            `${label}: organization ${id} is not administered by this member`,
            {
              status: 403,
            },
          );
        return organization;
      });
      const accounts: ConnectedAccount[] = [];
      for (const organization of chosen) {
        const externalId = `urn:li:organization:${organization.id}`;
        await recordSandboxAccount(db, {
          platform,
          externalId,
          handle: organization.vanityName ?? organization.id,
          name: organization.name,
        });
        accounts.push({
          profile: {
            ...profileFor(externalId, organization.vanityName ?? organization.id, organization.name),
            accountBio: `A LinkedIn sandbox page.`,
          },
          tokens: { ...tokens, extra: { ...tokens.extra, authorUrn: externalId } },
        });
      }
      return accounts;
    };
  }

  if (platform === 'bluesky') {
    connector.connectWithAppPassword = async (handle, appPassword) => {
      const normalized = handle.trim().replace(/^@/, '').toLowerCase();
      if (!SANDBOX_ACCOUNT_NAME.test(normalized))
        throw new ConnectorError(
          'permanent',
          `${label}: "${normalized.slice(0, 64)}" is not a valid handle`,
          {
            status: 400,
          },
        );
      // Same wording as Bluesky's for a wrong password; the password itself never appears.
      if (!APP_PASSWORD.test(appPassword))
        throw new ConnectorError(
          'permanent',
          `${label}: Invalid identifier or password (use an app password)`,
          {
            status: 401,
            platformCode: 'AuthenticationRequired',
          },
        );
      return connect(normalized);
    };
  }

  // LinkedIn: reading a post by its URN (./linkedin-reads.ts).
  if (platform === 'linkedin') Object.assign(connector, createSandboxLinkedInReads({ db, now, authorize }));

  // X: reading posts, conversations and the account's own timeline (./x-reads.ts).
  if (platform === 'x') Object.assign(connector, createSandboxXReads({ db, base, now, authorize }));
  // X: the account's personalized trends for the research tools (./x-trends.ts).
  if (platform === 'x') Object.assign(connector, createSandboxXTrends({ now, authorize }));

  // X and Reddit: the reply inbox. Reads are generated (./engagement.ts); a reply is a publication of the account
  // (post_id `engagement-reply:<the post answered>`, so two replies to one post show as a duplicate in the
  // sandbox's statistics), drawn from the same faults as a publish: a `timeout` records the reply or not (½ each)
  // and answers unknown_outcome; `pending` is no fault for a reply (a comment is there at once).
  if (platform === 'x' || platform === 'reddit') {
    const replyKey = (reply: EngagementReply) => `engagement-reply:${reply.inReplyTo}`;
    const recordReply = (context: CallContext, reply: EngagementReply) =>
      record(
        context,
        { postId: replyKey(reply), idempotencyKey: replyKey(reply), contentText: reply.text },
        'published',
        'comment',
      );
    Object.assign(connector, createSandboxEngagement({ platform, now, authorize }));
    connector.sendEngagementReply = async (context, reply): Promise<EngagementReplyOutcome> => {
      await authorize(context);
      if (!reply.inReplyTo.trim() || !reply.text.trim())
        throw new ConnectorError('permanent', `${label}: a reply needs a post to answer and a text`, {
          status: 400,
        });
      // `pending` is no fault for a reply: a comment is there at once.
      await simulateCreate(() => recordReply(context, reply));
      return recordReply(context, reply);
    };
    connector.findEngagementReply = async (context, reply) => {
      await authorize(context);
      const row = await db
        .selectFrom('sandbox_publications')
        .select(['external_id', 'url'])
        .where('platform', '=', platform)
        .where('account_external_id', '=', context.account.accountExternalId)
        .where('post_id', '=', replyKey(reply))
        .where('text', '=', reply.text)
        .where('status', '!=', 'deleted')
        .orderBy('id')
        .executeTakeFirst();
      return row ? { externalId: row.external_id, url: row.url } : null;
    };
  }

  if (platform === 'tiktok') {
    connector.creatorInfo = async (context): Promise<TikTokCreatorInfo> => {
      const profile = await connector.accountInfo(context);
      return {
        creatorAvatarUrl: null,
        creatorUsername: profile.accountHandle,
        creatorNickname: profile.accountName,
        privacyLevelOptions: [
          'PUBLIC_TO_EVERYONE',
          'MUTUAL_FOLLOW_FRIENDS',
          'FOLLOWER_OF_CREATOR',
          'SELF_ONLY',
        ],
        commentDisabled: false,
        duetDisabled: false,
        stitchDisabled: true,
        maxVideoPostDurationSec: 600,
        directPostEnabled: true,
      };
    };
  }

  return connector;
}
