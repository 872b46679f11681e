// An inspiration item read against the workspace's strategy (issue 31): its relevance score (0–100) and the
// breakdown behind it, the pillars and priorities it speaks to, and why it matters. Pure and deterministic: the
// score is never stored in the item's events but computed from the item and the strategy wherever the item is shown
// (the read model recomputes a workspace's items when its strategy changes), so a new pillar keyword raises at once
// the items that mention it. The weights are documented in docs/decisions.md, "Inspiration library (issue 31)".
import { priorityStatusAt, shownVersionOf, type StrategyState } from '../strategy/strategy.js';
import type { InspirationItem } from './item.js';

/** What of the strategy an item is read against. */
export interface StrategyLens {
  strategyId: string;
  version: number;
  pillars: { name: string; keywords: string[] }[];
  /** Priorities in force at the time of reading. */
  priorities: string[];
  targetAudience: string;
}

export interface ScoreBreakdown {
  strategyFit: number;
  audienceFit: number;
  quality: number;
  freshness: number;
  engagement: number;
}

export interface Interpretation {
  relevanceScore: number;
  whyItMatters: string;
  scoreBreakdown: ScoreBreakdown;
  matchedPillars: string[];
  matchedPriorities: string[];
  strategyNotes: string[];
  strategyId: string;
  strategyVersion: number;
}

/** The weights of the breakdown in the score (they add up to 1). */
export const relevanceWeights: ScoreBreakdown = {
  strategyFit: 0.45,
  audienceFit: 0.15,
  quality: 0.15,
  freshness: 0.1,
  engagement: 0.15,
};

/** The strategy shown (active, else the draft) as an item is read against it at `now`; null with none. */
export function strategyLensOf(state: StrategyState, now: string): StrategyLens | null {
  if (state.status !== 'exists') return null;
  const version = shownVersionOf(state);
  if (!version) return null;
  return {
    strategyId: state.strategyId,
    version: version.version,
    pillars: version.content.pillars.map((p) => ({ name: p.name, keywords: p.keywords ?? [] })),
    priorities: version.content.priorities
      .filter((p) => priorityStatusAt(p, now) === 'active')
      .map((p) => p.text),
    targetAudience: version.content.targetAudience,
  };
}

const stopWords = new Set(
  'about after also and are but can for from have into just more most not our out over than that the their them then there these they this those through very was were what when which while who why will with you your'.split(
    ' ',
  ),
);

/** Lower case, letters and digits only, single spaces: phrases match on whole words. */
export const normalizeText = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}+#]+/gu, ' ')
    .trim();

const significantWords = (text: string) =>
  [...new Set(normalizeText(text).split(' '))].filter((w) => w.length > 3 && !stopWords.has(w));

/** Whether `phrase` stands in `haystack` (both normalised) as whole words. */
const mentions = (haystack: string, phrase: string) => {
  const p = normalizeText(phrase);
  return p.length > 0 && ` ${haystack} `.includes(` ${p} `);
};

/** The words an item is matched on: its text, its analysis' topic and keywords, and its tags. */
export function matchableTextOf(item: Pick<InspirationItem, 'contentText' | 'analysis' | 'tags'>): string {
  const a = item.analysis;
  return normalizeText([item.contentText, a?.topic ?? '', ...(a?.keywords ?? []), ...item.tags].join(' \n '));
}

const clamp = (n: number) => Math.max(0, Math.min(100, Math.round(n)));

function engagementScore(item: Pick<InspirationItem, 'engagement'>): number {
  const e = item.engagement;
  if (!e) return 30;
  const total =
    (e.likes ?? 0) + 2 * (e.comments ?? 0) + 3 * (e.shares ?? 0) + (e.quotes ?? 0) + (e.bookmarks ?? 0);
  return clamp(20 * Math.log10(1 + total));
}

