// The X automation rules (spec "X automation rules"): their limits, the safe defaults a rule takes when first
// saved (off, dry run), how a PUT's partial rule merges into the saved one (fields left out keep their values,
// null clears a threshold), and the checks every saved rule passes (each problem named by its field).
import type { ErrorDetail } from '../shared/errors.js';
import type { AutoDeleteRule, AutoRepostRule, RankBy, RepostSelection } from './event-codec.js';

export type { AutoDeleteRule, AutoRepostRule, RankBy, RepostSelection } from './event-codec.js';

interface Range {
  min: number;
  max: number;
  /** Whole numbers only (every limit but the engagement rate). */
  integer: boolean;
}

const whole = (min: number, max: number): Range => ({ min, max, integer: true });

/** Every numeric field's allowed values; the request schemas (api/automation/schemas.ts) document the same. */
export const ruleLimits = {
  minAgeHours: whole(0, 8_760),
  maxAgeDays: whole(1, 365),
  n: whole(1, 50),
  minImpressions: whole(0, 1_000_000_000),
  minLikes: whole(0, 1_000_000_000),
  minEngagementRate: { min: 0, max: 1, integer: false },
  cooldownHoursPerPost: whole(1, 8_760),
  maxRepostsPerPost: whole(1, 20),
  maxActionsPerDay: whole(1, 50),
  maxImpressions: whole(0, 1_000_000_000),
  maxLikes: whole(0, 1_000_000_000),
  metricsMaxAgeHours: whole(1, 720),
  skipIfRepliesGte: whole(1, 1_000_000_000),
} as const satisfies Record<string, Range>;

export type LimitedField = keyof typeof ruleLimits;

/** The selection a repost rule starts with in each mode. */
export function defaultSelection(mode: RepostSelection['mode']): RepostSelection {
  return mode === 'top_n'
    ? { mode: 'top_n', n: 1, rankBy: 'engagement' }
    : { mode: 'threshold', minImpressions: null, minLikes: null, minEngagementRate: null };
}

/** A repost rule saved for the first time: off and in dry run, the single best post of the last month. */
export const defaultAutoRepost: AutoRepostRule = {
  channel: 'x',
  socialAccountId: null,
  enabled: false,
  minAgeHours: 24,
  maxAgeDays: 30,
  selection: defaultSelection('top_n'),
  cooldownHoursPerPost: 168,
  maxRepostsPerPost: 1,
  maxActionsPerDay: 1,
  action: 'retweet',
  dryRun: true,
};

/**
 * A delete rule saved for the first time: off and in dry run, and with no threshold, so it deletes nothing until
 * someone says what "underperforming" means (maxImpressions or maxLikes).
 */
export const defaultAutoDelete: AutoDeleteRule = {
  channel: 'x',
  socialAccountId: null,
  enabled: false,
  minAgeHours: 72,
  maxAgeDays: 30,
  maxImpressions: null,
  maxLikes: null,
  requireMetricsFetched: true,
  metricsMaxAgeHours: 48,
  skipIfRepliesGte: 1,
  maxActionsPerDay: 3,
  dryRun: true,
};

/** A PUT's selection: any of the fields; `mode` left out keeps the saved mode. */
export interface SelectionPatch {
  mode?: RepostSelection['mode'];
  minImpressions?: number | null;
  minLikes?: number | null;
  minEngagementRate?: number | null;
  n?: number;
  rankBy?: RankBy;
}

export type AutoRepostPatch = Partial<Omit<AutoRepostRule, 'selection'>> & { selection?: SelectionPatch };
export type AutoDeletePatch = Partial<AutoDeleteRule>;

const thresholdFields = ['minImpressions', 'minLikes', 'minEngagementRate'] as const;
const topNFields = ['n', 'rankBy'] as const;

