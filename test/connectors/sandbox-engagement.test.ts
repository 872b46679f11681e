// The sandbox's reply-inbox side as a platform: the same pages for the same account, query and clock, two or
// three pages joined by nextToken, newer posts as the clock moves (and `sinceId` stopping at the ones seen), X
// mentions with the post they answer, a community read of community posts only, Reddit threads in the asked
// subreddits; a reply recorded so it is found afterwards (and only with its exact text), a lost answer under an
// injected timeout fault, and revoked access refused.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EngagementPage, EngagementQuery } from '../../infra/connectors/engagement.js';
import type { CallContext, PlatformConnector } from '../../infra/connectors/port.js';
import type { Platform } from '../../domain/shared/platforms.js';
import {
  createSandboxConnector,
  issueAuthorizationCode,
  sandboxMigrations,
  sandboxStats,
  setSandboxAccountRevoked,
  staticFaultSource,
  type SandboxTables,
} from '../../infra/connectors/sandbox/index.js';
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
  await sql`truncate sandbox_publications, sandbox_accounts, sandbox_authorization_codes`.execute(db);
});

const sandbox = (platform: Platform, faults = 'none', random?: () => number): PlatformConnector =>
  createSandboxConnector(platform, {
    db,
    publicBaseUrl: BASE,
    faults: staticFaultSource(faults),
    pendingMs: 0,
    timeoutDelayMs: 0,
    now: () => new Date(at),
    ...(random ? { random } : {}),
  });

async function connected(platform: Platform, handle = 'sandbox_acct'): Promise<CallContext> {
  const callbackUrl = `${BASE}/v1/marketing/oauth/${platform}/callback`;
  const { code } = await issueAuthorizationCode(db, {
    platform,
    accountHandle: handle,
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    redirectUri: callbackUrl,
    now: new Date(at),
  });
  const result = await sandbox(platform).completeAuthorization({
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
      platform,
      accountExternalId: account.profile.accountExternalId,
      accountHandle: account.profile.accountHandle,
      xSubscription: null,
    },
    tokens: account.tokens,
    fetchMedia: () => Promise.reject(new Error('no media')),
  };
}

/** Every page of a read, following nextToken. */
async function allPages(connector: PlatformConnector, context: CallContext, query: EngagementQuery) {
  const pages: EngagementPage[] = [];
  let nextToken: string | null = null;
  do {
    const page: EngagementPage = await connector.readEngagement!(context, { ...query, nextToken });
    pages.push(page);
    nextToken = page.nextToken;
  } while (nextToken && pages.length < 10);
  return pages;
}

const mentions: EngagementQuery = { source: 'x_mentions', sinceId: null, nextToken: null, max: 10 };

