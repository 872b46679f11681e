// Whether one post meets a rule, from what is known of it (its publication time and latest metrics): the age
// window, the repost thresholds, the delete thresholds and the freshness of the metrics. Pure; the planner
// (./planner.ts) and the decider (./x-automation.ts) ask the same questions of the same evidence.
import type { ActionEvidence, AutoDeleteRule, AutoRepostRule, RepostSelection } from './event-codec.js';
import { hasDeleteThreshold } from './rules.js';

export const hourMs = 3_600_000;
export const dayMs = 24 * hourMs;

/** Engagement per impression; null when impressions are unknown or zero. */
export function engagementRate(evidence: Pick<ActionEvidence, 'engagement' | 'impressions'>): number | null {
  return evidence.impressions && evidence.impressions > 0 ? evidence.engagement / evidence.impressions : null;
}

/** The post's age at `now` in milliseconds. */
export function ageMs(publishedAt: string, now: string): number {
  return Date.parse(now) - Date.parse(publishedAt);
}

/** Old enough (minAgeHours) and not too old (maxAgeDays). */
export function inAgeWindow(
  rule: Pick<AutoRepostRule, 'minAgeHours' | 'maxAgeDays'>,
  publishedAt: string,
  now: string,
): boolean {
  const age = ageMs(publishedAt, now);
  return age >= rule.minAgeHours * hourMs && age <= rule.maxAgeDays * dayMs;
}

/** Every threshold set holds (threshold mode); top_n ranks instead and always "holds" here. */
export function repostThresholdsMet(selection: RepostSelection, evidence: ActionEvidence): boolean {
  if (selection.mode === 'top_n') return true;
  const { minImpressions, minLikes, minEngagementRate } = selection;
  if (minImpressions === null && minLikes === null && minEngagementRate === null) return false;
  if (minImpressions !== null && (evidence.impressions === null || evidence.impressions < minImpressions))
    return false;
  if (minLikes !== null && evidence.likes < minLikes) return false;
  if (minEngagementRate !== null) {
    const rate = engagementRate(evidence);
    if (rate === null || rate < minEngagementRate) return false;
  }
  return true;
}

/** At most maxImpressions (known impressions only) and at most maxLikes; a rule with neither matches nothing. */
export function deleteThresholdsMet(rule: AutoDeleteRule, evidence: ActionEvidence): boolean {
  if (!hasDeleteThreshold(rule)) return false;
  if (
    rule.maxImpressions !== null &&
    (evidence.impressions === null || evidence.impressions > rule.maxImpressions)
  )
    return false;
  if (rule.maxLikes !== null && evidence.likes > rule.maxLikes) return false;
  return true;
}

/** The metrics were read from X at most metricsMaxAgeHours before `now`. */
export function metricsFresh(rule: AutoDeleteRule, metricsFetchedAt: string, now: string): boolean {
  return ageMs(metricsFetchedAt, now) <= rule.metricsMaxAgeHours * hourMs;
}

const n = (value: number) => value.toLocaleString('en-US');

/** Why the post meets a repost rule, for the action's `reason`. */
export function repostReason(selection: RepostSelection, evidence: ActionEvidence, rank: number): string {
  const numbers = `${evidence.impressions === null ? 'impressions unknown' : `${n(evidence.impressions)} impressions`}, ${n(evidence.likes)} likes`;
  if (selection.mode === 'top_n')
    return `#${rank} of the top ${selection.n} by ${selection.rankBy} (${numbers})`;
  const met = [
    selection.minImpressions !== null ? `impressions ≥ ${n(selection.minImpressions)}` : null,
    selection.minLikes !== null ? `likes ≥ ${n(selection.minLikes)}` : null,
    selection.minEngagementRate !== null ? `engagement rate ≥ ${selection.minEngagementRate}` : null,
  ].filter((s) => s !== null);
  return `meets ${met.join(' and ')} (${numbers})`;
}

/** Why the post meets a delete rule, for the action's `reason`. */
export function deleteReason(rule: AutoDeleteRule, evidence: ActionEvidence, now: string): string {
  const met = [
    rule.maxImpressions !== null
      ? `${n(evidence.impressions ?? 0)} impressions ≤ ${n(rule.maxImpressions)}`
      : null,
    rule.maxLikes !== null ? `${n(evidence.likes)} likes ≤ ${n(rule.maxLikes)}` : null,
  ].filter((s) => s !== null);
  const hours = Math.max(0, Math.floor(ageMs(evidence.metricsFetchedAt, now) / hourMs));
  return `${met.join(', ')}; metrics read ${hours} h ago`;
}
