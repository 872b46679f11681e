// The research tools' operations (issue 31, part 3), under the inspiration tag at paths the spec leaves unshown
// (docs/decisions.md, "Research tools (issue 31)"): trends (cached/curated read; live research spending credits),
// niche news, viral post formats, platform algorithm hints, X accounts to follow, newsjacking settings. Every answer
// names its source: live, cached or the curated set (dated). Nothing here publishes, follows or posts.
import { X_POST_READ } from '../../commands/x-posts/read-x-posts.js';
import { getNicheNews } from '../../commands/research/news.js';
import {
  getNewsjackingSettings,
  updateNewsjackingSettings,
} from '../../commands/research/newsjacking-settings.js';
import { getPlatformAlgorithmHints, listViralPostFormats } from '../../commands/research/references.js';
import { X_TRENDS_READ, type ResearchDeps } from '../../commands/research/shared.js';
import { findTrendingTopics, getTrendingTopics, type TrendsAnswer } from '../../commands/research/trends.js';
import { suggestXAccounts } from '../../commands/research/x-accounts.js';
import type { ResearchSource } from '../../domain/research/sources.js';
import type { Kysely } from 'kysely';
import { sharedFeedParser } from '../../infra/research/feed-parser.js';
import { billingServices } from '../billing/services.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import {
  algorithmHintsAnswerSchema,
  algorithmHintsQuery,
  findTrendsBody,
  newsAnswerSchema,
  newsjackingSettingsSchema,
  newsQuery,
  suggestXAccountsBody,
  trendsAnswerSchema,
  trendsQuery,
  updateNewsjackingSettingsBody,
  viralFormatsAnswerSchema,
  xAccountsAnswerSchema,
} from './schemas.js';

const operation = operationsWith<ResearchDeps>();
const base = '/v1/orgs/{orgId}/inspiration';
const reading = { permission: 'workspace:read', scope: 'mcp:read' } as const;
/** Research that spends credits: owners, admins and editors (the "Draft" row); assistants with posts:write. */
const researching = { permission: 'posts:draft', scope: 'posts:write', billing: 'paid' } as const;
const readHints = { readOnlyHint: true, openWorldHint: false } as const;

const sourceWords = (s: ResearchSource) =>
  s.kind === 'curated' ? `curated set "${s.name}" as of ${s.asOf}` : `${s.kind}: ${s.name} at ${s.asOf}`;

const trendsSummary = (t: TrendsAnswer) =>
  `${t.topics.length} topic(s) (${sourceWords(t.source)})` +
  (t.topics.length > 0
    ? `: ${t.topics
        .slice(0, 8)
        .map((x) => x.name)
        .join(', ')}`
    : '') +
  (t.research.length > 0
    ? `; researched: ${t.research.map((r) => `${r.topic} ${r.postsPerHour}/h (score ${r.score})`).join(', ')}`
    : '') +
  `; ${t.creditsUsed} credit(s) used` +
  (t.warnings.length > 0 ? `; warnings: ${t.warnings.join(' | ')}` : '') +
  '. Nothing was posted.';