describe('reading', () => {
  it('answers the same pages for the same account, query and clock: two or three, joined by nextToken', async () => {
    const context = await connected('x');
    const first = await allPages(sandbox('x'), context, mentions);
    const again = await allPages(sandbox('x'), context, mentions);
    expect(again).toEqual(first);
    expect(first.length).toBeGreaterThanOrEqual(2);
    expect(first.length).toBeLessThanOrEqual(3);
    const items = first.flatMap((p) => p.items);
    // Newest first, each post once, ids like X's, a deleted post or two simply absent (at most 10 a page).
    expect(new Set(items.map((i) => i.externalId)).size).toBe(items.length);
    expect(items.every((i) => /^\d{19}$/.test(i.externalId))).toBe(true);
    const times = items.map((i) => Date.parse(i.postedAt!));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(times.every((t) => t <= at)).toBe(true);
    expect(first[0]!.newestId).toBe(items[0]!.externalId);
    for (const item of items) {
      expect(item.platform).toBe('x');
      expect(item.text).toMatch(/^@sandbox_acct /);
      expect(item.url).toBe(`https://x.com/${item.author.handle}/status/${item.externalId}`);
      expect(item.author.followers).toBeGreaterThan(0);
    }
    // Some mentions answer a post of the account's, and say what it said.
    expect(items.some((i) => i.inReplyToText !== null)).toBe(true);
    // Another query reads other posts.
    const search = await allPages(sandbox('x'), context, {
      source: 'x_search',
      query: '"content calendar" OR from:maya_builds -is:retweet',
      sinceId: null,
      nextToken: null,
      max: 10,
    });
    const searchItems = search.flatMap((p) => p.items);
    expect(searchItems.map((i) => i.externalId)).not.toEqual(items.map((i) => i.externalId));
    expect(searchItems.every((i) => i.text.includes('content calendar'))).toBe(true);
    // Mentions and searches hold a community post now and then.
    expect([...items, ...searchItems].some((i) => i.kind === 'community' && i.community !== null)).toBe(true);
  });

  it('finds newer posts as the clock moves, and sinceId stops at the posts seen', async () => {
    const context = await connected('x');
    const before = await sandbox('x').readEngagement!(context, mentions);
    at += 6 * 3_600_000;
    // The same account, with tokens of the later clock.
    const { tokens } = await connected('x');
    const laterContext = { ...context, tokens };
    const later = await sandbox('x').readEngagement!(laterContext, { ...mentions, sinceId: before.newestId });
    expect(later.items.length).toBeGreaterThan(0);
    expect(later.items.every((i) => BigInt(i.externalId) > BigInt(before.newestId!))).toBe(true);
    // A post read before reads the same later.
    const wide = (await allPages(sandbox('x'), laterContext, mentions)).flatMap((p) => p.items);
    const seen = before.items.find((i) => wide.some((w) => w.externalId === i.externalId));
    expect(seen).toBeDefined();
    expect(wide.find((w) => w.externalId === seen!.externalId)).toEqual(seen);
  });

  it('reads a community’s posts, each a community post with the community’s name', async () => {
    const context = await connected('x');
    const pages = await allPages(sandbox('x'), context, {
      source: 'x_community',
      communityId: '1471580197908586507',
      nextToken: null,
      max: 5,
    });
    const items = pages.flatMap((p) => p.items);
    expect(items.length).toBeGreaterThan(0);
    expect(new Set(items.map((i) => i.community)).size).toBe(1);
    expect(items.every((i) => i.kind === 'community' && i.community)).toBe(true);
  });

  it('reads Reddit threads of the asked subreddits, with titles naming the search', async () => {
    const context = await connected('reddit');
    const pages = await allPages(sandbox('reddit'), context, {
      source: 'reddit_search',
      query: 'scheduling tool',
      subreddits: ['r/SaaS', 'startups'],
      nextToken: null,
      max: 8,
    });
    const items = pages.flatMap((p) => p.items);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    for (const item of items) {
      expect(item.platform).toBe('reddit');
      expect(item.externalId).toMatch(/^t3_[a-z0-9]{7}$/);
      expect(['SaaS', 'startups']).toContain(item.community);
      expect(item.title).toContain('scheduling tool');
      expect(item.url).toMatch(
        new RegExp(`^https://www\\.reddit\\.com/r/${item.community}/comments/${item.externalId.slice(3)}/`),
      );
    }
    // X sources are not read on Reddit, and a revoked grant reads nothing.
    expect((await connectorFailure(sandbox('reddit').readEngagement!(context, mentions))).kind).toBe(
      'permanent',
    );
    await setSandboxAccountRevoked(db, 'reddit', context.account.accountExternalId, true);
    expect(
      (
        await connectorFailure(
          sandbox('reddit').readEngagement!(context, {
            source: 'reddit_search',
            query: 'x',
            subreddits: [],
            nextToken: null,
            max: 5,
          }),
        )
      ).kind,
    ).toBe('auth');
  });
});

describe('replying', () => {
  it('records a reply so it is found afterwards, only with its exact text', async () => {
    for (const platform of ['x', 'reddit'] as const) {
      const context = await connected(platform);
      const inReplyTo = platform === 'x' ? '1861000000000000003' : 't3_1h3a9zq';
      const reply = { inReplyTo, text: 'Thanks for asking! Happy to help.' };
      expect(await sandbox(platform).findEngagementReply!(context, reply)).toBeNull();
      const sent = await sandbox(platform).sendEngagementReply!(context, reply);
      expect(sent.externalId).toMatch(platform === 'x' ? /^\d{19}$/ : /^t1_/);
      expect(sent.url).toBe(`${BASE}/v1/sandbox/${platform}/posts/${encodeURIComponent(sent.externalId)}`);
      expect(await sandbox(platform).findEngagementReply!(context, reply)).toEqual(sent);
      expect(await sandbox(platform).findEngagementReply!(context, { ...reply, text: 'Thanks!' })).toBeNull();
      expect(
        await sandbox(platform).findEngagementReply!(context, { ...reply, inReplyTo: `${inReplyTo}0` }),
      ).toBeNull();
    }
    expect((await sandboxStats(db)).duplicates).toEqual([]);
  });

  it('an injected timeout loses the answer: recorded or not, findEngagementReply tells which', async () => {
    const context = await connected('x');
    const reply = { inReplyTo: '1861000000000000003', text: 'On it.' };
    // The first draw picks the fault (timeout), the second whether the reply was recorded before the loss.
    const draws = (values: number[]) => () => values.shift() ?? 0.99;
    const recorded = await connectorFailure(
      sandbox('x', 'timeout=1', draws([0.1, 0.2])).sendEngagementReply!(context, reply),
    );
    expect(recorded.kind).toBe('unknown_outcome');
    expect(await sandbox('x').findEngagementReply!(context, reply)).not.toBeNull();

    const other = { inReplyTo: '1861000000000000004', text: 'On it.' };
    const lost = await connectorFailure(
      sandbox('x', 'timeout=1', draws([0.1, 0.9])).sendEngagementReply!(context, other),
    );
    expect(lost.kind).toBe('unknown_outcome');
    expect(await sandbox('x').findEngagementReply!(context, other)).toBeNull();

    const rejected = await connectorFailure(sandbox('x', 'reject=1').sendEngagementReply!(context, other));
    expect(rejected.kind).toBe('permanent');
    expect(await sandbox('x').findEngagementReply!(context, other)).toBeNull();
  });
});
