// The X sandbox's reads as a platform: the same post for the same id and clock, realistic fields (authors,
// hashtags, links, media, quotes), deleted and hidden posts, conversations whose posts read back by id in their
// place, publications read back with their text, and the account's own timeline (its publications and posts
// made elsewhere) with numbers and an audience that moves day to day; revoked access refused.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallContext, PlatformConnector } from '../../infra/connectors/port.js';
import {
  createSandboxConnector,
  issueAuthorizationCode,
  sandboxMigrations,
  setSandboxAccountRevoked,
  staticFaultSource,
  type SandboxTables,
} from '../../infra/connectors/sandbox/index.js';
import type { XPost } from '../../infra/connectors/x-reads.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { connectorFailure } from './support/connector-fixtures.js';

const BASE = 'http://sandbox.test';
const verifier = 'a-verifier-of-enough-length-0123456789-abcdefghij';
let database: TestDatabase<SandboxTables>;
let db: Kysely<SandboxTables>;
let at = Date.parse('2026-03-10T12:00:00.000Z');

beforeAll(async () => {
  database = await createTestDatabase<SandboxTables>(sandboxMigrations);
  db = database.db;
});
afterAll(async () => {
  await database?.drop();
});
beforeEach(async () => {
  at = Date.parse('2026-03-10T12:00:00.000Z');
  await sql`truncate sandbox_publications, sandbox_accounts, sandbox_authorization_codes, sandbox_x_posts`.execute(
    db,
  );
});

const x = (): PlatformConnector =>
  createSandboxConnector('x', {
    db,
    publicBaseUrl: BASE,
    faults: staticFaultSource('none'),
    pendingMs: 0,
    timeoutDelayMs: 0,
    now: () => new Date(at),
  });

async function connected(handle = 'sandbox_x'): Promise<CallContext> {
  const connector = x();
  const callbackUrl = `${BASE}/v1/marketing/oauth/x/callback`;
  const { code } = await issueAuthorizationCode(db, {
    platform: 'x',
    accountHandle: handle,
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    redirectUri: callbackUrl,
    now: new Date(at),
  });
  const result = await connector.completeAuthorization({
    params: { code, state: 's' },
    callbackUrl,
    codeVerifier: verifier,
  });
  if (result.kind !== 'accounts') throw new Error('expected accounts');
  const account = result.accounts[0]!;
  return {
    account: {
      id: '00000000-0000-4000-8000-000000000001',
      orgId: '00000000-0000-4000-8000-000000000002',
      platform: 'x',
      accountExternalId: account.profile.accountExternalId,
      accountHandle: account.profile.accountHandle,
      xSubscription: null,
    },
    tokens: account.tokens,
    fetchMedia: () => Promise.reject(new Error('no media')),
  };
}

const readOne = async (context: CallContext, id: string, includeMedia = true): Promise<XPost> => {
  const { posts, missing } = await x().readXPosts!(context, { ids: [id], includeMedia });
  expect(missing).toEqual([]);
  return posts[0]!;
};

/** Ids of posts that open a conversation with a thread and replies. */
async function conversationWithThread(
  context: CallContext,
): Promise<{ root: XPost; thread: XPost[]; replies: XPost[] }> {
  for (let n = 0; n < 300; n++) {
    const id = String(1790000000000000000n + BigInt(n) * 104729n);
    const root = await readOne(context, id);
    const conversation = await x().readXConversation!(context, {
      conversationId: id,
      authorId: root.author!.id,
      includeReplies: true,
      includeMedia: false,
      limit: 100,
    });
    if (conversation.thread.length >= 2 && conversation.replies.length >= 2) return { root, ...conversation };
  }
  throw new Error('no conversation with a thread and replies');
}

