// The `launch_kits.create` AI job (domain/ai/job.ts): a launch kit's copy from a pitch and the workspace's writing
// context: the Product Hunt listing, the Show HN post, the launch posts of the plan's post slots and the details of
// its tasks. The prompt is built from the writing context (public by construction: domain/ai/writing.ts) and what
// the person gave; the offline writer makes grounded, deterministic copy from the same input without a model.
import { z } from 'zod';
import type { AiJob, AiPrompt } from '../ai/job.js';
import { clean, firstSentence, lowerFirst } from '../ai/text.js';
import {
  fitsPlatform,
  fitToPlatform,
  groundingPromptLines,
  platformLimitLines,
  voiceInstructions,
  type WritingContext,
} from '../ai/writing.js';
import type { Platform } from '../shared/platforms.js';
import type { LaunchChannel } from './event-codec.js';
import { socialChannels, type PostSlot } from './plan.js';

export interface LaunchKitJobInput {
  writing: WritingContext;
  /** As the person gave it, or null (the writer names it). */
  productName: string | null;
  pitch: string;
  url: string | null;
  launchDate: string;
  channels: LaunchChannel[];
  guidance: string | null;
  /** The plan's posts to write, by key. */
  posts: PostSlot[];
  /** The plan's tasks whose detail the writer may tailor, by key. */
  tasks: { key: string; title: string }[];
}

export const limits = {
  productName: 80,
  tagline: 60,
  description: 260,
  hnTitle: 80,
  redditTitle: 300,
} as const;
export const showHnPrefix = 'Show HN: ';

const nonBlank = (max: number) => z.string().trim().min(1).max(max);

export const launchKitCopySchema = z
  .object({
    productName: nonBlank(limits.productName),
    productHunt: z
      .object({
        name: nonBlank(limits.productName),
        tagline: nonBlank(limits.tagline),
        description: nonBlank(limits.description),
        topics: z.array(nonBlank(40)).max(5),
        firstComment: nonBlank(2000),
        galleryIdeas: z.array(nonBlank(300)).max(8),
      })
      .nullable(),
    hackerNews: z
      .object({
        title: nonBlank(limits.hnTitle).refine((t) => t.startsWith(showHnPrefix), {
          message: `starts with "${showHnPrefix}"`,
        }),
        url: z.string().nullable(),
        text: z.string().max(4000),
      })
      .nullable(),
    posts: z
      .array(
        z.object({
          key: nonBlank(100),
          channel: z.enum(socialChannels),
          contentText: nonBlank(40_000),
          /** The Reddit post's title; null elsewhere. */
          title: z.string().max(limits.redditTitle).nullable(),
        }),
      )
      .max(30),
    tasks: z.array(z.object({ key: nonBlank(100), detail: nonBlank(1000) })).max(30),
  })
  .superRefine((copy, ctx) => {
    copy.posts.forEach((p, i) => {
      if (!fitsPlatform(p.channel, p.contentText))
        ctx.addIssue({
          code: 'custom',
          path: ['posts', i, 'contentText'],
          message: 'over the platform limit',
        });
      if (p.channel === 'reddit' && !p.title?.trim())
        ctx.addIssue({ code: 'custom', path: ['posts', i, 'title'], message: 'a Reddit post needs a title' });
    });
  });
export type LaunchKitCopy = z.infer<typeof launchKitCopySchema>;

// ---- The prompt: the writing context and what the person gave ----

const momentOf: Record<PostSlot['moment'], string> = {
  teaser: 'a teaser before launch day: the problem and that something is coming, no link yet',
  launch: 'the launch-day announcement with the link',
  follow_up: 'after the launch: thanks and what comes next, no invented numbers',
};

function prompt(input: LaunchKitJobInput): AiPrompt {
  const platforms = [...new Set(input.posts.map((p) => p.platform))];
  return {
    system:
      'You write product launch copy: a Product Hunt listing, a Show HN post and social posts. ' +
      voiceInstructions(input.writing.brand) +
      ' Product Hunt: tagline at most 60 characters, description at most 260, at most 5 topics. ' +
      `Hacker News: a title of at most 80 characters starting with "${showHnPrefix}", plain and factual, ` +
      'no marketing superlatives; the text says what it is, why it was built and asks for feedback. ' +
      'Reddit: a title and a body that add value to the community, never a bare ad. ' +
      'Write only for the channels and keys listed; productHunt and hackerNews are null when their channel is not listed.',
    prompt: [
      ...groundingPromptLines(input.writing),
      `Product: ${input.productName ?? '(name it from the pitch and the brand)'}`,
      `Pitch: ${input.pitch}`,
      `URL: ${input.url ?? '(none)'}`,
      `Launch date: ${input.launchDate}`,
      `Channels: ${input.channels.join(', ')}`,
      `Guidance from the person: ${input.guidance ?? '(none)'}`,
      'Limits:',
      ...platformLimitLines(platforms).map((l) => `- ${l}`),
      'Posts to write (key: channel, moment):',
      ...input.posts.map(
        (p) => `- ${p.key}: ${p.channel}${p.subreddit ? ` in ${p.subreddit}` : ''}, ${momentOf[p.moment]}`,
      ),
      'Tasks whose detail to tailor to this product (key: task):',
      ...input.tasks.map((t) => `- ${t.key}: ${t.title}`),
    ].join('\n'),
  };
}

