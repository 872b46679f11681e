// "Reads charge exactly once per post returned; a failed read charges nothing", as a property of the read use
// cases (get_x_post, get_x_thread) over random sequences of reads: posts, roots and conversations that overlap
// (a post that is its own root, a thread part that is also the post asked), X failing at any step, posts that
// are not there, balances too small for a read's most, Idempotency-Keys repeated, and the answer's record lost
// after the charge (a crash), so the retry reaches the ledger again. The ledger is a model of the credit
// ledger's contract (reserve before, charge after, release on failure, one charge per key).
import fc from 'fast-check';
import { expect, test } from 'vitest';
import {
  readXPost,
  readXThread,
  type XReadDeps,
  type XReadUsage,
} from '../../commands/x-posts/read-x-posts.js';
import type { IdempotencyStore, StoredResponse } from '../../commands/shared/idempotency.js';
import type { SpendInput } from '../../commands/billing/credits.js';
import { PaymentRequired } from '../../domain/shared/errors.js';
import { ConnectorError, type PlatformConnector } from '../../infra/connectors/port.js';
import type { XPost } from '../../infra/connectors/x-reads.js';
import { propertyRuns } from '../support/property-runs.js';
import { member, writeRequest } from '../support/callers.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const ws = {
  orgId,
  userIds: {
    owner: '00000000-0000-4000-8000-0000000000b1',
    admin: '00000000-0000-4000-8000-0000000000b2',
    reviewer: '00000000-0000-4000-8000-0000000000b3',
    editor: '00000000-0000-4000-8000-0000000000b4',
    viewer: '00000000-0000-4000-8000-0000000000b5',
  },
};
const account = {
  id: '00000000-0000-4000-8000-0000000000a1',
  orgId,
  platform: 'x' as const,
  accountExternalId: '42',
  accountHandle: 'acme',
  xSubscription: null,
};

const ids = ['101', '102', '103', '104', '105', '106'];
const idArb = fc.constantFrom(...ids);

/** What X holds and does for one read. */
interface World {
  postMissing: boolean;
  /** Null: the post is its own root. */
  rootId: string | null;
  rootMissing: boolean;
  thread: string[];
  replies: string[];
  failAt: 'none' | 'post' | 'root' | 'conversation';
  failKind: 'retryable' | 'rate_limited' | 'auth' | 'permanent';
}

const worldArb: fc.Arbitrary<World> = fc.record({
  postMissing: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  rootId: fc.option(idArb, { nil: null }),
  rootMissing: fc.boolean(),
  thread: fc.array(idArb, { maxLength: 5 }),
  replies: fc.array(idArb, { maxLength: 5 }),
  failAt: fc.constantFrom('none', 'none', 'none', 'post', 'root', 'conversation'),
  failKind: fc.constantFrom('retryable', 'rate_limited', 'auth', 'permanent'),
});

interface Read {
  kind: 'read' | 'thread';
  post: string;
  includeReplies: boolean;
  limit: number;
  /** An Idempotency-Key from a small pool (so keys repeat), or none. */
  key: string | null;
  /** The answer's record is lost after the charge (the caller sees an error and retries). */
  crash: boolean;
  world: World;
}

const readArb: fc.Arbitrary<Read> = fc.record({
  kind: fc.constantFrom('read', 'thread'),
  post: idArb,
  includeReplies: fc.boolean(),
  limit: fc.integer({ min: 1, max: 6 }),
  key: fc.option(fc.constantFrom('k1', 'k2', 'k3'), { nil: null }),
  crash: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  world: worldArb,
});

const xPost = (id: string, conversationId: string): XPost => ({
  id,
  url: `https://x.com/acme/status/${id}`,
  text: `post ${id}`,
  createdAt: null,
  lang: 'en',
  author: {
    id: '42',
    handle: 'acme',
    name: 'Acme',
    verified: false,
    followers: 10,
    profileImageUrl: null,
    bio: null,
  },
  metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0, bookmarks: 0, impressions: null },
  conversationId,
  inReplyToPostId: null,
  links: [],
  hashtags: [],
  mentions: [],
  cashtags: [],
  possiblySensitive: false,
  mediaCount: 0,
  media: [],
  referencedPosts: [],
});