function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function mergeSelection(
  saved: RepostSelection,
  patch: SelectionPatch,
  problems: ErrorDetail[],
): RepostSelection {
  const mode = patch.mode ?? saved.mode;
  const base = mode === saved.mode ? saved : defaultSelection(mode);
  const foreign = mode === 'threshold' ? topNFields : thresholdFields;
  for (const field of foreign)
    if (patch[field] !== undefined)
      problems.push({
        path: `autoRepost.selection.${field}`,
        message: `not a field of mode ${mode} (it belongs to mode ${mode === 'threshold' ? 'top_n' : 'threshold'})`,
      });
  if (base.mode === 'threshold') {
    const next = { ...base };
    for (const field of thresholdFields) if (patch[field] !== undefined) next[field] = patch[field];
    return next;
  }
  return {
    ...base,
    ...(patch.n !== undefined ? { n: patch.n } : {}),
    ...(patch.rankBy ? { rankBy: patch.rankBy } : {}),
  };
}

function checkRange(field: LimitedField, value: number | null, path: string, problems: ErrorDetail[]) {
  if (value === null) return;
  const range: Range = ruleLimits[field];
  if (
    !Number.isFinite(value) ||
    value < range.min ||
    value > range.max ||
    (range.integer && !Number.isInteger(value))
  )
    problems.push({
      path,
      message: `${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}`,
    });
}

function checkAgeWindow(
  rule: { minAgeHours: number; maxAgeDays: number },
  kind: string,
  problems: ErrorDetail[],
) {
  if (rule.minAgeHours >= rule.maxAgeDays * 24)
    problems.push({
      path: `${kind}.minAgeHours`,
      message: `must be under maxAgeDays (${rule.maxAgeDays} days = ${rule.maxAgeDays * 24} hours)`,
    });
}

export function repostRuleProblems(rule: AutoRepostRule): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const at = (field: string) => `autoRepost.${field}`;
  for (const field of [
    'minAgeHours',
    'maxAgeDays',
    'cooldownHoursPerPost',
    'maxRepostsPerPost',
    'maxActionsPerDay',
  ] as const)
    checkRange(field, rule[field], at(field), problems);
  const s = rule.selection;
  if (s.mode === 'threshold')
    for (const field of thresholdFields) checkRange(field, s[field], at(`selection.${field}`), problems);
  else checkRange('n', s.n, at('selection.n'), problems);
  if (problems.length === 0) checkAgeWindow(rule, 'autoRepost', problems);
  return problems;
}

export function deleteRuleProblems(rule: AutoDeleteRule): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const fields = [
    'minAgeHours',
    'maxAgeDays',
    'maxImpressions',
    'maxLikes',
    'metricsMaxAgeHours',
    'skipIfRepliesGte',
    'maxActionsPerDay',
  ] as const;
  for (const field of fields) checkRange(field, rule[field], `autoDelete.${field}`, problems);
  if (problems.length === 0) checkAgeWindow(rule, 'autoDelete', problems);
  return problems;
}

/** The repost rule a PUT saves: the patch over the saved rule (or the defaults), and what is wrong with it. */
export function mergeRepostRule(
  saved: AutoRepostRule | null,
  patch: AutoRepostPatch,
): { rule: AutoRepostRule; problems: ErrorDetail[] } {
  const base = saved ?? defaultAutoRepost;
  const problems: ErrorDetail[] = [];
  const { selection, ...fields } = definedOnly(patch);
  const rule: AutoRepostRule = {
    ...base,
    ...fields,
    channel: 'x',
    action: 'retweet',
    selection: selection ? mergeSelection(base.selection, selection, problems) : base.selection,
  };
  return { rule, problems: [...problems, ...repostRuleProblems(rule)] };
}

export function mergeDeleteRule(
  saved: AutoDeleteRule | null,
  patch: AutoDeletePatch,
): { rule: AutoDeleteRule; problems: ErrorDetail[] } {
  const base = saved ?? defaultAutoDelete;
  const rule: AutoDeleteRule = { ...base, ...definedOnly(patch), channel: 'x', requireMetricsFetched: true };
  return { rule, problems: deleteRuleProblems(rule) };
}

/** Whether a threshold-mode repost rule can match anything: at least one threshold set. */
export function hasRepostThreshold(selection: RepostSelection): boolean {
  return (
    selection.mode === 'top_n' ||
    selection.minImpressions !== null ||
    selection.minLikes !== null ||
    selection.minEngagementRate !== null
  );
}

/** Whether a delete rule can match anything: maxImpressions or maxLikes set. */
export function hasDeleteThreshold(rule: AutoDeleteRule): boolean {
  return rule.maxImpressions !== null || rule.maxLikes !== null;
}