// ---- The offline writer ----

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** Words a tagline or a title should not end on. */
const danglingWords = new Set(
  'a an and as at but by for from in into of on or that the to via which while who with without'.split(' '),
);

/**
 * The text as a clause after a colon: its first letter lower-cased, unless it opens with a name (the product's,
 * the brand's or the workspace's first word) or an acronym.
 */
function clauseOf(names: readonly string[]): (text: string) => string {
  const keep = new Set(names.map((n) => clean(n).split(' ')[0]!.toLowerCase()).filter(Boolean));
  return (text) => (keep.has(text.split(/[\s,:;.!?]/)[0]!.toLowerCase()) ? text : lowerFirst(text));
}

/** At most `max` characters, cut at a word boundary (no ellipsis: listing fields are shown whole). */
function cutWords(text: string, max: number): string {
  const t = clean(text);
  if (t.length <= max) return t;
  const cut = t.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  let words = (space > max / 2 ? cut.slice(0, space) : t.slice(0, max)).split(' ');
  while (words.length > 1 && danglingWords.has(words[words.length - 1]!.toLowerCase()))
    words = words.slice(0, -1);
  return words.join(' ').replace(/[\s,;:–-]+$/, '');
}

const monthDay = (date: string) =>
  new Date(`${date}T12:00:00Z`).toLocaleDateString('en-US', {
    month: 'long',
    day: 'numeric',
    timeZone: 'UTC',
  });

function nameOf(input: LaunchKitJobInput): string {
  return cutWords(
    input.productName ?? input.writing.brand?.name ?? input.writing.workspaceName,
    limits.productName,
  );
}

