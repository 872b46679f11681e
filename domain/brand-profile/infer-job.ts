// The AI job `brand_profile.infer` (domain/ai/job.ts): a brand profile inferred from a few pages of a website. The
// prompt gives a model the pages' text (all public: the site's own words); the offline writer infers the profile
// from titles, meta descriptions, headings, first paragraphs and pricing words, deterministically, and every field
// it fills can be traced to a page. The use case saves the result unconfirmed, items with provenance `inferred`.
import { z } from 'zod';
import type { AiJob, AiPrompt } from '../ai/job.js';
import { brandTypes, confidences, knowledgeKinds } from './event-codec.js';

export type SitePageKind = 'home' | 'about' | 'pricing';

/** One page as the site reader extracted it (infra/brand-profile/page-text.ts). */
export interface SitePage {
  url: string;
  kind: SitePageKind;
  title: string | null;
  siteName: string | null;
  description: string | null;
  headings: { level: number; text: string }[];
  /** The first paragraphs of the main text. */
  paragraphs: string[];
  /** The main text (Readability), cut to a bounded length. */
  text: string;
  /** Plans on a pricing page: a heading and the first price after it. */
  plans: { name: string; price: string | null }[];
}

export interface InferBrandProfileInput {
  websiteUrl: string;
  pages: SitePage[];
}

export const inferredProfileSchema = z.object({
  brandType: z.enum(brandTypes),
  name: z.string().nullable(),
  tagline: z.string().nullable(),
  mission: z.string().nullable(),
  overview: z.string(),
  productsOrServices: z.array(z.string()),
  targetAudience: z.array(z.string()),
  valueProposition: z.string(),
  differentiators: z.array(z.string()),
  topics: z.array(z.string()),
  tone: z.string(),
  personalityTraits: z.array(z.string()),
  writingGuidelines: z.array(z.string()),
  facts: z.array(
    z.object({
      kind: z.enum(knowledgeKinds),
      text: z.string(),
      sourceUrl: z.string().nullable(),
      confidence: z.enum(confidences),
    }),
  ),
});
export type InferredProfile = z.output<typeof inferredProfileSchema>;

/** What a page may put into a prompt. */
const maxPromptPageChars = 3000;

function promptOf(input: InferBrandProfileInput): AiPrompt {
  const pages = input.pages.map((page) =>
    [
      `## ${page.kind} page: ${page.url}`,
      page.title ? `Title: ${page.title}` : null,
      page.description ? `Description: ${page.description}` : null,
      page.headings.length ? `Headings: ${page.headings.map((h) => h.text).join(' / ')}` : null,
      page.plans.length
        ? `Plans: ${page.plans.map((p) => (p.price ? `${p.name} (${p.price})` : p.name)).join(', ')}`
        : null,
      `Text: ${page.text.slice(0, maxPromptPageChars)}`,
    ]
      .filter((line) => line !== null)
      .join('\n'),
  );
  return {
    system:
      'You read a few pages of a website and infer the brand profile of whoever runs it: whether it is a person ' +
      'or a business, its name, tagline, mission, what it offers, for whom, why it is different, its topics, and ' +
      'how it writes. Use only what the pages say; leave a field empty (or null) when they do not say it. Facts ' +
      'are short statements from the pages, each with the page it came from. Write in the language of the site.',
    prompt: `Website: ${input.websiteUrl}\n\n${pages.join('\n\n')}`,
  };
}

// ---- The offline writer ----------------------------------------------------------------------------------------

const sentencesOf = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"“])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

