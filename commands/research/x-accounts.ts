// X accounts to follow (issue 31, part 3), POST ORG/inspiration/x-accounts (suggest_x_accounts): X recent search for
// the topics (those asked, else the strategy's pillars and the newsjacking keywords) with the workspace's X account,
// the authors of what it found ranked by how much they post on the topics, their reach and engagement; each post
// returned costs `x_post_read` (reserved first, charged for what X returned, nothing when X fails). Without an X
// account, or when X fails, the curated set's accounts matching the topics answer, labelled as such. Follows
// nobody, saves nothing.
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { matchedTerms, uniqueTerms, type ResearchSource } from '../../domain/research/sources.js';
import type { EngagementCandidate } from '../../infra/connectors/engagement.js';
import { curatedSet, curatedSource } from '../../infra/research/curated.js';
import { xSearchQuery } from '../engagement/inbox-refresh.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import {
  clip,
  onX,
  paidXRead,
  quotedTerm,
  workspaceTerms,
  xAccountOf,
  xWarning,
  type ResearchDeps,
} from './shared.js';

export const xAccountLimits = {
  topics: 5,
  topicLength: 100,
  pageSize: 50,
  pages: 2,
  defaultLimit: 10,
  most: 20,
} as const;

export interface SuggestedXAccount {
  handle: string;
  name: string | null;
  followers: number | null;
  /** Why: what they posted about, how much, their reach. */
  reason: string;
  matchedTerms: string[];
  /** Their post the suggestion rests on (the most engaging found); null for a curated suggestion. */
  samplePostUrl: string | null;
  samplePostText: string | null;
  /** 0-100 among this answer's suggestions. */
  score: number;
  profileUrl: string;
}

export interface XAccountsAnswer {
  accounts: SuggestedXAccount[];
  topics: string[];
  source: ResearchSource;
  warnings: string[];
  creditsUsed: number;
}

const suggesting = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

function topicsOf(input: { topics?: string[] | undefined }, terms: string[]): string[] {
  if (input.topics === undefined) return terms.slice(0, xAccountLimits.topics);
  const problems = input.topics.flatMap((t, i) =>
    t.trim().length === 0 || t.trim().length > xAccountLimits.topicLength
      ? [{ path: `topics.${i}`, message: `1 to ${xAccountLimits.topicLength} characters` }]
      : [],
  );
  if (input.topics.length > xAccountLimits.topics)
    problems.push({ path: 'topics', message: `at most ${xAccountLimits.topics} topics` });
  if (problems.length > 0) throw new InvalidFields('Invalid topics', problems);
  return uniqueTerms(input.topics);
}

function curatedAccounts(topics: readonly string[], warnings: string[], limit: number): XAccountsAnswer {
  const set = curatedSet();
  const accounts = set.xAccounts
    .map((a, i) => {
      const matched = topics.filter(
        (t) =>
          matchedTerms(`${a.name} ${a.keywords.join(' ')}`, [t]).length > 0 ||
          matchedTerms(t, a.keywords).length > 0,
      );
      return { a, i, matched };
    })
    .filter(({ matched }) => topics.length === 0 || matched.length > 0)
    .sort((x, y) => y.matched.length - x.matched.length || x.i - y.i)
    .slice(0, limit);
  const top = Math.max(1, ...accounts.map((x) => x.matched.length));
  if (accounts.length === 0) warnings.push('The curated set has no account on these topics');
  return {
    accounts: accounts.map(({ a, matched }) => ({
      handle: a.handle,
      name: a.name,
      followers: null,
      reason: a.reason,
      matchedTerms: matched,
      samplePostUrl: null,
      samplePostText: null,
      score: topics.length === 0 ? 0 : Math.round((matched.length / top) * 100),
      profileUrl: `https://x.com/${a.handle}`,
    })),
    topics: [...topics],
    source: curatedSource(set),
    warnings,
    creditsUsed: 0,
  };
}

