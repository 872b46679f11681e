// The `strategy.generate` AI job (domain/ai/job.ts): a content strategy proposed from a goal and the brand's public
// context. The prompt is built from BrandContext alone (public by construction); the offline writer builds a
// grounded strategy from the same input without a model, deterministically (examples: docs/examples/offline-strategy.md).
import { z } from 'zod';
import type { BrandContext } from '../ai/brand-context.js';
import type { AiJob, AiPrompt } from '../ai/job.js';
import { clean, firstSentence, lowerFirst, upperFirst } from '../ai/text.js';
import { brandPromptLines } from '../ai/writing.js';
import { deterministicUuid } from '../shared/ids.js';
import { platformNames, platforms, type Platform } from '../shared/platforms.js';
import {
  contentMixProblems,
  contentTypes,
  type ContentMixEntry,
  type ContentType,
  type StrategyContent,
} from './strategy.js';

export interface StrategyGenerateInput {
  /** The person's goal for the strategy, if they gave one. */
  goal: string | null;
  brand: BrandContext | null;
  workspaceName: string;
  /** Platforms of the workspace's connected accounts. */
  connectedPlatforms: Platform[];
}

const generatedPillar = z.object({
  name: z.string().min(1).max(120),
  description: z.string().max(2000),
  keywords: z.array(z.string()).max(30),
});

/** What the model (or the offline writer) writes; ids, statuses and dates are given when it is stored. */
export const generatedStrategySchema = z
  .object({
    primaryObjective: z.string().min(1).max(2000),
    targetAudience: z.string().min(1).max(2000),
    pillars: z.array(generatedPillar).min(1).max(8),
    channelPriorities: z
      .array(
        z.object({
          platform: z.enum(platforms),
          enabled: z.boolean(),
          postsPerWeek: z.number().min(0).max(70),
        }),
      )
      .max(platforms.length),
    contentMix: z.array(
      z.object({ contentType: z.enum(contentTypes), targetPercent: z.number().min(0).max(100) }),
    ),
    positioningAngles: z.array(z.string().max(2000)).max(8),
    opportunities: z.array(z.object({ theme: z.string().min(1), rationale: z.string() })).max(10),
    guardrailNotes: z.array(z.string().max(2000)).max(12),
    recommendations: z
      .array(
        z.object({
          summary: z.string().min(1),
          rationale: z.string(),
          confidence: z.enum(['high', 'medium', 'low']),
        }),
      )
      .max(6),
  })
  .superRefine((s, ctx) => {
    for (const problem of contentMixProblems(s.contentMix))
      ctx.addIssue({ code: 'custom', path: problem.path.split('.'), message: problem.message });
    const seen = new Set<string>();
    s.channelPriorities.forEach((c, i) => {
      if (seen.has(c.platform))
        ctx.addIssue({
          code: 'custom',
          path: ['channelPriorities', i, 'platform'],
          message: 'a platform once',
        });
      seen.add(c.platform);
    });
  });
export type GeneratedStrategy = z.infer<typeof generatedStrategySchema>;

// ---- The prompt: public brand context only ----

const brandLines = (brand: BrandContext | null) =>
  brandPromptLines(brand, 'No brand profile yet: keep the strategy general and say what to fill in.');

function prompt(input: StrategyGenerateInput): AiPrompt {
  return {
    system:
      'You are a content strategist for social media. Propose a focused content strategy grounded only in the brand ' +
      'facts given. Do not invent products, numbers or claims. Content mix percentages must sum to exactly 100, each ' +
      'content type at most once; each platform at most once; postsPerWeek realistic for a small team.',
    prompt: [
      `Workspace: ${input.workspaceName}`,
      `Goal: ${input.goal ?? '(none given: infer one from the brand)'}`,
      `Connected platforms: ${input.connectedPlatforms.length > 0 ? input.connectedPlatforms.join(', ') : '(none)'}`,
      'Brand:',
      ...brandLines(input.brand).map((l) => `- ${l}`),
      'Write 3 to 5 pillars, channel priorities for the connected platforms (or the two that fit best if none), a ' +
        'content mix, positioning angles, opportunities, guardrail notes and recommendations.',
    ].join('\n'),
  };
}

