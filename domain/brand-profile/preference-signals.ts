// Preference signals learned from review (spec "Brand profile", preferenceSignals): what approvals, edits and
// rejections of post groups say about the brand's taste, as short instructions. Each occurrence is counted; a
// signal seen `promotionThreshold` times is promoted and then shapes generated text (BrandContext.preferences).
// Deliberately plain: normalised reject reasons, the length and the hashtags or emoji an edit took out or put in,
// the length and topic of what was approved. A reviewer's free-text note is never a signal (it may say anything).
import { createHash } from 'node:crypto';
import type { RejectReason } from '../post-groups/event-codec.js';
import type { PreferenceSignal } from './brand-profile.js';

/** Occurrences after which a signal is promoted (three: once is chance, twice may be, three times is a habit). */
export const promotionThreshold = 3;

export type LearnedKind = 'approval' | 'edit' | 'reject';

/** How sure a signal is, by how often it was seen. */
export function confidenceOf(occurrences: number): 'low' | 'medium' | 'high' {
  if (occurrences >= 2 * promotionThreshold) return 'high';
  if (occurrences >= promotionThreshold) return 'medium';
  return 'low';
}

/** What each reject reason says (other and unspecified say nothing one could act on). */
export const rejectSignals: Record<RejectReason | 'unspecified', string | null> = {
  not_my_voice: "Write in the brand's own voice; drafts that do not sound like it are rejected",
  not_interesting: 'Make a clear, interesting point; bland drafts are rejected',
  too_promotional: 'Prefers less promotional posts',
  inaccurate: 'Stick to facts the brand has stated; inaccurate drafts are rejected',
  repetitive: 'Avoid repeating recent topics and phrasing',
  wrong_timing: 'Mind the timing: drafts out of step with the moment are rejected',
  other: null,
  unspecified: null,
};

const hashtag = /(^|\s)#[\p{L}\p{N}_]+/gu;
const emoji = /\p{Extended_Pictographic}/gu;
const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

/** Length ratio past which an edit says "shorter" or "longer". */
const shorterRatio = 0.8;
const longerRatio = 1.25;

/** What a person's edit of a post's text says (nothing for a small change). */
export function editSignals(before: string, after: string): string[] {
  if (before === after) return [];
  const signals: string[] = [];
  const a = before.trim().length;
  const b = after.trim().length;
  if (a > 0 && b < a * shorterRatio) signals.push('Prefers shorter posts');
  if (a > 0 && b > a * longerRatio) signals.push('Prefers longer, more detailed posts');
  if (count(before, hashtag) > 0 && count(after, hashtag) < count(before, hashtag))
    signals.push('Prefers fewer hashtags');
  if (count(before, emoji) > 0 && count(after, emoji) === 0) signals.push('Prefers posts without emoji');
  if (count(before, /!/g) >= 2 && count(after, /!/g) === 0)
    signals.push('Prefers a calmer tone without exclamation marks');
  return signals;
}

/** Posts up to this length are "short", from this length "long-form". */
export const shortPostLength = 280;
export const longPostLength = 1000;

/** What an approval says: the length of what was approved, and its topic. */
export function approvalSignals(posts: readonly string[], topic: string | null): string[] {
  const signals: string[] = [];
  if (posts.length > 0) {
    if (posts.every((t) => t.trim().length <= shortPostLength))
      signals.push(`Approves short posts (up to ${shortPostLength} characters)`);
    else if (posts.every((t) => t.trim().length >= longPostLength))
      signals.push(`Approves long-form posts (${longPostLength.toLocaleString('en')} characters or more)`);
  }
  const about = topic?.trim().toLowerCase().replace(/\s+/g, ' ');
  if (about && about.length <= 60) signals.push(`Approves posts about ${about}`);
  return signals;
}

/** A learned signal's id: the same for the same workspace, kind and signal (a name-based UUID). */
export function learnedSignalId(orgId: string, kind: LearnedKind, signal: string): string {
  const hash = createHash('sha1')
    .update(`brand-preference\u0000${orgId}\u0000${kind}\u0000${signal}`)
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A learned signal as the profile shows it. */
export function learnedSignal(
  orgId: string,
  row: { kind: LearnedKind; signal: string; occurrences: number; lastSeenAt: string },
): PreferenceSignal {
  return {
    id: learnedSignalId(orgId, row.kind, row.signal),
    signal: row.signal,
    kind: row.kind,
    lastSeenAt: row.lastSeenAt,
    confidence: confidenceOf(row.occurrences),
    occurrences: row.occurrences,
    promoted: row.occurrences >= promotionThreshold,
  };
}

/**
 * The profile's signals: its own (explicit ones, set by a person) and the learned ones. A person's own signal with
 * the same words as a learned one stands for it (their word over the count).
 */
export function mergeSignals(
  own: readonly PreferenceSignal[],
  learned: readonly PreferenceSignal[],
): PreferenceSignal[] {
  const ownWords = new Set(own.map((s) => s.signal.trim().toLowerCase()));
  return [...own, ...learned.filter((s) => !ownWords.has(s.signal.trim().toLowerCase()))];
}