/** The authors of the posts found, ranked: posts on the topics, engagement, then reach. */
export function rankAuthors(
  posts: readonly EngagementCandidate[],
  topics: readonly string[],
  exclude: string | null,
  limit: number,
): SuggestedXAccount[] {
  const byHandle = new Map<string, EngagementCandidate[]>();
  for (const p of posts) {
    const handle = p.author.handle;
    if (!handle || handle.toLowerCase() === exclude?.toLowerCase()) continue;
    const key = handle.toLowerCase();
    byHandle.set(key, [...(byHandle.get(key) ?? []), p]);
  }
  const raw = [...byHandle.values()].map((mine) => {
    const best = [...mine].sort((a, b) => b.likeCount + b.replyCount - (a.likeCount + a.replyCount))[0]!;
    const followers = mine.map((p) => p.author.followers).find((f) => f !== null) ?? null;
    const engagement = mine.reduce((n, p) => n + p.likeCount + p.replyCount, 0);
    const matched = uniqueTerms(mine.flatMap((p) => matchedTerms(p.text, topics)));
    const weight =
      Math.min(mine.length, 5) * 2 + Math.log10(1 + engagement) * 2 + Math.log10(1 + (followers ?? 0));
    return { mine, best, followers, engagement, matched, weight };
  });
  const top = Math.max(0, ...raw.map((r) => r.weight));
  return raw
    .sort((a, b) => b.weight - a.weight)
    .slice(0, limit)
    .map((r) => {
      const handle = r.best.author.handle!;
      return {
        handle,
        name: r.best.author.name,
        followers: r.followers,
        reason:
          `${r.mine.length} recent post(s)${r.matched.length > 0 ? ` on ${r.matched.join(', ')}` : ''}, ` +
          `${r.engagement} likes and replies` +
          (r.followers !== null ? `, ${r.followers.toLocaleString('en-US')} followers` : ''),
        matchedTerms: r.matched,
        samplePostUrl: r.best.url,
        samplePostText: clip(r.best.text, 200),
        score: top > 0 ? Math.round((r.weight / top) * 100) : 0,
        profileUrl: `https://x.com/${handle}`,
      };
    });
}

/** Tool: suggest_x_accounts. */
export async function suggestXAccounts(
  deps: ResearchDeps,
  caller: Caller,
  input: { orgId: string; topics?: string[] | undefined; limit?: number | undefined },
  request: WriteRequest,
): Promise<Written<XAccountsAnswer>> {
  const { orgId } = input;
  authorize(caller, suggesting(orgId));
  const { terms } = await workspaceTerms(deps.commands, orgId, request.now);
  const topics = topicsOf(input, terms);
  const limit = input.limit ?? xAccountLimits.defaultLimit;
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    const warnings: string[] = [];
    if (topics.length === 0) {
      warnings.push('No topics: name topics, or add pillars to the strategy or newsjacking keywords');
      return curatedAccounts(topics, warnings, limit);
    }
    const x = await xAccountOf(deps, orgId);
    if (!x.ok) {
      warnings.push(`X: ${x.message}; the curated set answers (nothing was charged)`);
      return curatedAccounts(topics, warnings, limit);
    }
    const account = x.account;
    const connector = deps.connectors.get('x');
    const read = connector.readEngagement?.bind(connector);
    const query = xSearchQuery(topics.map(quotedTerm), warnings, 'X search');
    if (!read || !query) {
      warnings.push('X search is not available in this build');
      return curatedAccounts(topics, warnings, limit);
    }
    try {
      const found = await paidXRead(
        deps,
        caller,
        request,
        {
          orgId,
          seed: idempotencySeed,
          label: 'research-accounts',
          actionKey: 'x_post_read',
          unitCost: deps.xPostCost,
          most: xAccountLimits.pageSize * xAccountLimits.pages,
          feature: 'research',
          metadata: { socialAccountId: account.id, read: 'account_search', topics },
          used: (posts) => posts.length,
        },
        async () => {
          const posts: EngagementCandidate[] = [];
          let nextToken: string | null = null;
          for (let page = 0; page < xAccountLimits.pages; page++) {
            const answer = await onX(deps, account, (context) =>
              read(context, {
                source: 'x_search',
                query,
                sinceId: null,
                nextToken,
                max: xAccountLimits.pageSize,
              }),
            );
            posts.push(...answer.items.filter((p) => p.platform === 'x'));
            nextToken = answer.nextToken;
            if (!nextToken) break;
          }
          return posts;
        },
      );
      return {
        accounts: rankAuthors(found.result, topics, account.accountHandle, limit),
        topics,
        source: {
          kind: 'live',
          name: `X recent search (@${account.accountHandle ?? account.accountExternalId})`,
          asOf: request.now,
          url: null,
        },
        warnings,
        creditsUsed: found.creditsUsed,
      };
    } catch (error) {
      warnings.push(xWarning('X search', error));
      return curatedAccounts(topics, warnings, limit);
    }
  });
}
