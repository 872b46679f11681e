// Owns the per-platform rules a post's content must meet before it can go out: text limits counted in each
// platform's own unit, the media each platform accepts, where platform settings may appear, and their shapes.
import { graphemeCount, sumOverGraphemes } from './graphemes.js';
import { platformNames, type Platform } from '../shared/platforms.js';
import type { ImageItem, MediaAsset } from '../shared/media-asset.js';
import type { PlatformPayload, PostContent } from './post-content.js';
import { xWeightedLength } from './x-weighted-length.js';

export interface ContentContext {
  xPremium?: boolean;
  /** X accounts of the workspace with a Premium subscription: their posts get the longer text limit. */
  xPremiumAccountIds?: readonly string[];
  groupTitle?: string;
}

/** path is dotted and relative to the post, e.g. 'contentText', 'media', 'media.images', 'platformPayload.poll.options', 'platformPayload.thread.2', 'platformPayload.reddit.title' */
export interface ContentProblem {
  path: string;
  message: string;
}

/**
 * How a platform counts text. 'characters' are UTF-16 code units (JavaScript's `length`; an emoji usually
 * counts 2): TikTok documents that count, and where a platform leaves it open it is the stricter reading, so
 * a text that passes here is not refused there for being a few code units long.
 */
export type TextUnit = 'characters' | 'graphemes' | 'weighted characters' | 'UTF-8 bytes';

/** Limit on contentText per platform (YouTube: the description; Reddit: the body). */
export const textLimits: Record<Platform, { max: number; unit: TextUnit }> = {
  // twitter-text v3 weighting: URLs 23, CJK and emoji 2, Latin and common punctuation 1.
  x: { max: 280, unit: 'weighted characters' },
  linkedin: { max: 3_000, unit: 'characters' },
  tiktok: { max: 2_200, unit: 'characters' },
  reddit: { max: 40_000, unit: 'characters' },
  facebook: { max: 63_206, unit: 'characters' },
  instagram: { max: 2_200, unit: 'characters' },
  // The YouTube Data API documents the description limit in bytes, not characters.
  youtube: { max: 5_000, unit: 'UTF-8 bytes' },
  bluesky: { max: 300, unit: 'graphemes' },
  // Threads documents 500 characters with each emoji counted as its UTF-8 byte length.
  threads: { max: 500, unit: 'weighted characters' },
};

/** X's limit for accounts with Premium (weighted the same way as the 280). */
export const xPremiumTextLimit = 25_000;

/**
 * The most UTF-16 code units each text field takes at all, whatever its platform: a small multiple of the
 * largest platform limit of the field, so a near miss still gets the platform's own message with its count.
 * The API refuses longer input before anything is counted; checkPostContent, for any caller, counts no text
 * longer than countedLengthMax and no alt text longer than `altText`.
 */
export const inputLimits = {
  /** Facebook's 63,206 is the largest text limit. */
  contentText: 100_000,
  /** Twice X Premium's 25,000 (thread items are X, Bluesky and Threads posts). */
  threadItem: 50_000,
  /** Twice the 25 further items a thread may have. */
  threadItems: 50,
  /** Twice X's 25 characters and 4 options. */
  pollOption: 50,
  pollOptions: 8,
  /** Twice Reddit's 300 and the 21 of a subreddit name (r/ included). */
  redditTitle: 600,
  subreddit: 50,
  /** Twice YouTube's 100. */
  youtubeTitle: 200,
  /** More than twice X's 1,000 characters and as much as Bluesky's 2,000 graphemes of emoji. */
  altText: 5_000,
} as const;

/**
 * Beyond this many UTF-16 code units a text is refused without being counted, because the count of its platform
 * grows at least as fast (Bluesky: its bytes; Threads: its weight) or, for X, because no post needs that much
 * text before weighting (twice Premium's 25,000; a link counts 23 whatever its length, so twitter-text alone
 * would take far longer texts). Counting stays cheap below these bounds.
 */
const countedLengthMax: Partial<Record<Platform, number>> = {
  x: 2 * xPremiumTextLimit,
  bluesky: 3_000,
  threads: 2_000,
};

// The lexicon caps app.bsky.feed.post text at 3,000 bytes besides the 300 graphemes.
const blueskyTextMaxBytes = 3_000;
const instagramMaxHashtags = 30;
const youtubeTitleMax = 100;
const redditTitleMax = 300;
const threadMaxItems = 25;
const pollOptionMax = 25;
const pollMinutes = { min: 5, max: 10_080 };