/** The credit ledger's contract: credits held before the call, charged after (once per key), released on failure. */
class LedgerModel {
  charged = new Map<string, number>();
  constructor(
    public balance: number,
    private readonly cost: number,
  ) {}

  async withCredits<T>(
    input: SpendInput,
    call: () => Promise<T>,
    options: { actual?: (result: T) => { credits?: number } } = {},
  ) {
    const first = this.charged.get(input.key);
    if (first !== undefined) {
      const result = await call();
      return { result, charge: this.outcome(first, true) };
    }
    const held = this.cost * (input.quantity ?? 1);
    if (held > this.balance) throw new PaymentRequired('Not enough credits', 'fair_use_limit');
    this.balance -= held;
    let result: T;
    try {
      result = await call();
    } catch (error) {
      this.balance += held;
      throw error;
    }
    const credits = options.actual?.(result).credits ?? held;
    expect(credits).toBeLessThanOrEqual(held);
    this.balance += held - credits;
    this.charged.set(input.key, credits);
    return { result, charge: this.outcome(credits, false) };
  }

  private outcome(credits: number, replayed: boolean) {
    return {
      creditsUsed: credits,
      remainingCredits: this.balance,
      fromMonthly: credits,
      fromPurchased: 0,
      monthlyAfter: this.balance,
      purchasedAfter: 0,
      periodKey: 'p',
      replayed,
    };
  }
}

/** The Idempotency-Key records, in memory; `crashNext` loses the next record (the answer is never stored). */
class KeysModel {
  records = new Map<string, { hash: string; response: StoredResponse }>();
  crashNext = false;
  async replay(request: { scope: string; key: string; requestHash: string }) {
    await Promise.resolve();
    const found = this.records.get(`${request.scope}:${request.key}`);
    if (found && found.hash !== request.requestHash) throw new Error('key reused');
    return found?.response ?? null;
  }
  record(): Promise<void> {
    return Promise.reject(new Error('reads record their answers standalone'));
  }
  recordStandalone(request: { scope: string; key: string; requestHash: string }, response: StoredResponse) {
    if (this.crashNext) {
      this.crashNext = false;
      return Promise.reject(new Error('crashed before the answer was stored'));
    }
    this.records.set(`${request.scope}:${request.key}`, { hash: request.requestHash, response });
    return Promise.resolve();
  }
}

/** X for one read at a time: its first post lookup is the post asked, a second one its root. */
function connectorFor(
  world: () => { w: World; lookups: number },
): Pick<PlatformConnector, 'readXPosts' | 'readXConversation'> {
  const fail = (w: World) => {
    throw new ConnectorError(w.failKind, `x: simulated ${w.failKind}`, { retryAfterMs: 1000 });
  };
  return {
    readXPosts: async (_context, request) => {
      const state = world();
      const w = state.w;
      const id = request.ids[0]!;
      const asked = state.lookups++ === 0 ? 'post' : 'root';
      if (w.failAt === asked) fail(w);
      const missing = asked === 'root' ? w.rootMissing : w.postMissing;
      if (missing) return { posts: [], missing: [{ id, reason: 'not_found' as const }] };
      return { posts: [xPost(id, asked === 'root' ? id : (w.rootId ?? id))], missing: [] };
    },
    readXConversation: async (_context, request) => {
      const w = world().w;
      if (w.failAt === 'conversation') fail(w);
      const replies = request.includeReplies ? w.replies : [];
      const thread = w.thread.slice(0, request.limit);
      const kept = replies.slice(0, Math.max(0, request.limit - thread.length));
      return {
        thread: thread.map((id) => xPost(id, request.conversationId)),
        replies: kept.map((id) => xPost(id, request.conversationId)),
        hasMore: thread.length + kept.length < w.thread.length + replies.length,
      };
    },
  };
}

