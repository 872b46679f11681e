// What one rule would act on among the workspace's published X posts (with their latest metrics), in the order
// it would act: the posts in its age window (evaluated), those its selection matches (picks, each with why), and
// warnings worth telling the person. Pure; the aggregate (./x-automation.ts) decides each pick again, with the
// caps, when the run acts on it.
import type { ActionEvidence, AutoDeleteRule, AutoRepostRule, AutomationKind } from './event-codec.js';
import {
  deleteReason,
  deleteThresholdsMet,
  inAgeWindow,
  metricsFresh,
  repostReason,
  repostThresholdsMet,
} from './matching.js';
import { hasDeleteThreshold, hasRepostThreshold } from './rules.js';
import { deleteBlock, repostBlock, type XAutomationState } from './x-automation.js';

/** A published X post of the workspace with its latest reading (the post_metrics read model). */
export type XPostCandidate = ActionEvidence;

export interface RulePlan {
  kind: AutomationKind;
  /** Posts in the rule's age window (and of its account). */
  evaluated: number;
  /** The posts the rule matches, in the order it acts on them. */
  picks: Array<{ evidence: XPostCandidate; reason: string }>;
  warnings: string[];
}

function scoped(
  rule: Pick<AutoRepostRule, 'socialAccountId' | 'minAgeHours' | 'maxAgeDays'>,
  candidates: readonly XPostCandidate[],
  now: string,
) {
  return candidates.filter(
    (c) =>
      (rule.socialAccountId === null || c.socialAccountId === rule.socialAccountId) &&
      inAgeWindow(rule, c.publishedAt, now),
  );
}

const newestFirst = (a: XPostCandidate, b: XPostCandidate) =>
  Date.parse(b.publishedAt) - Date.parse(a.publishedAt) || a.postId.localeCompare(b.postId);

export function planRepost(
  rule: AutoRepostRule,
  candidates: readonly XPostCandidate[],
  state: XAutomationState,
  now: string,
): RulePlan {
  const inWindow = scoped(rule, candidates, now);
  const warnings: string[] = [];
  if (!hasRepostThreshold(rule.selection))
    warnings.push(
      'autoRepost: no threshold is set (minImpressions, minLikes or minEngagementRate), so it matches nothing',
    );
  // Posts reposted their maximum number of times, or within their cooldown, are not due: not matched.
  const due = inWindow.filter((c) => repostBlock(state, rule, c.postId, now) === null);
  const selection = rule.selection;
  let picks: XPostCandidate[];
  if (selection.mode === 'threshold')
    picks = due
      .filter((c) => repostThresholdsMet(selection, c))
      .sort((a, b) => b.engagement - a.engagement || newestFirst(a, b));
  else {
    const value = (c: XPostCandidate) =>
      selection.rankBy === 'impressions'
        ? c.impressions
        : selection.rankBy === 'likes'
          ? c.likes
          : c.engagement;
    picks = due
      .filter((c) => value(c) !== null)
      .sort((a, b) => value(b)! - value(a)! || b.engagement - a.engagement || newestFirst(a, b))
      .slice(0, selection.n);
  }
  return {
    kind: 'auto_repost',
    evaluated: inWindow.length,
    picks: picks.map((c, i) => ({ evidence: c, reason: repostReason(selection, c, i + 1) })),
    warnings,
  };
}

export function planDelete(
  rule: AutoDeleteRule,
  candidates: readonly XPostCandidate[],
  state: XAutomationState,
  now: string,
): RulePlan {
  const inWindow = scoped(rule, candidates, now);
  const warnings: string[] = [];
  if (!hasDeleteThreshold(rule))
    warnings.push('autoDelete: neither maxImpressions nor maxLikes is set, so it deletes nothing');
  const meeting = inWindow.filter(
    (c) => deleteBlock(state, c.postId) === null && deleteThresholdsMet(rule, c),
  );
  const fresh = meeting.filter((c) => metricsFresh(rule, c.metricsFetchedAt, now));
  const stale = meeting.length - fresh.length;
  if (stale > 0)
    warnings.push(
      `autoDelete: ${stale} post${stale === 1 ? '' : 's'} would match but ${stale === 1 ? 'its' : 'their'} metrics are older than ${rule.metricsMaxAgeHours} h, so ${stale === 1 ? 'it was' : 'they were'} left alone`,
    );
  // The weakest posts first: fewest impressions (unknown last), then fewest likes, then the oldest.
  const picks = fresh.sort(
    (a, b) =>
      (a.impressions ?? Number.POSITIVE_INFINITY) - (b.impressions ?? Number.POSITIVE_INFINITY) ||
      a.likes - b.likes ||
      Date.parse(a.publishedAt) - Date.parse(b.publishedAt) ||
      a.postId.localeCompare(b.postId),
  );
  return {
    kind: 'auto_delete',
    evaluated: inWindow.length,
    picks: picks.map((c) => ({ evidence: c, reason: deleteReason(rule, c, now) })),
    warnings,
  };
}