// ---- The offline writer ----

const stopwords = new Set(
  'a an and are as at be by for from how in into is it of on or our that the their this to we with your you'.split(
    ' ',
  ),
);

const joinList = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

function keywordsOf(...texts: string[]): string[] {
  const words = texts
    .join(' ')
    .toLowerCase()
    .split(/[^a-z0-9+#-]+/)
    .filter((w) => w.length > 2 && !stopwords.has(w));
  return [...new Set(words)].slice(0, 6);
}

function uniqueByKey<T extends { name: string }>(items: readonly T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const key = i.name.toLowerCase();
    if (seen.has(key) || key === '') return false;
    seen.add(key);
    return true;
  });
}

function pillarsOf(input: StrategyGenerateInput): GeneratedStrategy['pillars'] {
  const b = input.brand;
  // The first audience the outline names, said once per pillar; the whole audience is the strategy's own field.
  const first = b?.businessOutline.targetAudience.map(clean).find(Boolean);
  const who = first && first.length <= 48 ? lowerFirst(first) : 'your audience';
  const candidates = uniqueByKey([
    ...(b?.topics ?? []).map((t) => ({
      name: upperFirst(clean(t)),
      description: `Teach ${who} what matters about ${lowerFirst(clean(t))}: how-tos, mistakes to avoid, what has changed.`,
    })),
    ...(b?.businessOutline.productsOrServices ?? []).map((p) => ({
      name: upperFirst(clean(p)),
      description: `${upperFirst(clean(p))} in practice: the problems it solves, real use cases and results, without a hard sell.`,
    })),
    ...(b?.expertise ?? []).map((e) => ({
      name: upperFirst(clean(e)),
      description: `Hard-won know-how in ${lowerFirst(clean(e))}: lessons, frameworks and the reasoning behind decisions.`,
    })),
  ]);
  const fallback =
    b?.brandType === 'personal'
      ? [
          {
            name: 'Lessons learned',
            description: 'What worked, what did not and why: practical takeaways from your own work.',
          },
          {
            name: 'Behind the scenes',
            description: 'How you work day to day: tools, routines and decisions in progress.',
          },
          { name: 'Point of view', description: 'Clear opinions on what your field gets right and wrong.' },
        ]
      : [
          {
            name: 'Customer problems',
            description: `Problems that come up for ${who}, and practical ways to solve them.`,
          },
          {
            name: 'Product in practice',
            description: `How ${b?.name ?? input.workspaceName} is used: use cases, tips and results.`,
          },
          { name: 'Industry perspective', description: 'Trends and opinions on where the field is going.' },
        ];
  const chosen = uniqueByKey([...candidates, ...(candidates.length < 3 ? fallback : [])]).slice(0, 5);
  return chosen.map((p) => ({ ...p, keywords: keywordsOf(p.name) }));
}

/** How well each platform fits a business or a person, best first. */
const platformFit: Record<'business' | 'personal', readonly Platform[]> = {
  business: ['linkedin', 'x', 'youtube', 'bluesky', 'threads', 'facebook', 'instagram', 'reddit', 'tiktok'],
  personal: ['x', 'linkedin', 'threads', 'instagram', 'bluesky', 'tiktok', 'youtube', 'reddit', 'facebook'],
};
/** A sustainable cadence per platform for a small team. */
const cadence: Record<Platform, number> = {
  x: 5,
  linkedin: 3,
  threads: 4,
  bluesky: 4,
  instagram: 3,
  facebook: 3,
  tiktok: 3,
  youtube: 1,
  reddit: 1,
};

const kindOf = (brand: BrandContext | null): 'business' | 'personal' =>
  brand?.brandType === 'personal' ? 'personal' : 'business';

function channelsOf(input: StrategyGenerateInput): GeneratedStrategy['channelPriorities'] {
  const fit = platformFit[kindOf(input.brand)];
  const connected = fit.filter((p) => input.connectedPlatforms.includes(p));
  const chosen = connected.length > 0 ? connected : fit.slice(0, 2);
  return chosen.map((platform) => ({ platform, enabled: true, postsPerWeek: cadence[platform] }));
}

