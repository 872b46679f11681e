// Trending topics (issue 31, part 3). find_trending_topics (POST ORG/inspiration/trends/search) researches live with
// the workspace's X account: its personalized trends (`x_trends_read`) and, for each topic (those asked, else the
// strategy's pillars and the newsjacking keywords), a sample of recent posts from X recent search (`x_post_read` per
// post returned), ranked by momentum; the answer is kept (research_trends). get_trending_topics (GET
// ORG/inspiration/trends) spends nothing: the last research, labelled `cached` with its time, or the curated set.
// Without an X account, or when X fails, the curated set answers, labelled as such. Posts nothing.
import { sql } from 'kysely';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import { matchedTerms, uniqueTerms, type ResearchSource } from '../../domain/research/sources.js';
import { momentumOf, type TopicMomentum, type TrendingTopic } from '../../domain/research/trends.js';
import type { EngagementCandidate } from '../../infra/connectors/engagement.js';
import { curatedSet, curatedSource } from '../../infra/research/curated.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import { researchReading } from './newsjacking-settings.js';
import {
  clip,
  onX,
  paidXRead,
  quotedTerm,
  workspaceTerms,
  xAccountOf,
  xWarning,
  X_TRENDS_READ,
  type ResearchDeps,
} from './shared.js';

export const trendLimits = {
  topics: 5,
  topicLength: 100,
  /** Posts sampled per topic (one page of X recent search). */
  samplePerTopic: 25,
  topPosts: 3,
  list: 50,
} as const;

export interface TopicResearch extends TopicMomentum {
  matchedTerms: string[];
  topPosts: { url: string; text: string; authorHandle: string | null; likes: number; replies: number }[];
}

export interface TrendsAnswer {
  /** Where the answer as a whole came from; each topic says its own. */
  source: ResearchSource;
  topics: TrendingTopic[];
  /** The topics researched on X recent search, busiest first; empty when none was. */
  research: TopicResearch[];
  warnings: string[];
  creditsUsed: number;
}

const findWriting = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

/** The curated set's topics, those matching the workspace's terms first. */
export function curatedTopics(terms: readonly string[]): TrendingTopic[] {
  const set = curatedSet();
  const source = curatedSource(set);
  return set.trends
    .map((t) => {
      const text = `${t.name} ${t.keywords.join(' ')}`;
      // A workspace term matches when the topic mentions it, or it mentions one of the topic's keywords.
      const matched = terms.filter(
        (term) => matchedTerms(text, [term]).length > 0 || matchedTerms(term, t.keywords).length > 0,
      );
      return {
        name: t.name,
        category: t.category,
        postCount: null,
        trendingSince: null,
        matchedTerms: matched,
        source,
      };
    })
    .map((t, i) => ({ t, i }))
    .sort((a, b) => b.t.matchedTerms.length - a.t.matchedTerms.length || a.i - b.i)
    .map(({ t }) => t);
}

function curatedAnswer(terms: readonly string[], warnings: string[], limit: number): TrendsAnswer {
  const set = curatedSet();
  return {
    source: curatedSource(set),
    topics: curatedTopics(terms).slice(0, limit),
    research: [],
    warnings,
    creditsUsed: 0,
  };
}

/** Tool: get_trending_topics. Spends nothing and never calls X. */
export async function getTrendingTopics(
  deps: ResearchDeps,
  caller: Caller,
  input: { orgId: string; limit?: number | undefined },
  now: string,
): Promise<TrendsAnswer> {
  authorize(caller, researchReading(input.orgId));
  const limit = input.limit ?? 20;
  const { rows } = await sql<{ fetched_at: Date | string; answer: TrendsAnswer | string }>`
    select fetched_at, answer from research_trends where org_id = ${input.orgId}`.execute(deps.db);
  const row = rows[0];
  if (!row) {
    const { terms } = await workspaceTerms(deps.commands, input.orgId, now);
    return curatedAnswer(
      terms,
      ['No live research yet: find_trending_topics reads X with the connected account (spends credits).'],
      limit,
    );
  }
  const kept = (typeof row.answer === 'string' ? JSON.parse(row.answer) : row.answer) as TrendsAnswer;
  const asCached = (s: ResearchSource): ResearchSource => (s.kind === 'live' ? { ...s, kind: 'cached' } : s);
  return {
    ...kept,
    source: asCached(kept.source),
    topics: kept.topics.slice(0, limit).map((t) => ({ ...t, source: asCached(t.source) })),
    creditsUsed: 0,
  };
}

function topicsOf(input: { topics?: string[] | undefined }, pillars: string[], terms: string[]): string[] {
  if (input.topics === undefined) return uniqueTerms([...pillars, ...terms]).slice(0, trendLimits.topics);
  const problems = input.topics.flatMap((t, i) =>
    t.trim().length === 0 || t.trim().length > trendLimits.topicLength
      ? [{ path: `topics.${i}`, message: `1 to ${trendLimits.topicLength} characters` }]
      : [],
  );
  if (input.topics.length > trendLimits.topics)
    problems.push({ path: 'topics', message: `at most ${trendLimits.topics} topics` });
  if (problems.length > 0) throw new InvalidFields('Invalid topics', problems);
  return uniqueTerms(input.topics);
}