describe('posts by id', () => {
  it('are the same for the same id and clock, with realistic fields', async () => {
    const context = await connected();
    const ids = Array.from({ length: 40 }, (_, i) => String(1790000000000000000n + BigInt(i) * 7919n));
    const first = await x().readXPosts!(context, { ids, includeMedia: true });
    const second = await x().readXPosts!(context, { ids, includeMedia: true });
    expect(second).toEqual(first);
    expect(first.posts).toHaveLength(40);
    for (const post of first.posts) {
      expect(post.url).toBe(`https://x.com/${post.author!.handle}/status/${post.id}`);
      expect(post.hashtags.length).toBeGreaterThan(0);
      expect(post.text).toContain(`#${post.hashtags[0]}`);
      expect(post.media).toHaveLength(post.mediaCount);
      expect(post.metrics.impressions!).toBeGreaterThanOrEqual(post.metrics.likes);
      // A real X id carries its creation time.
      expect(Date.parse(post.createdAt!)).toBeLessThanOrEqual(at);
    }
    // Across many posts: several authors, photos, videos or GIFs, links and quoted posts.
    expect(new Set(first.posts.map((p) => p.author!.handle)).size).toBeGreaterThan(3);
    expect(first.posts.some((p) => p.media.some((m) => m.type === 'photo'))).toBe(true);
    expect(first.posts.some((p) => p.media.some((m) => m.type !== 'photo' && m.variants.length > 0))).toBe(
      true,
    );
    expect(first.posts.some((p) => p.links[0]?.expandedUrl)).toBe(true);
    const quoting = first.posts.find((p) => p.referencedPosts.some((r) => r.type === 'quoted'));
    expect(quoting?.referencedPosts[0]?.post).toMatchObject({ referencedPosts: [] });
    // Media only when asked; the count always.
    const bare = await x().readXPosts!(context, { ids, includeMedia: false });
    expect(bare.posts.every((p) => p.media.length === 0)).toBe(true);
    expect(bare.posts.map((p) => p.mediaCount)).toEqual(first.posts.map((p) => p.mediaCount));
  });

  it('numbers grow with the post’s age', async () => {
    const context = await connected();
    const id = String(BigInt(at - 1_288_834_974_657 - 3_600_000) << 22n);
    const young = await readOne(context, id);
    at += 3 * 24 * 3_600_000;
    // The sandbox's tokens last two hours: a fresh grant at the later time.
    const older = await readOne(await connected(), id);
    expect(older.metrics.impressions!).toBeGreaterThan(young.metrics.impressions!);
  });

  it('ids ending 404 are deleted posts, 403 hidden ones', async () => {
    const context = await connected();
    const result = await x().readXPosts!(context, {
      ids: ['1790000000000000404', '1790000000000000403', '1790000000000000000'],
      includeMedia: false,
    });
    expect(result.posts.map((p) => p.id)).toEqual(['1790000000000000000']);
    expect(result.missing).toEqual([
      { id: '1790000000000000404', reason: 'not_found' },
      { id: '1790000000000000403', reason: 'not_authorized' },
    ]);
  });

  it('a publication reads back with its text by the account, and is gone once deleted', async () => {
    const context = await connected('acme_team');
    const published = await x().publish(context, {
      postId: 'post-1',
      idempotencyKey: 'publish:post-1:1',
      groupTitle: 'T',
      contentText: 'Big news for $ACME fans #launch with @maya_builds',
      media: null,
      platformPayload: null,
      attemptStartedAt: new Date(at).toISOString(),
    });
    if (published.kind !== 'published') throw new Error('expected published');
    const post = await readOne(context, published.externalId);
    expect(post).toMatchObject({
      text: 'Big news for $ACME fans #launch with @maya_builds',
      hashtags: ['launch'],
      mentions: ['maya_builds'],
      cashtags: ['ACME'],
      author: { id: context.account.accountExternalId, handle: 'acme_team' },
    });
    await x().delete(context, published.externalId);
    expect(
      (await x().readXPosts!(context, { ids: [published.externalId], includeMedia: false })).missing,
    ).toEqual([{ id: published.externalId, reason: 'not_found' }]);
  });
});