/** What the read should answer (its distinct posts), or null when X fails or the post is not there. */
function expectedPosts(read: Read): number | null {
  const w = read.world;
  if (w.failAt === 'post' || w.postMissing) return null;
  if (read.kind === 'read') return 1;
  const rootIsPost = w.rootId === null || w.rootId === read.post;
  if (!rootIsPost && w.failAt === 'root') return null;
  if (w.failAt === 'conversation') return null;
  const posts = new Set([read.post]);
  if (rootIsPost || !w.rootMissing) posts.add(rootIsPost ? read.post : w.rootId!);
  const thread = w.thread.slice(0, read.limit);
  const replies = (read.includeReplies ? w.replies : []).slice(0, Math.max(0, read.limit - thread.length));
  for (const id of [...thread, ...replies]) posts.add(id);
  return posts.size;
}

test('every read charges once per distinct post it returned; failed and refused reads charge nothing', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(readArb, { minLength: 1, maxLength: 12 }),
      fc.integer({ min: 0, max: 40 }),
      fc.constantFrom(1, 2, 3),
      async (reads, balance, cost) => {
        const ledger = new LedgerModel(balance, cost);
        const keys = new KeysModel();
        let current = { w: reads[0]!.world, lookups: 0 };
        const deps: XReadDeps = {
          idempotency: keys as unknown as IdempotencyStore,
          accounts: {
            resolve: () => Promise.resolve({ ok: true as const, account }),
            withTokens: (_account, call) =>
              call({ accessToken: 't', refreshToken: null, expiresAt: null, scopes: [] }),
          },
          connectors: { get: () => connectorFor(() => current) as PlatformConnector },
          credits: ledger,
          postCost: cost,
        };
        const caller = member(ws, 'editor');
        // Per key: the answer the first successful call gave (a replay must give it again).
        const answered = new Map<string, XReadUsage>();
        let expectedSpent = 0;
        const chargedKeys = new Set<string>();
        for (const read of reads) {
          current = { w: read.world, lookups: 0 };
          const hash = `${read.kind}:${read.post}:${read.includeReplies}:${read.limit}`;
          const request = writeRequest(read.key ?? undefined, hash);
          const before = ledger.balance;
          // Only a keyed request has an answer to store (and lose).
          const crash = read.crash && read.key !== null;
          keys.crashNext = crash;
          const storedBefore = read.key
            ? await keys
                .replay({ scope: caller.userId, key: read.key, requestHash: hash })
                .catch(() => 'reused' as const)
            : null;
          let usage: XReadUsage | null = null;
          let error: unknown = null;
          try {
            const input = { orgId, post: read.post, includeReplies: read.includeReplies, limit: read.limit };
            usage =
              read.kind === 'read'
                ? (await readXPost(deps, caller, input, request)).output.usage
                : (await readXThread(deps, caller, input, request)).output.usage;
          } catch (e) {
            error = e;
          }
          keys.crashNext = false;
          if (storedBefore === 'reused') {
            // The key answered another request first: refused, nothing charged.
            expect(error).not.toBeNull();
            expect(ledger.balance).toBe(before);
            continue;
          }
          if (storedBefore) {
            // Replayed from the record: the first answer, nothing charged.
            expect(usage).toEqual(answered.get(read.key!));
            expect(ledger.balance).toBe(before);
            continue;
          }
          const posts = expectedPosts(read);
          const mostHeld = cost * (read.kind === 'read' ? 1 : read.limit + 2);
          const creditKey = `${read.key}:${hash}`;
          const creditKeyCharged = read.key !== null && chargedKeys.has(creditKey);
          if (posts === null) {
            expect(error).not.toBeNull();
            expect(ledger.balance).toBe(before);
            continue;
          }
          if (!creditKeyCharged && mostHeld > before) {
            expect(error).toMatchObject({ status: 402, code: 'fair_use_limit' });
            expect(ledger.balance).toBe(before);
            continue;
          }
          const charge = creditKeyCharged ? 0 : posts * cost;
          expect(before - ledger.balance).toBe(charge);
          expectedSpent += charge;
          if (read.key) chargedKeys.add(creditKey);
          if (crash) {
            expect(error).not.toBeNull();
            continue;
          }
          expect(error).toBeNull();
          expect(usage).toEqual({
            postsReturned: posts,
            postsCharged: creditKeyCharged ? 0 : posts,
            creditsUsed: charge,
          });
          if (read.key) answered.set(read.key, usage!);
        }
        expect(balance - ledger.balance).toBe(expectedSpent);
      },
    ),
    { numRuns: propertyRuns(300) },
  );
});