/** Tool: find_trending_topics. */
export async function findTrendingTopics(
  deps: ResearchDeps,
  caller: Caller,
  input: { orgId: string; topics?: string[] | undefined; includeTrends?: boolean | undefined },
  request: WriteRequest,
): Promise<Written<TrendsAnswer>> {
  const { orgId } = input;
  authorize(caller, findWriting(orgId));
  const { pillars, terms } = await workspaceTerms(deps.commands, orgId, request.now);
  const topics = topicsOf(input, pillars, terms);
  return runWrite(deps.idempotency, caller, request, async ({ idempotencySeed }) => {
    const warnings: string[] = [];
    const x = await xAccountOf(deps, orgId);
    if (!x.ok)
      return curatedAnswer(
        terms,
        [`X: ${x.message}; the curated set answers (nothing was charged)`],
        trendLimits.list,
      );
    const account = x.account;
    const connector = deps.connectors.get('x');
    const liveSource = (name: string): ResearchSource => ({
      kind: 'live',
      name: `${name} (@${account.accountHandle ?? account.accountExternalId})`,
      asOf: request.now,
      url: null,
    });
    let creditsUsed = 0;
    let trends: TrendingTopic[] | null = null;
    const readTrends = connector.readXTrends?.bind(connector);
    if (input.includeTrends !== false && readTrends) {
      try {
        const read = await paidXRead(
          deps,
          caller,
          request,
          {
            orgId,
            seed: idempotencySeed,
            label: 'research-trends',
            actionKey: X_TRENDS_READ,
            unitCost: deps.xTrendsCost,
            most: 1,
            feature: 'research',
            metadata: { socialAccountId: account.id, read: 'personalized_trends' },
            used: () => 1,
          },
          () => onX(deps, account, (context) => readTrends(context)),
        );
        creditsUsed += read.creditsUsed;
        const source = liveSource('X personalized trends');
        trends = read.result.trends.map((t) => ({
          ...t,
          matchedTerms: matchedTerms(t.name, terms),
          source,
        }));
        if (trends.length === 0)
          warnings.push(
            'X answered no personalized trends for this account (X lists them for Premium accounts)',
          );
      } catch (error) {
        warnings.push(xWarning('X trends', error));
      }
    }
    const research: TopicResearch[] = [];
    const read = connector.readEngagement?.bind(connector);
    if (topics.length === 0)
      warnings.push(
        'No topics to research: name topics, or add pillars to the strategy or newsjacking keywords',
      );
    else if (!read) warnings.push('X search is not available in this build');
    else {
      try {
        const sampled = await paidXRead(
          deps,
          caller,
          request,
          {
            orgId,
            seed: idempotencySeed,
            label: 'research-search',
            actionKey: 'x_post_read',
            unitCost: deps.xPostCost,
            most: topics.length * trendLimits.samplePerTopic,
            feature: 'research',
            metadata: { socialAccountId: account.id, read: 'trend_search', topics },
            used: (r) => r.reduce((n, s) => n + s.posts.length, 0),
          },
          async () => {
            const out: { topic: string; posts: EngagementCandidate[] }[] = [];
            for (const topic of topics) {
              const page = await onX(deps, account, (context) =>
                read(context, {
                  source: 'x_search',
                  query: `${quotedTerm(topic)} -is:retweet`,
                  sinceId: null,
                  nextToken: null,
                  max: trendLimits.samplePerTopic,
                }),
              );
              out.push({ topic, posts: page.items.filter((p) => p.platform === 'x') });
            }
            return out;
          },
        );
        creditsUsed += sampled.creditsUsed;
        const momentum = momentumOf(
          sampled.result.map((s) => ({
            topic: s.topic,
            posts: s.posts.map((p) => ({ postedAt: p.postedAt, likes: p.likeCount, replies: p.replyCount })),
          })),
          request.now,
        );
        for (const [i, m] of momentum.entries()) {
          const posts = sampled.result[i]!.posts;
          research.push({
            ...m,
            matchedTerms: matchedTerms(m.topic, terms),
            topPosts: [...posts]
              .sort((a, b) => b.likeCount + b.replyCount - (a.likeCount + a.replyCount))
              .slice(0, trendLimits.topPosts)
              .map((p) => ({
                url: p.url,
                text: clip(p.text, 200),
                authorHandle: p.author.handle,
                likes: p.likeCount,
                replies: p.replyCount,
              })),
          });
        }
        research.sort((a, b) => b.score - a.score);
      } catch (error) {
        warnings.push(xWarning('X search', error));
      }
    }
    const answer: TrendsAnswer =
      trends === null && research.length === 0
        ? { ...curatedAnswer(terms, warnings, trendLimits.list), creditsUsed }
        : {
            source: liveSource(
              trends !== null ? 'X personalized trends and recent search' : 'X recent search',
            ),
            topics: trends ?? curatedTopics(terms),
            research,
            warnings,
            creditsUsed,
          };
    if (answer.source.kind === 'live')
      await sql`
        insert into research_trends (org_id, fetched_at, answer)
        values (${orgId}, ${request.now}, ${JSON.stringify(answer)}::jsonb)
        on conflict (org_id) do update set fetched_at = excluded.fetched_at, answer = excluded.answer`.execute(
        deps.db,
      );
    return answer;
  });
}