describe('conversations', () => {
  it('hold the author’s thread in order and others’ replies; each reads back by id in its place', async () => {
    const context = await connected();
    const { root, thread, replies } = await conversationWithThread(context);
    expect(thread.every((p) => p.author!.id === root.author!.id)).toBe(true);
    expect(thread[0]!.inReplyToPostId).toBe(root.id);
    expect(thread[1]!.inReplyToPostId).toBe(thread[0]!.id);
    expect(thread[0]!.text).toMatch(/^2\/\d+ /);
    expect(root.text).toMatch(/^1\/\d+ /);
    expect(replies.every((p) => p.author!.id !== root.author!.id && p.inReplyToPostId === root.id)).toBe(
      true,
    );
    expect(replies.every((p) => p.mentions.includes(root.author!.handle!))).toBe(true);
    const times = [...thread, ...replies].map((p) => Date.parse(p.createdAt!));
    expect(times.every((t) => t > Date.parse(root.createdAt!))).toBe(true);
    // As many replies as the root's number says (while they fit under the cap).
    expect(replies).toHaveLength(Math.min(root.metrics.replies, 40));

    const again = await readOne(context, thread[1]!.id, false);
    expect(again).toEqual(thread[1]);
    expect((await readOne(context, replies[0]!.id, false)).conversationId).toBe(root.id);
    // A thread part's own conversation is its root's: asked as a root, it has none.
    const none = await x().readXConversation!(context, {
      conversationId: thread[0]!.id,
      authorId: root.author!.id,
      includeReplies: true,
      includeMedia: false,
      limit: 10,
    });
    expect(none).toEqual({ thread: [], replies: [], hasMore: false });
  });

  it('limit cuts the thread first, then the replies, and says more exist', async () => {
    const context = await connected();
    const { root, thread } = await conversationWithThread(context);
    const cut = await x().readXConversation!(context, {
      conversationId: root.id,
      authorId: root.author!.id,
      includeReplies: true,
      includeMedia: false,
      limit: 1,
    });
    expect(cut.thread.map((p) => p.id)).toEqual([thread[0]!.id]);
    expect(cut.replies).toEqual([]);
    expect(cut.hasMore).toBe(true);
  });
});

describe("the account's own timeline", () => {
  it('holds its publications and posts made elsewhere since the time asked, with numbers', async () => {
    const context = await connected('timeline_owner');
    const published = await x().publish(context, {
      postId: 'post-2',
      idempotencyKey: 'publish:post-2:1',
      groupTitle: 'T',
      contentText: 'Published here',
      media: null,
      platformPayload: null,
      attemptStartedAt: new Date(at).toISOString(),
    });
    if (published.kind !== 'published') throw new Error('expected published');
    at += 6 * 3_600_000;
    const since = new Date(at - 30 * 24 * 3_600_000).toISOString();
    const later = await connected('timeline_owner');
    const activity = await x().readXAccountActivity!(later, { since, timezone: 'Europe/Berlin' });
    expect(activity.posts.some((p) => p.id === published.externalId && p.kind === 'post')).toBe(true);
    expect(activity.posts.filter((p) => p.kind === 'reply').length).toBeGreaterThan(0);
    expect(activity.posts.length).toBeGreaterThan(20);
    for (const p of activity.posts) {
      expect(Date.parse(p.createdAt)).toBeGreaterThanOrEqual(Date.parse(since));
      expect(Date.parse(p.createdAt)).toBeLessThanOrEqual(at);
    }
    // Newest first, the same again at the same clock.
    const times = activity.posts.map((p) => Date.parse(p.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(await x().readXAccountActivity!(later, { since, timezone: 'Europe/Berlin' })).toEqual(activity);
    expect(activity.audience.followers).toBeGreaterThan(0);
    // Followers move from one day to the next.
    const counts = new Set<number | null>();
    for (let d = 0; d < 5; d++) {
      at += 24 * 3_600_000;
      const fresh = await connected('timeline_owner');
      counts.add(
        (await x().readXAccountActivity!(fresh, { since: new Date(at).toISOString(), timezone: 'UTC' }))
          .audience.followers,
      );
    }
    expect(counts.size).toBeGreaterThan(1);
  });

  it('refuses an account whose access was revoked', async () => {
    const context = await connected('revoked_one');
    await setSandboxAccountRevoked(db, 'x', context.account.accountExternalId, true);
    const failure = await connectorFailure(
      x().readXAccountActivity!(context, { since: new Date(at - 86_400_000).toISOString(), timezone: 'UTC' }),
    );
    expect(failure.kind).toBe('auth');
    expect((await connectorFailure(x().readXPosts!(context, { ids: ['1'], includeMedia: false }))).kind).toBe(
      'auth',
    );
  });
});
