// A fake of the reply inbox's connector methods (infra/connectors/engagement.ts) installed on the runtime's X and
// Reddit connectors: reads answer the posts a test queued per source (pages of `pageSize`), sends and checks are
// recorded and answer what the test says. Every call is logged, so a test can say which paths reached a connector.
import { ConnectorError, type PlatformConnector } from '../../infra/connectors/port.js';
import type {
  EngagementCandidate,
  EngagementQuery,
  EngagementReply,
  EngagementReplyOutcome,
} from '../../infra/connectors/engagement.js';
import type { TestService } from './runtime.js';

export interface FakeEngagement {
  /** Posts each source answers (by query source), oldest last; reads page through them. */
  posts: Partial<Record<EngagementQuery['source'], EngagementCandidate[]>>;
  /** A source that fails with this error. */
  failing: Partial<Record<EngagementQuery['source'], ConnectorError>>;
  reads: { platform: string; query: EngagementQuery }[];
  sends: { platform: string; reply: EngagementReply }[];
  finds: { platform: string; reply: EngagementReply }[];
  /** What the next send does: succeed (default), fail, or post and lose the answer (unknown outcome). */
  sendBehaviour: 'ok' | 'permanent' | 'unknown_posted' | 'unknown_not_posted';
  /** A send waits this long (ms) before answering. */
  sendDelayMs: number;
  /** Replies on the platform (what find answers from). */
  posted: (EngagementReply & EngagementReplyOutcome)[];
}

let seq = 0;

export function candidate(changes: Partial<EngagementCandidate> = {}): EngagementCandidate {
  seq++;
  const id = changes.externalId ?? `17900000000000${String(seq).padStart(5, '0')}`;
  return {
    platform: 'x',
    kind: 'mention',
    externalId: id,
    url: `https://x.com/someone/status/${id}`,
    text: `@acme question number ${seq}: how do you schedule threads?`,
    author: { handle: 'someone', name: 'Someone', followers: 1500 },
    postedAt: new Date().toISOString(),
    likeCount: 4,
    replyCount: 1,
    inReplyToText: null,
    title: null,
    community: null,
    ...changes,
  };
}

export function installFakeEngagement(service: Pick<TestService, 'runtime'>): FakeEngagement {
  const fake: FakeEngagement = {
    posts: {},
    failing: {},
    reads: [],
    sends: [],
    finds: [],
    sendBehaviour: 'ok',
    sendDelayMs: 0,
    posted: [],
  };
  for (const platform of ['x', 'reddit'] as const) {
    const connector: PlatformConnector = service.runtime.connectors.get(platform);
    connector.readEngagement = async (_context, query) => {
      fake.reads.push({ platform, query });
      const failure = fake.failing[query.source];
      if (failure) throw failure;
      const all = (fake.posts[query.source] ?? []).filter((p) => p.platform === platform);
      const start = query.nextToken ? Number(query.nextToken) : 0;
      const items = all.slice(start, start + query.max);
      const next = start + query.max < all.length ? String(start + query.max) : null;
      return { items, nextToken: next, newestId: items[0]?.externalId ?? null, rateLimit: null };
    };
    connector.sendEngagementReply = async (_context, reply) => {
      fake.sends.push({ platform, reply });
      if (fake.sendDelayMs > 0) await new Promise((r) => setTimeout(r, fake.sendDelayMs));
      const outcome = {
        externalId: `reply-${fake.sends.length}`,
        url: `https://example.test/${platform}/reply-${fake.sends.length}`,
      };
      switch (fake.sendBehaviour) {
        case 'permanent':
          throw new ConnectorError('permanent', 'duplicate content', { status: 403 });
        case 'unknown_posted':
          fake.posted.push({ ...reply, ...outcome });
          throw new ConnectorError('unknown_outcome', 'timeout after sending');
        case 'unknown_not_posted':
          throw new ConnectorError('unknown_outcome', 'timeout after sending');
        case 'ok':
          fake.posted.push({ ...reply, ...outcome });
          return outcome;
      }
    };
    connector.findEngagementReply = async (_context, reply) => {
      fake.finds.push({ platform, reply });
      const hit = fake.posted.find((p) => p.inReplyTo === reply.inReplyTo && p.text === reply.text);
      return hit ? { externalId: hit.externalId, url: hit.url } : null;
    };
  }
  return fake;
}