type MediaKind = MediaAsset['kind'];

interface MediaRule {
  required: boolean;
  kinds: readonly MediaKind[];
  /** Bounds on an `images` set; a min of 2 means the platform builds a carousel that needs two. */
  images: { min: number; max: number | null };
  altText?: { max: number; unit: 'characters' | 'graphemes' };
}

const mediaRules: Record<Platform, MediaRule> = {
  x: {
    required: false,
    kinds: ['image', 'images', 'video'],
    images: { min: 1, max: 4 },
    altText: { max: 1_000, unit: 'characters' },
  },
  linkedin: { required: false, kinds: ['image', 'images', 'video', 'document'], images: { min: 1, max: 20 } },
  bluesky: {
    required: false,
    kinds: ['image', 'images', 'video'],
    images: { min: 1, max: 4 },
    altText: { max: 2_000, unit: 'graphemes' },
  },
  threads: { required: false, kinds: ['image', 'images', 'video'], images: { min: 2, max: 20 } },
  facebook: { required: false, kinds: ['image', 'images', 'video'], images: { min: 1, max: null } },
  instagram: { required: true, kinds: ['image', 'images', 'video'], images: { min: 2, max: 10 } },
  tiktok: { required: true, kinds: ['video', 'images'], images: { min: 1, max: 35 } },
  youtube: { required: true, kinds: ['video'], images: { min: 1, max: null } },
  reddit: { required: false, kinds: ['image', 'images', 'video'], images: { min: 1, max: 20 } },
};

const payloadPlatforms: Record<keyof PlatformPayload, readonly Platform[]> = {
  reddit: ['reddit'],
  youtube: ['youtube'],
  tiktok: ['tiktok'],
  thread: ['x', 'bluesky', 'threads'],
  quoteTweetUrl: ['x'],
  communityUrl: ['x'],
  replySettings: ['x'],
  poll: ['x'],
};

const payloadLabels: Record<keyof PlatformPayload, string> = {
  reddit: 'reddit settings',
  youtube: 'youtube settings',
  tiktok: 'tiktok settings',
  thread: 'A thread',
  quoteTweetUrl: 'A quote post (quoteTweetUrl)',
  communityUrl: 'A community (communityUrl)',
  replySettings: 'replySettings',
  poll: 'A poll',
};

const quoteTweetUrlPattern =
  /^https:\/\/(?:www\.|mobile\.)?(?:x|twitter)\.com\/[A-Za-z0-9_]{1,15}\/status\/\d+\/?(?:\?\S*)?$/;
const communityUrlPattern = /^https:\/\/(?:www\.)?(?:x|twitter)\.com\/i\/communities\/\d+\/?$/;
const subredditPattern = /^(?:r\/)?[A-Za-z0-9_]{3,21}$/;
// A '#' right after a letter, digit, '_', '&', '/' or '#' is part of a word, entity or URL, not a hashtag.
const hashtagPattern = /(?<![\p{L}\p{N}_&/#＃])[#＃][\p{L}\p{M}\p{N}_]+/gu;
// Threads weighs these as their UTF-8 size; keycaps and flags are emoji without being Extended_Pictographic.
const emojiPattern = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u;

function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0) ?? 0;
    // A lone surrogate is sent as U+FFFD, which is 3 bytes, like the rest of the BMP above U+07FF.
    bytes += codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
  }
  return bytes;
}

function threadsLength(text: string): number {
  // A plain character (null) is one UTF-16 unit and no emoji.
  return sumOverGraphemes(text, (grapheme) =>
    grapheme === null ? 1 : emojiPattern.test(grapheme) ? utf8Bytes(grapheme) : grapheme.length,
  );
}

export function textLength(platform: Platform, text: string): number {
  switch (platform) {
    case 'x':
      return xWeightedLength(text);
    case 'bluesky':
      return graphemeCount(text);
    case 'threads':
      return threadsLength(text);
    case 'youtube':
      return utf8Bytes(text);
    case 'linkedin':
    case 'tiktok':
    case 'reddit':
    case 'facebook':
    case 'instagram':
      return text.length;
  }
}