const goalMatches = (goal: string | null, pattern: RegExp) =>
  goal !== null && pattern.test(goal.toLowerCase());

function mixOf(input: StrategyGenerateInput): ContentMixEntry[] {
  const base: Record<ContentType, number> =
    kindOf(input.brand) === 'personal'
      ? { educational: 30, opinion: 25, personal: 25, community: 15, promotional: 5 }
      : { educational: 40, opinion: 20, personal: 10, community: 15, promotional: 15 };
  // A goal about selling or launching leans promotional; one about community leans community; both out of teaching.
  if (goalMatches(input.goal, /launch|sell|sales|lead|sign ?ups?|trial|customers|revenue|demo/)) {
    base.promotional += 10;
    base.educational -= 10;
  }
  if (goalMatches(input.goal, /communit|engag|conversation|followers|audience/)) {
    base.community += 10;
    base.educational -= 10;
  }
  return contentTypes.map((contentType) => ({ contentType, targetPercent: base[contentType] }));
}

function audienceOf(input: StrategyGenerateInput): string {
  const b = input.brand;
  const listed = b?.businessOutline.targetAudience.map(clean).filter(Boolean) ?? [];
  if (listed.length > 0) return upperFirst(joinList(listed));
  const name = b?.name ?? input.workspaceName;
  if (b && b.topics.length > 0)
    return `People who follow ${name} for ${joinList(b.topics.slice(0, 3).map(lowerFirst))}`;
  return `The people ${name} wants to reach (describe them in the brand profile to sharpen this)`;
}

function objectiveOf(input: StrategyGenerateInput, audience: string): string {
  if (input.goal && clean(input.goal) !== '') return upperFirst(firstSentence(input.goal));
  const b = input.brand;
  if (b && b.goals.length > 0) return upperFirst(firstSentence(b.goals[0]!));
  const name = b?.name ?? input.workspaceName;
  const who = audience.length > 60 ? 'its audience' : lowerFirst(audience);
  return kindOf(b) === 'personal'
    ? `Grow an engaged audience around ${joinList((b?.topics ?? []).slice(0, 2).map(lowerFirst)) || 'what you know best'}`
    : `Build trust with ${who} so that they choose ${name}`;
}

function anglesOf(brand: BrandContext | null): string[] {
  if (!brand) return [];
  const o = brand.businessOutline;
  return [
    ...(o.valueProposition
      ? [`Lead with the promise: ${lowerFirst(firstSentence(o.valueProposition))}`]
      : []),
    ...o.differentiators.map((d) => `Show, not claim, what sets it apart: ${lowerFirst(firstSentence(d))}`),
    ...brand.opinions.map((op) => `Take a stand: ${lowerFirst(firstSentence(op))}`),
  ].slice(0, 6);
}

function guardrailsOf(brand: BrandContext | null): string[] {
  if (!brand) return ['No brand profile yet: check every claim before publishing.'];
  return [
    ...(brand.voice.tone ? [`Keep the tone ${lowerFirst(brand.voice.tone)}.`] : []),
    ...brand.voice.writingGuidelines.map((g) => upperFirst(clean(g)).replace(/([^.!?])$/, '$1.')),
    ...brand.voice.bannedPhrases.map((p) => `Never write "${p}".`),
    ...(brand.confirmed
      ? []
      : ['The brand profile is inferred and not confirmed: check claims before publishing.']),
  ].slice(0, 12);
}

function opportunitiesOf(
  input: StrategyGenerateInput,
  pillarNames: readonly string[],
): GeneratedStrategy['opportunities'] {
  const b = input.brand;
  if (!b) return [];
  const taken = new Set(pillarNames.map((n) => n.toLowerCase()));
  const topics = [...b.topics, ...b.expertise].filter((t) => !taken.has(clean(t).toLowerCase()));
  return [
    ...topics.map((t) => ({
      theme: upperFirst(clean(t)),
      rationale: 'In the brand profile but not a pillar yet: try a few posts and see how they land.',
    })),
    ...b.knowledge
      .filter((k) => k.kind === 'topic')
      .map((k) => ({ theme: upperFirst(clean(k.text)), rationale: 'A topic the brand is known for.' })),
    ...b.knowledge
      .filter((k) => k.kind === 'claim' || k.kind === 'fact')
      .map((k) => ({
        // Quoted as written: a fact may open with a name that must keep its capital.
        theme: `${k.kind === 'claim' ? 'Prove' : 'Show'} it: ${firstSentence(k.text)}`,
        rationale:
          k.kind === 'claim'
            ? 'A public claim of the brand: a customer story or the data behind it makes it believable.'
            : 'A public fact of the brand that a how-to or a demo post could make concrete.',
      })),
  ].slice(0, 5);
}