export const researchOperations = operationGroup(
  (ctx): ResearchDeps => {
    const billing = ctx.use(billingServices);
    const db = ctx.database.db as unknown as Kysely<unknown>;
    return {
      ...ctx.services,
      credits: billing.credits,
      xPostCost: billing.catalog.actionCost(X_POST_READ)?.credits ?? 0,
      xTrendsCost: billing.catalog.actionCost(X_TRENDS_READ)?.credits ?? 0,
      db,
      feeds: {
        db,
        parser: sharedFeedParser,
        policy: ctx.options.outbound ?? {},
        ...(ctx.options.fetchTimeoutMs ? { timeoutMs: ctx.options.fetchTimeoutMs } : {}),
        onUnreadable: (url, reason) => ctx.logger.info({ url, reason }, 'news feed unreadable'),
      },
    };
  },
  [
    operation({
      name: 'get_trending_topics',
      kind: 'read',
      method: 'get',
      path: `${base}/trends`,
      tags: ['inspiration'],
      summary:
        'Trending topics without spending: the last live research (cached, dated) or the curated set, labelled',
      params: orgParams,
      query: trendsQuery,
      output: trendsAnswerSchema,
      outputDescription: 'Trending topics and where they came from',
      errors: [400, 401, 403],
      access: reading,
      tool: {
        title: 'Get trending topics',
        description:
          'Returns trending topics without calling X or spending credits: what find_trending_topics found last ' +
          '(source.kind cached, with asOf), else the curated set shipped with the service (source.kind curated, ' +
          'dated, its name says whose), the topics matching the workspace’s pillars and keywords first. Each ' +
          'topic has name, category, postCount, trendingSince and matchedTerms; research lists topic momentum ' +
          'from the last live research. Read-only.',
        hints: readHints,
        summary: trendsSummary,
      },
      run: (deps, { caller, request }, input) => getTrendingTopics(deps, caller, input, request.now),
    }),
    operation({
      name: 'find_trending_topics',
      kind: 'write',
      method: 'post',
      path: `${base}/trends/search`,
      tags: ['inspiration'],
      summary:
        "Research trends live on X with the workspace's account (personalized trends, topic momentum); spends credits",
      params: orgParams,
      body: findTrendsBody,
      bodyRequired: false,
      output: trendsAnswerSchema,
      outputDescription: 'Trending topics and the topics researched',
      errors: [400, 401, 402, 403, 409, 413, 422, 429, 503],
      access: researching,
      tool: {
        title: 'Find trending topics',
        description:
          "Researches what is trending now with the workspace's connected X account: X's personalized trends " +
          '(x_trends_read credits) and, for each topic (topics, at most 5; default the strategy’s pillars and ' +
          'the newsjacking keywords), a sample of recent X posts measured for momentum (posts per hour, ' +
          'engagement, the top posts; x_post_read credits per post returned). Credits are reserved before X is ' +
          'asked and charged for what it returned; a failed read charges nothing and says so in warnings. ' +
          'Without an X account the curated set answers (source.kind curated). The answer is kept for ' +
          'get_trending_topics. Posts nothing.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
        summary: trendsSummary,
      },
      run: (deps, { caller, request }, input) => findTrendingTopics(deps, caller, input, request),
    }),
    operation({
      name: 'get_niche_news',
      kind: 'read',
      method: 'get',
      path: `${base}/news`,
      tags: ['inspiration'],
      summary:
        "News for the workspace's niche: its RSS/Atom feeds (or the curated set), matched to its pillars and keywords",
      params: orgParams,
      query: newsQuery,
      output: newsAnswerSchema,
      outputDescription: 'News items, the most relevant first',
      errors: [400, 401, 403],
      access: reading,
      tool: {
        title: 'Get niche news',
        description:
          'Returns news items from the RSS, Atom or JSON feeds the newsjacking settings name (read at most every ' +
          '30 minutes; a feed that fails is a warning), or, when the workspace reads no feed, the curated set’s ' +
          'reference items (source.kind curated, dated). Items are matched to the strategy’s pillars, their ' +
          'keywords and the newsjacking keywords (or query), scored 0-100 (terms and freshness), alert when at or ' +
          'above the alert threshold; items with an exclude term are left out. matchedOnly=false lists unmatched ' +
          'items too. Read-only; spends nothing.',
        hints: { readOnlyHint: true, openWorldHint: true },
        summary: (n) =>
          n.items.length === 0
            ? `No news items match${n.terms.length > 0 ? ` ${n.terms.slice(0, 5).join(', ')}` : ''}.` +
              (n.warnings.length > 0 ? ` Warnings: ${n.warnings.join(' | ')}` : '')
            : `${n.items.length} item(s), ${n.items.filter((i) => i.alert).length} alert(s): ` +
              n.items
                .slice(0, 5)
                .map((i) => `"${i.title}" (${i.relevance}, ${i.source.kind})`)
                .join('; ') +
              (n.warnings.length > 0 ? `. Warnings: ${n.warnings.join(' | ')}` : '.'),
      },
      run: (deps, { caller, request }, input) => getNicheNews(deps, caller, input, request.now),
    }),
    operation({
      name: 'list_viral_post_formats',
      kind: 'read',
      method: 'get',
      path: `${base}/formats`,
      tags: ['inspiration'],
      summary: 'The documented viral post formats the drafting jobs write in',
      params: orgParams,
      output: viralFormatsAnswerSchema,
      outputDescription: 'Viral post formats',
      errors: [400, 401, 403],
      access: reading,
      tool: {
        title: 'List viral post formats',
        description:
          'Lists the post formats that travel on X and LinkedIn which the service’s drafting uses (the same ' +
          'catalogue draft_post_from_thought picks from): key, name, when it works, its structure in order, and ' +
          'the thought kinds it suits. Read-only.',
        hints: readHints,
        summary: (f) =>
          `${f.items.length} formats: ${f.items.map((x) => `${x.name} (${x.key})`).join(', ')}.`,
      },
      run: (_deps, { caller }, input) => Promise.resolve(listViralPostFormats(caller, input)),
    }),
    operation({
      name: 'get_platform_algorithm_hints',
      kind: 'read',
      method: 'get',
      path: `${base}/algorithm-hints`,
      tags: ['inspiration'],
      summary: "What each platform's ranking rewards, curated and dated, each hint with its public reference",
      params: orgParams,
      query: algorithmHintsQuery,
      output: algorithmHintsAnswerSchema,
      outputDescription: 'Algorithm hints per platform',
      errors: [400, 401, 403],
      access: reading,
      tool: {
        title: 'Get platform algorithm hints',
        description:
          'Returns hints on what each platform’s ranking rewards (platform: one of them, else all), from the ' +
          'curated set shipped with the service (source.kind curated, dated): each hint has a title, the detail ' +
          'and the public reference it rests on (the platform’s documentation or announcement). Guidance, not a ' +
          'platform’s guarantee. Read-only.',
        hints: readHints,
        summary: (h) =>
          `${sourceWords(h.source)}: ` +
          h.platforms
            .map((p) => `${p.platform} ${p.hints.map((x) => x.title).join('; ') || 'no hints'}`)
            .join(' | '),
      },
      run: (_deps, { caller }, input) => Promise.resolve(getPlatformAlgorithmHints(caller, input)),
    }),
    operation({
      name: 'suggest_x_accounts',
      kind: 'write',
      method: 'post',
      path: `${base}/x-accounts`,
      tags: ['inspiration'],
      summary:
        "X accounts to follow on the workspace's topics, found by X recent search; spends credits, follows nobody",
      params: orgParams,
      body: suggestXAccountsBody,
      bodyRequired: false,
      output: xAccountsAnswerSchema,
      outputDescription: 'Suggested accounts',
      errors: [400, 401, 402, 403, 409, 413, 422, 429, 503],
      access: researching,
      tool: {
        title: 'Suggest X accounts to follow',
        description:
          "Finds X accounts worth following on the workspace's topics (topics, at most 5; default the strategy’s " +
          'pillars and the newsjacking keywords): X recent search with the connected X account, its authors ' +
          'ranked by posts on the topics, engagement and reach, each with the reason and a sample post. Each post ' +
          'returned costs x_post_read credits (reserved first, nothing charged when X fails). Without an X ' +
          'account the curated set answers (source.kind curated). Follows nobody and saves nothing.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
        summary: (a) =>
          `${a.accounts.length} account(s) (${sourceWords(a.source)}): ` +
          a.accounts.map((x) => `@${x.handle} (${x.reason})`).join('; ') +
          `; ${a.creditsUsed} credit(s) used` +
          (a.warnings.length > 0 ? `; warnings: ${a.warnings.join(' | ')}` : '') +
          '. Nobody was followed.',
      },
      run: (deps, { caller, request }, input) => suggestXAccounts(deps, caller, input, request),
    }),
    operation({
      name: 'get_newsjacking_settings',
      kind: 'read',
      method: 'get',
      path: `${base}/newsjacking-settings`,
      tags: ['inspiration'],
      summary:
        "The workspace's newsjacking settings: its news feeds, keywords and alert threshold (defaults when never saved)",
      params: orgParams,
      output: newsjackingSettingsSchema,
      outputDescription: 'Newsjacking settings',
      errors: [400, 401, 403],
      access: reading,
      tool: {
        title: 'Get the newsjacking settings',
        description:
          'Returns what get_niche_news reads and matches: enabled, feeds (each {id, name, url of an RSS, Atom or ' +
          'JSON feed, enabled}), keywords (besides the strategy’s pillars), excludeTerms and alertThreshold ' +
          '(0-100). updatedAt is null while the defaults apply. Read-only.',
        hints: readHints,
        summary: (s) =>
          `Newsjacking ${s.enabled ? 'on' : 'off'}: ${s.feeds.length} feed(s), ${s.keywords.length} keyword(s), ` +
          `${s.excludeTerms.length} exclude term(s), alert threshold ${s.alertThreshold}.`,
      },
      run: (deps, { caller }, input) => getNewsjackingSettings(deps, caller, input),
    }),
    operation({
      name: 'update_newsjacking_settings',
      kind: 'write',
      method: 'patch',
      path: `${base}/newsjacking-settings`,
      tags: ['inspiration'],
      summary: 'Save newsjacking settings: omitted fields stay, lists (feeds too) replace the saved ones',
      params: orgParams,
      body: updateNewsjackingSettingsBody,
      output: newsjackingSettingsSchema,
      outputDescription: 'The settings saved',
      errors: [400, 401, 402, 403, 409, 413, 422, 503],
      access: { permission: 'settings:manage', scope: 'posts:write' },
      tool: {
        title: 'Update the newsjacking settings',
        description:
          'Changes what get_niche_news reads: send only the fields to change; a list replaces the saved one. ' +
          'feeds (at most 20): {url of an RSS, Atom, RDF or JSON feed (http or https), name?, enabled?, id? to ' +
          'keep one}; a feed keeps its id when its url is unchanged. keywords and excludeTerms: 1 to 100 ' +
          'characters, at most 50 each. alertThreshold 0-100. enabled false stops reading the feeds. Fetches and ' +
          'posts nothing.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        summary: (s) =>
          `Saved: newsjacking ${s.enabled ? 'on' : 'off'}, ${s.feeds.length} feed(s), ${s.keywords.length} ` +
          `keyword(s), alert threshold ${s.alertThreshold}.`,
      },
      run: (deps, { caller, request }, input) => updateNewsjackingSettings(deps, caller, input, request),
    }),
  ],
);