const countingNotes: Record<Platform, string> = {
  x: 'URLs count 23, emoji and CJK characters count 2',
  bluesky: 'an emoji or an accented letter counts 1',
  threads: 'an emoji counts as its UTF-8 size, usually 4',
  youtube: 'a plain letter is 1 byte, an accented letter 2, a CJK character 3, an emoji 4',
  linkedin: 'an emoji counts 2',
  tiktok: 'an emoji counts 2',
  reddit: 'an emoji counts 2',
  facebook: 'an emoji counts 2',
  instagram: 'an emoji counts 2',
};

/** 'an X', 'an Instagram', 'a LinkedIn'. */
function withArticle(platform: Platform): string {
  return `${platform === 'x' || platform === 'instagram' ? 'an' : 'a'} ${platformNames[platform]}`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function n(value: number): string {
  return value.toLocaleString('en-US');
}

function isBlank(text: string | undefined): boolean {
  return text === undefined || text.trim() === '';
}

function textLimitFor(platform: Platform, context: ContentContext): number {
  return platform === 'x' && context.xPremium === true ? xPremiumTextLimit : textLimits[platform].max;
}

/** Problems for text over the platform's limits; `subject` names the text, e.g. 'this text'. */
function lengthProblems(
  platform: Platform,
  text: string,
  context: ContentContext,
  path: string,
  subject: string,
  max = textLimitFor(platform, context),
): ContentProblem[] {
  const problems: ContentProblem[] = [];
  const unitWord = textLimits[platform].unit === 'UTF-8 bytes' ? 'bytes' : 'characters';
  const who = platform === 'x' && context.xPremium === true ? 'X Premium' : platformNames[platform];
  const countedMax = countedLengthMax[platform];
  if (countedMax !== undefined && text.length > countedMax) {
    return [{ path, message: uncountedMessage(platform, text, subject, who, max, countedMax) }];
  }
  const length = textLength(platform, text);
  if (length > max) {
    problems.push({
      path,
      message: `${who} allows ${n(max)} ${unitWord} (${countingNotes[platform]}); ${subject} has ${n(length)}`,
    });
  }
  if (platform === 'bluesky') {
    const bytes = utf8Bytes(text);
    if (bytes > blueskyTextMaxBytes) {
      problems.push({
        path,
        message: `Bluesky also caps a post at ${n(blueskyTextMaxBytes)} bytes of UTF-8 (an emoji takes 4 or more); ${subject} has ${n(bytes)} bytes`,
      });
    }
  }
  return problems;
}

/** Why a text longer than its platform counts is refused, without counting it. */
function uncountedMessage(
  platform: Platform,
  text: string,
  subject: string,
  who: string,
  max: number,
  countedMax: number,
): string {
  const length = n(text.length);
  if (platform === 'x') {
    return `${who} allows ${n(max)} characters (${countingNotes.x}); ${subject} has ${length} characters before weighting, and X text is limited to ${n(countedMax)} before weighting`;
  }
  if (platform === 'bluesky') {
    // Its UTF-8 size is at least its UTF-16 length, and counting bytes is cheap.
    return `Bluesky caps a post at ${n(blueskyTextMaxBytes)} bytes of UTF-8 (an emoji takes 4 or more) and ${n(max)} characters; ${subject} has ${n(utf8Bytes(text))} bytes`;
  }
  // Threads weighs each character at least its UTF-16 length.
  return `${who} allows ${n(max)} characters (${countingNotes[platform]}); ${subject} has at least ${length}`;
}

function checkText(content: PostContent, context: ContentContext, problems: ContentProblem[]): void {
  const { platform, contentText, media } = content;
  // Reddit's title carries a post, and YouTube, Instagram and TikTok report missing media on their own.
  const textOptional = platform === 'reddit' || mediaRules[platform].required;
  if (isBlank(contentText) && media === null && !textOptional) {
    problems.push({
      path: 'contentText',
      message: `The text is empty and there is no media; ${withArticle(platform)} post needs text, media or both`,
    });
  }
  const subject = platform === 'youtube' || isTiktokPhoto(content) ? 'this description' : 'this text';
  const max = isTiktokPhoto(content) ? tiktokPhotoDescriptionMax : textLimitFor(platform, context);
  problems.push(...lengthProblems(platform, contentText, context, 'contentText', subject, max));
  if (platform === 'instagram') {
    const hashtags = contentText.match(hashtagPattern)?.length ?? 0;
    if (hashtags > instagramMaxHashtags) {
      problems.push({
        path: 'contentText',
        message: `Instagram allows at most ${instagramMaxHashtags} hashtags in a caption; this text has ${hashtags}`,
      });
    }
  }
  if (platform === 'youtube' && /[<>]/.test(contentText)) {
    problems.push({
      path: 'contentText',
      message: 'YouTube does not allow the characters < and > in a description; remove them',
    });
  }
}

function describeImages(rule: MediaRule): string {
  const { min, max } = rule.images;
  if (max === null) return 'several images';
  return min >= 2 ? `${min}–${max} images` : `up to ${max} images`;
}

function describeAccepted(rule: MediaRule): string {
  const phrases = rule.kinds.map((kind) => {
    switch (kind) {
      case 'image':
        return 'an image';
      case 'images':
        return describeImages(rule);
      case 'video':
        return 'a video';
      case 'document':
        return 'a PDF document';
    }
  });
  return phrases.length <= 1 ? (phrases[0] ?? '') : `${phrases.slice(0, -1).join(', ')} or ${phrases.at(-1)}`;
}

const kindNames: Record<MediaKind, string> = {
  image: 'images',
  images: 'image sets',
  video: 'videos',
  document: 'documents',
};

function altTextProblem(
  platform: Platform,
  rule: MediaRule,
  image: ImageItem,
  path: string,
  subject: string,
): ContentProblem | null {
  if (!rule.altText || image.altText === undefined) return null;
  const { max, unit } = rule.altText;
  if (image.altText.length > inputLimits.altText) {
    return {
      path,
      message: `${platformNames[platform]} allows ${n(max)} characters of alt text; ${subject} is ${n(image.altText.length)} characters long, over the ${n(inputLimits.altText)} accepted`,
    };
  }
  const length = unit === 'graphemes' ? graphemeCount(image.altText) : image.altText.length;
  if (length <= max) return null;
  return {
    path,
    message: `${platformNames[platform]} allows ${n(max)} characters of alt text; ${subject} has ${n(length)}`,
  };
}

function checkMedia(content: PostContent, problems: ContentProblem[]): void {
  const { platform, media } = content;
  const name = platformNames[platform];
  const rule = mediaRules[platform];
  if (media === null) {
    if (rule.required) {
      problems.push({
        path: 'media',
        message: `${capitalised(withArticle(platform))} post needs media: ${describeAccepted(rule)}`,
      });
    }
    return;
  }
  if (!rule.kinds.includes(media.kind)) {
    problems.push({
      path: 'media',
      message: `${name} does not accept ${kindNames[media.kind]}; it takes ${describeAccepted(rule)}`,
    });
    return;
  }
  if (media.kind === 'image') {
    const tooLong = altTextProblem(platform, rule, media, 'media.altText', 'this alt text');
    if (tooLong) problems.push(tooLong);
  }
  if (media.kind === 'images') {
    const count = media.images.length;
    const { min, max } = rule.images;
    if (count === 0) {
      problems.push({
        path: 'media.images',
        message: 'The image set is empty; add images or remove the media',
      });
    } else if (count < min) {
      problems.push({
        path: 'media.images',
        message: `${capitalised(withArticle(platform))} carousel needs ${describeImages(rule)}; this one has ${count} (post it as a single image instead)`,
      });
    } else if (max !== null && count > max) {
      problems.push({
        path: 'media.images',
        message: `${name} allows at most ${max} images in a post; this one has ${count}`,
      });
    }
    media.images.forEach((image, index) => {
      const path = `media.images.${index}.altText`;
      const tooLong = altTextProblem(platform, rule, image, path, `the alt text of image ${index + 1}`);
      if (tooLong) problems.push(tooLong);
    });
  }
}

function listPlatforms(list: readonly Platform[]): string {
  const names = list.map((platform) => platformNames[platform]);
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Reports settings on a platform they do not belong to, and returns the keys that do belong. */
function checkPayloadPlacement(content: PostContent, problems: ContentProblem[]): Set<keyof PlatformPayload> {
  const placed = new Set<keyof PlatformPayload>();
  const payload = content.platformPayload;
  if (payload === null) return placed;
  for (const key of Object.keys(payloadPlatforms) as (keyof PlatformPayload)[]) {
    if (payload[key] === undefined) continue;
    const allowed = payloadPlatforms[key];
    if (allowed.includes(content.platform)) {
      placed.add(key);
    } else {
      problems.push({
        path: `platformPayload.${key}`,
        message: `${payloadLabels[key]} can only be used on ${listPlatforms(allowed)} posts, not on ${platformNames[content.platform]}`,
      });
    }
  }
  return placed;
}

function checkThread(
  content: PostContent,
  thread: string[],
  context: ContentContext,
  problems: ContentProblem[],
): void {
  if (thread.length > threadMaxItems) {
    problems.push({
      path: 'platformPayload.thread',
      message: `A thread can have at most ${threadMaxItems} items after the main text; this one has ${thread.length}`,
    });
  }
  thread.forEach((item, index) => {
    const path = `platformPayload.thread.${index}`;
    if (isBlank(item)) {
      problems.push({
        path,
        message: `Thread item ${index + 1} is empty; every post in a thread needs text`,
      });
      return;
    }
    problems.push(...lengthProblems(content.platform, item, context, path, `thread item ${index + 1}`));
  });
}

function checkPoll(
  content: PostContent,
  poll: NonNullable<PlatformPayload['poll']>,
  problems: ContentProblem[],
): void {
  const { options, durationMinutes } = poll;
  if (options.length < 2 || options.length > 4) {
    problems.push({
      path: 'platformPayload.poll.options',
      message: `An X poll needs 2 to 4 options; this one has ${options.length}`,
    });
  }
  // X refuses options that differ only by case or surrounding spaces, so they are compared that way.
  const seen = new Map<string, number>();
  options.forEach((option, index) => {
    const path = `platformPayload.poll.options.${index}`;
    if (isBlank(option)) {
      problems.push({ path, message: `Poll option ${index + 1} is empty` });
      return;
    }
    if (option.length > pollOptionMax) {
      problems.push({
        path,
        message: `X allows ${pollOptionMax} characters in a poll option (an emoji counts 2); option ${index + 1} has ${option.length}`,
      });
    }
    const normalised = option.trim().toLowerCase();
    const first = seen.get(normalised);
    if (first === undefined) {
      seen.set(normalised, index);
    } else {
      problems.push({
        path,
        message: `Poll option ${index + 1} repeats option ${first + 1} ("${option.trim()}"); options must differ`,
      });
    }
  });
  if (
    !Number.isInteger(durationMinutes) ||
    durationMinutes < pollMinutes.min ||
    durationMinutes > pollMinutes.max
  ) {
    problems.push({
      path: 'platformPayload.poll.durationMinutes',
      message: `A poll runs for a whole number of minutes from ${pollMinutes.min} to ${n(pollMinutes.max)} (7 days); this one is set to ${durationMinutes}`,
    });
  }
  if (content.media !== null) {
    problems.push({
      path: 'platformPayload.poll',
      message: 'An X post cannot have both a poll and media; remove one of them',
    });
  }
  if (content.platformPayload?.quoteTweetUrl !== undefined) {
    problems.push({
      path: 'platformPayload.poll',
      message: 'An X post cannot have both a poll and a quote post (quoteTweetUrl); remove one of them',
    });
  }
}

function checkReddit(payload: PlatformPayload | null, problems: ContentProblem[]): void {
  const reddit = payload?.reddit;
  if (reddit === undefined) {
    problems.push({
      path: 'platformPayload.reddit',
      message: 'A Reddit post needs reddit settings with a subreddit and a title',
    });
    return;
  }
  if (isBlank(reddit.subreddit)) {
    problems.push({
      path: 'platformPayload.reddit.subreddit',
      message: 'A Reddit post needs a subreddit to post in, e.g. r/typescript',
    });
  } else if (!subredditPattern.test(reddit.subreddit)) {
    problems.push({
      path: 'platformPayload.reddit.subreddit',
      message: `"${reddit.subreddit}" is not a subreddit name: use 3–21 letters, digits or underscores, optionally after r/`,
    });
  }
  if (isBlank(reddit.title)) {
    problems.push({ path: 'platformPayload.reddit.title', message: 'A Reddit post needs a title' });
  } else if (reddit.title.length > redditTitleMax) {
    problems.push({
      path: 'platformPayload.reddit.title',
      message: `Reddit allows ${redditTitleMax} characters in a title (an emoji counts 2); this title has ${reddit.title.length}`,
    });
  }
}

function checkYoutubeTitle(
  payload: PlatformPayload | null,
  context: ContentContext,
  problems: ContentProblem[],
): void {
  const path = 'platformPayload.youtube.title';
  const own = payload?.youtube?.title;
  const fromGroup = isBlank(own);
  const title = fromGroup ? context.groupTitle : own;
  if (title === undefined || isBlank(title)) {
    problems.push({
      path,
      message: 'A YouTube video needs a title: set one for this post or give the group a title',
    });
    return;
  }
  const which = fromGroup ? 'the group title, used as the video title,' : 'this title';
  if (title.length > youtubeTitleMax) {
    problems.push({
      path,
      message: `YouTube allows ${youtubeTitleMax} characters in a title (an emoji counts 2); ${which} has ${title.length}${fromGroup ? '; set a shorter YouTube title for this post' : ''}`,
    });
  }
  if (/[<>]/.test(title)) {
    problems.push({
      path,
      message: `YouTube does not allow the characters < and > in a title; ${which} has them`,
    });
  }
}

/**
 * A TikTok photo post has a title (90 characters) and a description (contentText, 4,000); a video has one
 * caption of 2,200 — `tiktok.title` when given, else contentText (TikTok's Content Posting API).
 */
const tiktokPhotoTitleMax = 90;
const tiktokPhotoDescriptionMax = 4_000;

function isTiktokPhoto(content: PostContent): boolean {
  return content.platform === 'tiktok' && content.media?.kind === 'images';
}

function checkTiktokTitle(content: PostContent, problems: ContentProblem[]): void {
  const title = content.platformPayload?.tiktok?.title;
  if (title === undefined) return;
  const max = isTiktokPhoto(content) ? tiktokPhotoTitleMax : textLimits.tiktok.max;
  if (title.length > max) {
    problems.push({
      path: 'platformPayload.tiktok.title',
      message: `TikTok allows ${n(max)} characters in the ${isTiktokPhoto(content) ? 'title of a photo post' : 'caption of a video'} (${countingNotes.tiktok}); this title has ${n(title.length)}`,
    });
  }
}

function checkPhotoCover(content: PostContent, problems: ContentProblem[]): void {
  const index = content.platformPayload?.tiktok?.photoCoverIndex;
  const { media } = content;
  if (index === undefined || media?.kind !== 'images') return;
  const count = media.images.length;
  if (Number.isInteger(index) && index >= 0 && index < count) return;
  problems.push({
    path: 'platformPayload.tiktok.photoCoverIndex',
    message:
      count === 0
        ? `photoCoverIndex ${index} points at no image: the image set is empty`
        : `photoCoverIndex must pick one of the ${count} images, counting from 0 (0 to ${count - 1}); it is ${index}`,
  });
}

/** Every way `content` breaks its platform's rules (empty when it can be published as it is). */
export function checkPostContent(
  content: PostContent & { socialAccountId?: string | null },
  given: ContentContext = {},
): ContentProblem[] {
  const account = content.socialAccountId;
  const context: ContentContext = {
    ...given,
    xPremium:
      given.xPremium === true || (account != null && (given.xPremiumAccountIds ?? []).includes(account)),
  };
  const problems: ContentProblem[] = [];
  const payload = content.platformPayload;
  checkText(content, context, problems);
  checkMedia(content, problems);
  // Settings on the wrong platform are reported once, without also judging their content.
  const placed = checkPayloadPlacement(content, problems);

  if (placed.has('thread') && payload?.thread) checkThread(content, payload.thread, context, problems);
  if (placed.has('poll') && payload?.poll) checkPoll(content, payload.poll, problems);
  if (placed.has('quoteTweetUrl') && payload?.quoteTweetUrl !== undefined) {
    if (!quoteTweetUrlPattern.test(payload.quoteTweetUrl)) {
      problems.push({
        path: 'platformPayload.quoteTweetUrl',
        message: `"${payload.quoteTweetUrl}" is not a link to a post on X; it should look like https://x.com/<handle>/status/<digits>`,
      });
    }
  }
  if (placed.has('communityUrl') && payload?.communityUrl !== undefined) {
    if (!communityUrlPattern.test(payload.communityUrl)) {
      problems.push({
        path: 'platformPayload.communityUrl',
        message: `"${payload.communityUrl}" is not a link to an X community; it should look like https://x.com/i/communities/<digits>`,
      });
    }
  }
  if (content.platform === 'reddit') checkReddit(payload, problems);
  if (content.platform === 'youtube') checkYoutubeTitle(payload, context, problems);
  if (content.platform === 'tiktok' && placed.has('tiktok')) {
    checkPhotoCover(content, problems);
    checkTiktokTitle(content, problems);
  }
  return problems;
}