const firstSentence = (text: string | null | undefined): string | null => {
  if (!text) return null;
  const sentence = sentencesOf(text)[0];
  return sentence ? clip(sentence, 200) : null;
};

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const uniq = (values: string[]) => {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = v.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

const genericTitles = new Set(['home', 'homepage', 'welcome', 'index', 'start', 'main']);

/** Headings that name a part of a page rather than something the brand offers or says. */
const genericHeadings = new Set([
  'pricing',
  'plans',
  'prices',
  'faq',
  'faqs',
  'frequently asked questions',
  'questions',
  'contact',
  'contact us',
  'about',
  'about us',
  'about me',
  'blog',
  'news',
  'features',
  'compare plans',
  'compare',
  'testimonials',
  'customers',
  'newsletter',
  'subscribe',
  'sign up',
  'get started',
  'menu',
  'navigation',
  'footer',
  'resources',
  'company',
  'product',
  'legal',
  'follow me',
  'follow us',
  'latest posts',
  'recent posts',
  'links',
]);
const isGeneric = (text: string) =>
  genericHeadings.has(
    text
      .toLowerCase()
      .replace(/[^\p{L}\p{N} ]/gu, '')
      .trim(),
  ) ||
  /^(join|subscribe|latest|recent|follow|get in touch|contact|sign up|read|more|see all)\b/i.test(
    text.trim(),
  );

function nameOf(home: SitePage | undefined): string | null {
  if (!home) return null;
  if (home.siteName) return clip(home.siteName, 80);
  if (!home.title) return null;
  const parts = home.title
    .split(/\s+[|\-–—·:]\s+/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0 && !genericTitles.has(p.toLowerCase()));
  const name = parts[0];
  return name ? clip(name, 80) : null;
}

const stopwords = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto over under about as is are was ' +
    'were be been being it its this that these those there here we our ours us you your yours i me my mine he she ' +
    'they them their his her not no yes do does did done have has had can could will would should may might must ' +
    'so than too very just more most less least all any each every some such only own same other new get got make ' +
    'made use used using how what when where who why which while also up out off again once per via one two three ' +
    'first next last like want need help helps helping home page site website read learn more free now today ' +
    'every day days year years time team teams work works working best better good great way ways thing things ' +
    'start started started started sign log login contact pricing plan plans month monthly yearly price cookie ' +
    'cookies privacy terms rights reserved copyright menu skip content main click here email subscribe join ' +
    'know knows actually really matter matters because faster always never ever much many lots well even still ' +
    'into onto them then than there their theirs yours ours shows show without within across minutes hours ' +
    'write writes wrote writing build builds building built small large big thing share shares'
  ).split(/\s+/),
);

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}][\p{L}\p{N}'’-]*/gu) ?? [];

function topicsOf(pages: SitePage[], nameWords: Set<string>): string[] {
  // Counted by a plain stem (agencies and agency are one topic), shown in the form seen most.
  const counts = new Map<string, number>();
  const forms = new Map<string, Map<string, number>>();
  const stem = (w: string) => w.replace(/ies$/, 'y').replace(/([^s])s$/, '$1');
  for (const page of pages) {
    if (page.kind === 'pricing') continue;
    // Headings count twice: a site heads its pages with what it is about.
    const headings = page.headings.map((h) => h.text);
    const texts = [page.description ?? '', ...headings, ...headings, ...page.paragraphs];
    for (const text of texts)
      for (const word of wordsOf(text)) {
        const w = word.replace(/['’]s$/, '').replace(/-+$/, '');
        if (w.length < 4 || stopwords.has(w) || stopwords.has(stem(w)) || nameWords.has(w) || /\d/.test(w))
          continue;
        const key = stem(w);
        counts.set(key, (counts.get(key) ?? 0) + 1);
        const seen = forms.get(key) ?? new Map<string, number>();
        seen.set(w, (seen.get(w) ?? 0) + 1);
        forms.set(key, seen);
      }
  }
  const shown = (key: string) =>
    [...(forms.get(key) ?? new Map<string, number>()).entries()].sort(
      (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
    )[0]?.[0] ?? key;
  return [...counts.entries()]
    .filter(([, n]) => n >= 2)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 6)
    .map(([key]) => shown(key));
}

const offers: [RegExp, string][] = [
  [/\bnewsletters?\b/i, 'Newsletter'],
  [/\bpodcasts?\b/i, 'Podcast'],
  [/\b(?:online )?courses?\b/i, 'Courses'],
  [/\bcoaching\b/i, 'Coaching'],
  [/\bconsult(?:ing|ancy)\b/i, 'Consulting'],
  [/\bworkshops?\b/i, 'Workshops'],
  [/\bmentor(?:ing|ship)\b/i, 'Mentoring'],
  [/\bspeaking\b|\bkeynotes?\b/i, 'Speaking'],
  [/\b(?:e-?)?books?\b/i, 'Books'],
  [/\btemplates?\b/i, 'Templates'],
  [/\bcommunity\b/i, 'Community'],
  [/\bmembership\b/i, 'Membership'],
  [/\bAPI\b/, 'API'],
  [/\bintegrations?\b/i, 'Integrations'],
  [/\bmobile apps?\b|\bi(?:os|phone) app\b|\bandroid app\b/i, 'Mobile app'],
];

const audienceStop = new Set(
  (
    'to with who that and in by so from at through while when where which build write grow get make find learn ' +
    'ship turn do be create manage run save sell track automate understand reach without across on of like'
  ).split(' '),
);

function audiencesOf(texts: string[]): string[] {
  const found: string[] = [];
  for (const text of texts) {
    for (const match of text.matchAll(
      /\b(?:for|helps?|helping|built for|made for)\s+([^.,;:!?()\n]{3,80})/gi,
    )) {
      const words: string[] = [];
      for (const word of match[1]!.trim().split(/\s+/)) {
        if (audienceStop.has(word.toLowerCase()) || words.length >= 5) break;
        words.push(word);
      }
      while (words.length > 0 && /^(?:the|a|an|you|your|every|all|any|anyone|everyone)$/i.test(words[0]!))
        words.shift();
      const phrase = words.join(' ').replace(/[’']s$/, '');
      // A phrase naming people or organisations: plural or a known role word.
      if (words.length === 0 || phrase.length < 4) continue;
      // "for six years", "for a few weeks": a time, not an audience.
      if (
        /^(\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|many|several|over|about)\b/i.test(
          phrase,
        )
      )
        continue;
      if (/\b(years?|months?|weeks?|days?|hours?|minutes?)$/i.test(phrase)) continue;
      // A word that names nobody in particular.
      if (/^(people|folks|everyone|anyone|you|teams|businesses|companies|users)$/i.test(phrase)) continue;
      if (
        !/s$|people|folk|team|staff|founder|maker|owner|business|company|organi[sz]ation|creator|writer|developer|marketer|leader|you$/i.test(
          phrase,
        )
      )
        continue;
      found.push(phrase.charAt(0).toUpperCase() + phrase.slice(1));
    }
  }
  return uniq(found).slice(0, 4);
}

function brandTypeOf(pages: SitePage[]): 'personal' | 'business' | 'unknown' {
  const text = pages
    .map((p) => [p.title, p.description, ...p.headings.map((h) => h.text), ...p.paragraphs].join(' '))
    .join(' ');
  const words = wordsOf(text);
  const singular = words.filter(
    (w) => w === 'i' || w === "i'm" || w === 'i’m' || w === 'my' || w === 'me',
  ).length;
  const plural = words.filter(
    (w) => w === 'we' || w === 'our' || w === "we're" || w === 'we’re' || w === 'us',
  ).length;
  const personalWords = (
    text.match(/\b(about me|my name|portfolio|personal site|hi,? i'm|i'm a|i am a|freelance|indie)\b/gi) ?? []
  ).length;
  const businessWords = (
    text.match(/\b(customers|clients|enterprise|company|inc\.?|ltd|gmbh|llc|our team|startups|teams)\b/gi) ??
    []
  ).length;
  const hasPlans = pages.some((p) => p.plans.length > 0);
  const personal = singular + 3 * personalWords;
  const business = plural + 2 * businessWords + (hasPlans ? 3 : 0);
  if (personal >= 3 && personal > business * 1.2) return 'personal';
  if (business >= 3 && business > personal * 1.2) return 'business';
  return 'unknown';
}

function missionOf(pages: SitePage[]): string | null {
  const ordered = [...pages.filter((p) => p.kind === 'about'), ...pages.filter((p) => p.kind === 'home')];
  for (const page of ordered)
    for (const paragraph of page.paragraphs)
      for (const sentence of sentencesOf(paragraph))
        if (/\b(our mission|my mission|we believe|i believe|our goal|my goal|we exist to)\b/i.test(sentence))
          return clip(sentence, 400);
  return null;
}

/** The offline writer: a profile from the pages' own words, each field traceable to a page. */
export function inferProfileOffline(input: InferBrandProfileInput): InferredProfile {
  const home = input.pages.find((p) => p.kind === 'home');
  const about = input.pages.find((p) => p.kind === 'about');
  const pricing = input.pages.find((p) => p.kind === 'pricing');
  const homeUrl = home?.url ?? input.websiteUrl;

  const name = nameOf(home);
  const h1 = home?.headings.find((h) => h.level === 1)?.text ?? null;
  const tagline = firstSentence(home?.description) ?? (h1 ? clip(h1, 200) : null);
  const brandType = brandTypeOf(input.pages);

  const overviewSentences = about
    ? sentencesOf(about.paragraphs.join(' ')).slice(0, 2)
    : [home?.description, ...(home?.paragraphs.slice(0, 1) ?? [])]
        .filter((s): s is string => !!s)
        .flatMap((s) => sentencesOf(s))
        .slice(0, 2);
  const overview = clip(uniq(overviewSentences).join(' '), 600);

  const plans = pricing?.plans.filter((p) => !isGeneric(p.name) && p.name.split(/\s+/).length <= 4) ?? [];
  const allText = input.pages.flatMap((p) => [
    p.title ?? '',
    p.description ?? '',
    ...p.headings.map((h) => h.text),
    ...p.paragraphs,
  ]);
  const offered = offers
    .filter(([pattern]) => allText.some((t) => pattern.test(t)))
    .map(([, label]) => label);
  const productsOrServices = uniq([
    ...plans.map((p) => (p.price ? `${p.name} plan (${p.price})` : `${p.name} plan`)),
    ...offered,
  ]).slice(0, 8);

  const audienceTexts = [
    home?.description,
    h1,
    about?.description,
    ...(home?.paragraphs.slice(0, 3) ?? []),
    ...(about?.paragraphs.slice(0, 3) ?? []),
  ].filter((t): t is string => !!t);
  const targetAudience = audiencesOf(audienceTexts);

  const valueProposition = h1 && h1 !== name ? clip(h1, 300) : (tagline ?? '');
  const differentiators = uniq(
    (home?.headings ?? [])
      .filter((h) => h.level >= 2 && h.level <= 3)
      .map((h) => h.text.trim())
      .filter((t) => !isGeneric(t) && t.split(/\s+/).length >= 2 && t.split(/\s+/).length <= 10),
  ).slice(0, 4);

  const nameWords = new Set(wordsOf(name ?? ''));
  const topics = topicsOf(input.pages, nameWords);

  const bodyText = allText.join(' ');
  const exclamations = (bodyText.match(/!/g) ?? []).length;
  const energetic = exclamations >= 3 && exclamations * 200 > bodyText.length;
  const sentenceWords = sentencesOf(bodyText).map((s) => s.split(/\s+/).length);
  const averageWords = sentenceWords.length
    ? sentenceWords.reduce((a, b) => a + b, 0) / sentenceWords.length
    : 0;

  const tone =
    brandType === 'personal'
      ? `Personal, warm and direct${energetic ? ', upbeat' : ''}`
      : brandType === 'business'
        ? `Clear, confident and helpful${energetic ? ', upbeat' : ''}`
        : 'Clear and friendly';
  const personalityTraits = [
    ...(brandType === 'personal'
      ? ['Authentic', 'Approachable']
      : brandType === 'business'
        ? ['Professional', 'Helpful']
        : ['Friendly']),
    ...(energetic ? ['Energetic'] : []),
    ...(plans.some((p) => p.price) ? ['Transparent'] : []),
  ];
  const writingGuidelines = [
    brandType === 'personal'
      ? 'Write in the first person (I, my), as the site does'
      : brandType === 'business'
        ? 'Write as the team (we, our), as the site does'
        : 'Write plainly, as the site does',
    averageWords > 0 && averageWords <= 16
      ? 'Keep sentences short and concrete'
      : 'One idea per post, with a concrete example',
    ...(targetAudience.length > 0
      ? [`Speak to ${targetAudience[0]!.toLowerCase()} and their problems first`]
      : []),
  ];

  const facts: InferredProfile['facts'] = [];
  if (tagline) facts.push({ kind: 'claim', text: tagline, sourceUrl: homeUrl, confidence: 'medium' });
  const aboutFact = about ? firstSentence(about.paragraphs[0]) : null;
  if (about && aboutFact && aboutFact !== tagline)
    facts.push({ kind: 'fact', text: aboutFact, sourceUrl: about.url, confidence: 'medium' });
  if (pricing && plans.length > 0)
    facts.push({
      kind: 'fact',
      text: `Plans: ${plans.map((p) => (p.price ? `${p.name} (${p.price})` : p.name)).join(', ')}`,
      sourceUrl: pricing.url,
      confidence: plans.every((p) => p.price) ? 'high' : 'medium',
    });
  for (const topic of topics.slice(0, 3))
    facts.push({ kind: 'topic', text: topic, sourceUrl: homeUrl, confidence: 'low' });

  return {
    brandType,
    name,
    tagline,
    mission: missionOf(input.pages),
    overview,
    productsOrServices,
    targetAudience,
    valueProposition,
    differentiators,
    topics,
    tone,
    personalityTraits,
    writingGuidelines,
    facts,
  };
}

/** The job the use case hands the AI runtime. */
export const inferBrandProfileJob: AiJob<InferBrandProfileInput, InferredProfile> = {
  jobType: 'brand_profile.infer',
  creditAction: 'ai_brand_profile',
  output: inferredProfileSchema,
  outputName: 'brand_profile',
  prompt: promptOf,
  heuristic: inferProfileOffline,
};