/** How fresh the post was when it was saved: a day old or less is 100, losing 3 points a day after. */
function freshnessScore(item: Pick<InspirationItem, 'publishedAt' | 'createdAt'>): number {
  if (!item.publishedAt) return 60;
  const days = (Date.parse(item.createdAt) - Date.parse(item.publishedAt)) / 86_400_000;
  if (!Number.isFinite(days)) return 60;
  return clamp(days <= 1 ? 100 : 100 - 3 * (days - 1));
}

const listed = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/** The item read against the strategy (see the module's comment); null when the workspace has no strategy. */
export function interpret(
  item: Pick<
    InspirationItem,
    'contentText' | 'analysis' | 'tags' | 'engagement' | 'publishedAt' | 'createdAt'
  >,
  lens: StrategyLens | null,
): Interpretation | null {
  if (!lens) return null;
  const text = matchableTextOf(item);
  const notes: string[] = [];

  const matchedPillars: string[] = [];
  let extraHits = 0;
  for (const pillar of lens.pillars) {
    const terms = new Set([pillar.name, ...pillar.keywords].map(normalizeText).filter((t) => t.length > 0));
    const hits = [...terms].filter((t) => mentions(text, t));
    if (hits.length === 0) continue;
    matchedPillars.push(pillar.name);
    extraHits += hits.length - 1;
    notes.push(`Pillar "${pillar.name}": mentions ${hits.map((h) => `"${h}"`).join(', ')}`);
  }
  const matchedPriorities = lens.priorities.filter((priority) => {
    const words = significantWords(priority);
    if (words.length === 0) return false;
    const found = words.filter((w) => mentions(text, w)).length;
    return found >= Math.min(2, words.length);
  });
  for (const p of matchedPriorities) notes.push(`Current priority: ${p}`);

  const strategyFit = clamp(40 * matchedPillars.length + 15 * extraHits + 20 * matchedPriorities.length);
  const audienceWords = significantWords(lens.targetAudience);
  const audienceText = normalizeText(`${text} ${item.analysis?.audience ?? ''}`);
  const sharedAudience = audienceWords.filter((w) => mentions(audienceText, w));
  const audienceFit = audienceWords.length === 0 ? 50 : clamp(30 + 35 * sharedAudience.length);
  if (sharedAudience.length > 0) notes.push(`Audience overlap: ${sharedAudience.join(', ')}`);
  const quality = item.analysis ? clamp(item.analysis.qualityScore) : 50;
  const scoreBreakdown: ScoreBreakdown = {
    strategyFit,
    audienceFit,
    quality,
    freshness: freshnessScore(item),
    engagement: engagementScore(item),
  };
  const relevanceScore = clamp(
    (Object.keys(relevanceWeights) as (keyof ScoreBreakdown)[]).reduce(
      (sum, k) => sum + relevanceWeights[k] * scoreBreakdown[k],
      0,
    ),
  );
  if (lens.pillars.length === 0) notes.push('The strategy has no pillars yet');

  let whyItMatters: string;
  if (matchedPillars.length > 0) {
    whyItMatters = `Speaks to your pillar${matchedPillars.length > 1 ? 's' : ''} ${listed(matchedPillars)}`;
    if (matchedPriorities.length > 0) whyItMatters += ` and your current priority "${matchedPriorities[0]}"`;
    whyItMatters += item.analysis?.format ? `; its ${item.analysis.format} format is worth borrowing.` : '.';
  } else if (matchedPriorities.length > 0) {
    whyItMatters = `Touches your current priority "${matchedPriorities[0]}".`;
  } else {
    whyItMatters = item.analysis
      ? `Outside your pillars; kept for its ${item.analysis.format} format and hook.`
      : 'Outside your pillars so far.';
  }
  return {
    relevanceScore,
    whyItMatters,
    scoreBreakdown,
    matchedPillars,
    matchedPriorities,
    strategyNotes: notes,
    strategyId: lens.strategyId,
    strategyVersion: lens.version,
  };
}