function recommendationsOf(input: StrategyGenerateInput): GeneratedStrategy['recommendations'] {
  const out: GeneratedStrategy['recommendations'] = [];
  const b = input.brand;
  if (!b)
    out.push({
      summary: 'Fill in the brand profile',
      rationale:
        'Without products, audience and voice the strategy can only be general; generate again afterwards.',
      confidence: 'high',
    });
  else if (!b.confirmed)
    out.push({
      summary: 'Confirm the brand profile',
      rationale:
        'The strategy rests on an inferred profile; a person checking it makes every post more accurate.',
      confidence: 'medium',
    });
  if (input.connectedPlatforms.length === 0) {
    const best = platformFit[kindOf(b)].slice(0, 2).map((p) => platformNames[p]);
    out.push({
      summary: `Connect ${joinList(best)}`,
      rationale:
        'No social account is connected yet; these fit the brand best, and schedule coverage follows them.',
      confidence: 'medium',
    });
  }
  if (!input.goal)
    out.push({
      summary: 'Give the strategy a goal',
      rationale:
        'A concrete goal (a launch, more demos, a growing audience) tunes the content mix and priorities.',
      confidence: 'low',
    });
  return out;
}

/** The offline writer: deterministic, grounded in the goal and the brand context only. */
export function writeStrategyOffline(input: StrategyGenerateInput): GeneratedStrategy {
  const targetAudience = audienceOf(input);
  const pillars = pillarsOf(input);
  return {
    primaryObjective: objectiveOf(input, targetAudience),
    targetAudience,
    pillars,
    channelPriorities: channelsOf(input),
    contentMix: mixOf(input),
    positioningAngles: anglesOf(input.brand),
    opportunities: opportunitiesOf(
      input,
      pillars.map((p) => p.name),
    ),
    guardrailNotes: guardrailsOf(input.brand),
    recommendations: recommendationsOf(input),
  };
}

export const generateStrategyJob: AiJob<StrategyGenerateInput, GeneratedStrategy> = {
  jobType: 'strategy.generate',
  creditAction: 'ai_strategy',
  output: generatedStrategySchema,
  outputName: 'strategy',
  prompt,
  heuristic: writeStrategyOffline,
};

/** A generated strategy as a version's content: ids (from the run), priorities in order, statuses, dates. */
export function contentOfGenerated(
  generated: GeneratedStrategy,
  context: { goal: string | null; idSeed: string; now: string },
): StrategyContent {
  const id = (...parts: string[]) => deterministicUuid(context.idSeed, ...parts);
  return {
    sourceGoal: context.goal,
    primaryObjective: generated.primaryObjective,
    targetAudience: generated.targetAudience,
    // A model may name one pillar twice: the first one stays.
    pillars: generated.pillars
      .filter(
        (p, i, all) =>
          all.findIndex((q) => q.name.trim().toLowerCase() === p.name.trim().toLowerCase()) === i,
      )
      .map((p, i) => ({
        id: id('pillar', String(i)),
        name: p.name,
        description: p.description,
        priority: i + 1,
        keywords: p.keywords,
      })),
    channelPriorities: generated.channelPriorities.map((c, i) => ({ ...c, priority: i + 1 })),
    contentMix: generated.contentMix,
    positioningAngles: generated.positioningAngles,
    opportunities: generated.opportunities.map((o, i) => ({
      id: id('opportunity', String(i)),
      ...o,
      status: 'open',
    })),
    priorities: [],
    guardrailNotes: generated.guardrailNotes,
    recommendations: generated.recommendations.map((r, i) => ({
      id: id('recommendation', String(i)),
      ...r,
      createdAt: context.now,
      status: 'pending',
    })),
  };
}
