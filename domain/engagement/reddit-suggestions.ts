// What the reply inbox could listen for on Reddit (suggest_reddit_listening, issue 30): keywords and subreddits read
// off the public brand context and the strategy's pillars, without a model (nothing is spent, nothing saved).
// Keywords: the pillars' keywords, then the brand's topics, expertise and products, de-duplicated, at most 10.
// Subreddits: those a table of common topics names for the words of those keywords and the audience, then a
// general one for the brand's type (startups, Entrepreneur; personal brands: careerguidance), at most 8.
import type { BrandContext } from '../ai/brand-context.js';

export interface RedditSuggestions {
  redditKeywords: string[];
  subreddits: string[];
}

const keywordsGiven = 10;
const subredditsGiven = 8;

/** Words of a topic → subreddits where it is discussed (case-insensitive, whole words). */
const topicSubreddits: readonly [RegExp, string[]][] = [
  [/\bsaas\b|\bsubscription software\b/i, ['SaaS', 'microsaas']],
  [/\bstartups?\b|\bfounders?\b/i, ['startups', 'Entrepreneur']],
  [/\bmarketing\b|\bgrowth\b|\bbrand(ing)?\b/i, ['marketing', 'growthmarketing']],
  [/\bsocial media\b|\bcontent\b|\bcreators?\b/i, ['socialmedia', 'content_marketing']],
  [/\bseo\b|\bsearch\b/i, ['SEO', 'bigseo']],
  [/\bai\b|\bmachine learning\b|\bllms?\b/i, ['artificial', 'MachineLearning']],
  [/\bdevelopers?\b|\bprogramming\b|\bcode\b|\bsoftware\b/i, ['programming', 'webdev']],
  [/\bdesign\b|\bux\b|\bui\b/i, ['design', 'UXDesign']],
  [/\bproductivity\b|\bremote work\b/i, ['productivity', 'remotework']],
  [/\becommerce\b|\bshop(ify)?\b|\bonline store\b/i, ['ecommerce', 'shopify']],
  [/\bsales\b|\bb2b\b/i, ['sales', 'b2b_sales']],
  [/\bfinance\b|\binvesting\b/i, ['personalfinance', 'investing']],
  [/\bfitness\b|\bhealth\b/i, ['Fitness', 'nutrition']],
  [/\bindie\b|\bbootstrap(ped|ping)?\b|\bside projects?\b/i, ['indiehackers', 'SideProject']],
];

function unique(values: readonly string[], max: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of values) {
    const value = raw.trim().replace(/\s+/g, ' ');
    if (!value || value.length > 100 || seen.has(value.toLowerCase())) continue;
    seen.add(value.toLowerCase());
    out.push(value);
    if (out.length === max) break;
  }
  return out;
}

export function redditSuggestionsOf(input: {
  brand: BrandContext | null;
  pillars: readonly { name: string; keywords: string[] }[];
}): RedditSuggestions {
  const brand = input.brand;
  const redditKeywords = unique(
    [
      ...input.pillars.flatMap((p) => (p.keywords.length > 0 ? p.keywords : [p.name])),
      ...(brand?.topics ?? []),
      ...(brand?.expertise ?? []),
      ...(brand?.businessOutline.productsOrServices ?? []),
    ],
    keywordsGiven,
  );
  const text = [
    ...redditKeywords,
    ...(brand?.businessOutline.targetAudience ?? []),
    brand?.businessOutline.overview ?? '',
  ].join(' \n ');
  const general =
    brand?.brandType === 'personal' ? ['careerguidance'] : brand ? ['startups', 'Entrepreneur'] : [];
  const subreddits = unique(
    [...topicSubreddits.filter(([pattern]) => pattern.test(text)).flatMap(([, subs]) => subs), ...general],
    subredditsGiven,
  );
  return { redditKeywords, subreddits };
}