function topicsOf(input: LaunchKitJobInput): string[] {
  const brand = input.writing.brand;
  const fromBrand = [...(brand?.topics ?? []), ...input.writing.pillars.map((p) => p.name)];
  const words = clean(input.pitch)
    .toLowerCase()
    .split(/[^a-z0-9+#-]+/)
    .filter((w) => w.length > 4);
  return [...new Set([...fromBrand.map(clean), ...words].filter(Boolean))]
    .slice(0, 3)
    .map((t) => cutWords(t, 40));
}

function postText(
  input: LaunchKitJobInput,
  slot: PostSlot,
  name: string,
  pitch: string,
  clause: (text: string) => string,
): { text: string; title: string | null } {
  const link = input.url ? `\n\n${input.url}` : '';
  const onPh = input.channels.includes('product_hunt') ? ' on Product Hunt' : '';
  const value = input.writing.brand?.businessOutline.valueProposition;
  const why = value ? ` ${sentence(clean(value))}` : '';
  const date = monthDay(input.launchDate);
  const audience = input.writing.brand?.businessOutline.targetAudience
    .map(clean)
    .find(Boolean)
    ?.replace(/^./, (c) => c.toLowerCase());
  const platform: Platform = slot.platform;
  switch (`${slot.channel}.${slot.moment}`) {
    case 'x.teaser':
      return {
        text: fitToPlatform(
          platform,
          `Something we have been building is almost ready: ${clause(pitch)}.\n\n${name} launches on ${date}.`,
        ),
        title: null,
      };
    case 'x.launch':
      return {
        text: fitToPlatform(platform, `${name} is live today${onPh}: ${clause(pitch)}.${link}`),
        title: null,
      };
    case 'x.follow_up':
      return {
        text: fitToPlatform(
          platform,
          `Thank you to everyone who tried ${name} on launch day and told us what to fix. We read every comment; the next changes come from them.`,
        ),
        title: null,
      };
    case 'linkedin.teaser':
      return {
        text: fitToPlatform(
          platform,
          `For a while now we have been working on something for ${audience ?? 'teams like yours'}: ${clause(pitch)}.${why}\n\nOn ${date} we launch ${name}. If this sounds like something your team needs, I would love to hear what you would expect from it.`,
        ),
        title: null,
      };
    case 'linkedin.launch':
      return {
        text: fitToPlatform(
          platform,
          `Today we launch ${name}${onPh}.\n\n${sentence(pitch)}${why}\n\nWe built it for the people we kept meeting with this problem. Try it and tell us what is missing.${link}`,
        ),
        title: null,
      };
    case 'linkedin.follow_up':
      return {
        text: fitToPlatform(
          platform,
          `A few days after launching ${name}: thank you to everyone who tried it, asked questions and told us what to improve.\n\nWhat we are doing next comes straight from that feedback. If you have not tried it yet, now is a good time.${link}`,
        ),
        title: null,
      };
    default: {
      const community = slot.subreddit
        ? slot.subreddit.startsWith('r/')
          ? slot.subreddit
          : `r/${slot.subreddit}`
        : 'everyone';
      return {
        text: fitToPlatform(
          platform,
          `Hi ${community}, I built ${name}: ${clause(pitch)}.${why}\n\nIt launches today and I would value honest feedback from this community: what would make it useful for you, and what would stop you from trying it?${input.url ? `\n\n${input.url}` : ''}`,
        ),
        title: cutWords(`I built ${name}: ${clause(pitch)}`, limits.redditTitle),
      };
    }
  }
}

/** The offline writer: deterministic copy grounded in the pitch, the product, the URL and the brand. */
export function writeLaunchKitOffline(input: LaunchKitJobInput): LaunchKitCopy {
  const name = nameOf(input);
  const pitch = firstSentence(input.pitch) || clean(input.pitch);
  const brand = input.writing.brand;
  const clause = clauseOf([name, brand?.name ?? '', input.writing.workspaceName]);
  const value = brand?.businessOutline.valueProposition ? clean(brand.businessOutline.valueProposition) : '';
  const differentiators = (brand?.businessOutline.differentiators ?? []).map(clean).filter(Boolean);
  const audience = (brand?.businessOutline.targetAudience ?? []).map(clean).filter(Boolean)[0];
  const tagline = cutWords(pitch, limits.tagline) || name;
  const has = (c: LaunchChannel) => input.channels.includes(c);
  return {
    productName: name,
    productHunt: has('product_hunt')
      ? {
          name,
          tagline,
          description: cutWords(
            [sentence(clean(input.pitch)), value ? sentence(value) : ''].filter(Boolean).join(' '),
            limits.description,
          ),
          topics: topicsOf(input),
          firstComment: [
            `Hi Product Hunt! We built ${name}. ${sentence(pitch)}`,
            value ? sentence(value) : '',
            differentiators.length > 0
              ? `What is different: ${differentiators.slice(0, 3).map(lowerFirst).join('; ')}.`
              : '',
            audience ? `It is made for ${lowerFirst(audience)}.` : '',
            'We would love your honest feedback: what would make it useful for you?',
          ]
            .filter(Boolean)
            .join(' '),
          galleryIdeas: [
            `Cover: "${tagline}" on the brand colours`,
            `The main screen of ${name} doing what the tagline says`,
            'Before and after: the task without and with the product',
            'A 30-second demo video of the first minute of use',
            ...(differentiators.length > 0
              ? [`One slide per difference: ${differentiators.slice(0, 3).join(', ')}`]
              : []),
          ],
        }
      : null,
    hackerNews: has('hacker_news')
      ? {
          title: cutWords(`${showHnPrefix}${name} – ${clause(tagline)}`, limits.hnTitle),
          url: input.url,
          text: [
            `Hi HN, we built ${name}. ${sentence(clean(input.pitch))}`,
            value ? sentence(value) : '',
            differentiators.length > 0
              ? `How it differs from what exists: ${differentiators.map(lowerFirst).join('; ')}.`
              : '',
            'We would be grateful for feedback, especially on what is missing or confusing.',
          ]
            .filter(Boolean)
            .join('\n\n'),
        }
      : null,
    posts: input.posts.map((slot) => {
      const { text, title } = postText(input, slot, name, pitch, clause);
      return { key: slot.key, channel: slot.channel, contentText: text, title };
    }),
    tasks: [],
  };
}

export const createLaunchKitJob: AiJob<LaunchKitJobInput, LaunchKitCopy> = {
  jobType: 'launch_kits.create',
  creditAction: 'ai_launch_kit',
  output: launchKitCopySchema,
  outputName: 'launch_kit',
  prompt,
  heuristic: writeLaunchKitOffline,
};
