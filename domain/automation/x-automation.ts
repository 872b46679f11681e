// The X automation aggregate: one stream per workspace (`xAutomation-<orgId>`) holding its rules and the ledger
// of what automation did. Every action is decided here against the rules in force and the ledger, so the caps
// (actions per rolling 24 hours, reposts per post, cooldown per post), dry run and the freshness of the metrics a
// deletion relies on hold whatever the run planned: concurrent runs on any instance append with the stream's
// expected revision, and a run that lost the race decides again against what the winner wrote.
import { canonicalJson } from '../shared/canonical-json.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields } from '../shared/errors.js';
import {
  automationKinds,
  xAutomationEventCodec,
  type ActionEvidence,
  type AutoDeleteRule,
  type AutoRepostRule,
  type AutomationKind,
  type KindSummary,
  type RunCounts,
  type RunTrigger,
  type XAutomationEvent,
} from './event-codec.js';
import {
  dayMs,
  deleteThresholdsMet,
  hourMs,
  inAgeWindow,
  metricsFresh,
  repostThresholdsMet,
} from './matching.js';
import { mergeDeleteRule, mergeRepostRule, type AutoDeletePatch, type AutoRepostPatch } from './rules.js';

export type { XAutomationEvent } from './event-codec.js';

export const xAutomationCategory = 'xAutomation';

/** How far back the ledger keeps settled actions: the daily cap looks back 24 hours; the rest is margin for clocks. */
const ledgerKeepMs = 2 * dayMs;
/** Nights remembered (the newest), enough to tell tonight's run from last night's. */
const nightsKept = 14;
/** Completed runs remembered, so a run id is never started twice. */
const completedRunsKept = 50;

/** A live action in the ledger: claimed before X was called, then settled. */
export interface LedgerAction {
  actionId: string;
  kind: AutomationKind;
  postId: string;
  at: string;
  status: 'started' | 'succeeded' | 'failed';
  /** Counts against the caps: every live action but one X certainly refused. */
  counts: boolean;
}

export interface PostLedger {
  /** The counted reposts of the post, oldest first. */
  reposts: Array<{ actionId: string; at: string }>;
  /** Deleted by automation. */
  deleted: boolean;
  /** The live action in flight on it, if any. */
  busy: string | null;
}

export interface OpenRun {
  runId: string;
  trigger: RunTrigger;
  by: string | null;
  localDate: string | null;
  dryRun: boolean;
  leaseMs: number;
  leaseUntil: string;
  /** Dry-run actions planned so far in this run, per kind (they count against the cap within the run only). */
  planned: Record<AutomationKind, number>;
  /** `<kind>:<postId>` planned or acted on in this run. */
  touched: string[];
}

export interface Night {
  runId: string;
  leaseUntil: string;
  completed: boolean;
}

export interface XAutomationState {
  orgId: string | null;
  autoRepost: AutoRepostRule | null;
  autoDelete: AutoDeleteRule | null;
  updatedAt: string | null;
  updatedBy: string | null;
  /** Live actions still in flight or started in the last two days. */
  actions: Record<string, LedgerAction>;
  posts: Record<string, PostLedger>;
  runs: Record<string, OpenRun>;
  completedRuns: string[];
  nights: Record<string, Night>;
}

export const initialXAutomationState: XAutomationState = {
  orgId: null,
  autoRepost: null,
  autoDelete: null,
  updatedAt: null,
  updatedBy: null,
  actions: {},
  posts: {},
  runs: {},
  completedRuns: [],
  nights: {},
};

export type XAutomationCommand =
  | {
      type: 'UpdateXAutomationRules';
      orgId: string;
      /** Left out: the saved rule stays. */
      autoRepost?: AutoRepostPatch;
      autoDelete?: AutoDeletePatch;
      by: string | null;
      now: string;
    }
  | {
      type: 'StartXAutomationRun';
      orgId: string;
      runId: string;
      trigger: RunTrigger;
      /** Required for a nightly run: the night it is for. */
      localDate: string | null;
      kinds: AutomationKind[];
      dryRun: boolean;
      by: string | null;
      now: string;
      leaseMs: number;
      /** Actions started longer ago than this and never settled are settled as failed (outcome unknown). */
      staleActionMs: number;
    }
  | {
      type: 'DecideXAutomationAction';
      runId: string;
      actionId: string;
      kind: AutomationKind;
      evidence: ActionEvidence;
      /** Why the run picked the post (the planner's words); the decider's checks still apply. */
      reason: string;
      /** The run asked for a dry run; a rule in dry run is one whatever the run asked. */
      dryRun: boolean;
      now: string;
    }
  | {
      type: 'SettleXAutomationAction';
      actionId: string;
      outcome:
        { status: 'succeeded'; warnings: string[] } | { status: 'failed'; error: string; definite: boolean };
      now: string;
    }
  | {
      type: 'CompleteXAutomationRun';
      runId: string;
      counts: RunCounts;
      byKind: Record<AutomationKind, KindSummary>;
      kinds: AutomationKind[];
      dryRun: boolean;
      warnings: string[];
      now: string;
    };

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Counted live actions of a kind started within 24 hours before `now` (or after it, on a clock running behind). */
export function actionsInWindow(state: XAutomationState, kind: AutomationKind, now: string): number {
  const from = Date.parse(now) - dayMs;
  return Object.values(state.actions).filter((a) => a.kind === kind && a.counts && Date.parse(a.at) > from)
    .length;
}

/** Actions of a kind that count against its daily cap for a decision in `run` (its own planned ones in a dry run). */
function usedToday(
  state: XAutomationState,
  run: OpenRun,
  kind: AutomationKind,
  dryRun: boolean,
  now: string,
): number {
  return actionsInWindow(state, kind, now) + (dryRun ? run.planned[kind] : 0);
}

/**
 * Whether the rule's daily cap leaves no room for another action in this run at `now` (a run stops deciding the
 * rule's other picks then, rather than recording each as skipped).
 */
export function dailyCapReached(
  state: XAutomationState,
  runId: string,
  kind: AutomationKind,
  runDryRun: boolean,
  now: string,
): boolean {
  const run = state.runs[runId];
  const rule = ruleOf(state, kind);
  if (!run || !rule) return false;
  return usedToday(state, run, kind, isDryRun(rule, runDryRun || run.dryRun), now) >= rule.maxActionsPerDay;
}

export function ruleOf(
  state: XAutomationState,
  kind: AutomationKind,
): AutoRepostRule | AutoDeleteRule | null {
  return kind === 'auto_repost' ? state.autoRepost : state.autoDelete;
}

/** A rule in dry run, or a run asked to be one, acts on nothing. */
export function isDryRun(rule: { dryRun: boolean }, runDryRun: boolean): boolean {
  return runDryRun || rule.dryRun;
}

/**
 * Why a repost of the post is not due (the per-post limits), or null when it may be reposted at `now`: in flight,
 * deleted, reposted maxRepostsPerPost times, or reposted within cooldownHoursPerPost.
 */
export function repostBlock(
  state: XAutomationState,
  rule: AutoRepostRule,
  postId: string,
  now: string,
): string | null {
  const post = state.posts[postId];
  if (!post) return null;
  if (post.deleted) return 'the post was deleted by automation';
  if (post.busy) return 'another run is acting on this post';
  if (post.reposts.length >= rule.maxRepostsPerPost)
    return `already reposted ${plural(post.reposts.length, 'time')} (maxRepostsPerPost ${rule.maxRepostsPerPost})`;
  const last = post.reposts[post.reposts.length - 1];
  if (last && Date.parse(now) - Date.parse(last.at) < rule.cooldownHoursPerPost * hourMs)
    return `reposted ${Math.floor((Date.parse(now) - Date.parse(last.at)) / hourMs)} h ago (cooldownHoursPerPost ${rule.cooldownHoursPerPost})`;
  return null;
}

/** Why the post may not be deleted now for reasons of the ledger (deleted already, in flight), or null. */
export function deleteBlock(state: XAutomationState, postId: string): string | null {
  const post = state.posts[postId];
  if (post?.deleted) return 'the post was deleted by automation';
  if (post?.busy) return 'another run is acting on this post';
  return null;
}

function decideRules(
  command: Extract<XAutomationCommand, { type: 'UpdateXAutomationRules' }>,
  state: XAutomationState,
): XAutomationEvent[] {
  const problems = [];
  let autoRepost = state.autoRepost;
  let autoDelete = state.autoDelete;
  if (command.autoRepost) {
    const merged = mergeRepostRule(state.autoRepost, command.autoRepost);
    problems.push(...merged.problems);
    autoRepost = merged.rule;
  }
  if (command.autoDelete) {
    const merged = mergeDeleteRule(state.autoDelete, command.autoDelete);
    problems.push(...merged.problems);
    autoDelete = merged.rule;
  }
  if (problems.length > 0) throw new InvalidFields('Invalid automation rules', problems);
  // Saving what is saved already changes nothing (a PUT repeated).
  if (
    canonicalJson(autoRepost) === canonicalJson(state.autoRepost) &&
    canonicalJson(autoDelete) === canonicalJson(state.autoDelete)
  )
    return [];
  return [
    {
      type: 'XAutomationRulesUpdated',
      data: { orgId: command.orgId, autoRepost, autoDelete, updatedAt: command.now, updatedBy: command.by },
    },
  ];
}

function decideStart(
  command: Extract<XAutomationCommand, { type: 'StartXAutomationRun' }>,
  state: XAutomationState,
): XAutomationEvent[] {
  if (state.runs[command.runId] || state.completedRuns.includes(command.runId))
    throw new Conflict('This automation run was started already', 'run_exists');
  if (command.trigger === 'nightly') {
    if (!command.localDate) throw new Error('a nightly run names its night');
    const night = state.nights[command.localDate];
    if (night?.completed)
      throw new Conflict(`The night of ${command.localDate} was swept already`, 'night_done');
    if (night && Date.parse(night.leaseUntil) > Date.parse(command.now))
      throw new Conflict(`Another instance is sweeping the night of ${command.localDate}`, 'night_taken');
  }
  const orgId = command.orgId;
  const staleBefore = Date.parse(command.now) - command.staleActionMs;
  const stale: XAutomationEvent[] = Object.values(state.actions)
    .filter((a) => a.status === 'started' && Date.parse(a.at) < staleBefore)
    .map((a) => ({
      type: 'XAutomationActionFailed',
      data: {
        orgId,
        actionId: a.actionId,
        error: 'The run stopped before X answered; whether X acted is unknown',
        definite: false,
        at: command.now,
      },
    }));
  return [
    ...stale,
    {
      type: 'XAutomationRunStarted',
      data: {
        orgId,
        runId: command.runId,
        trigger: command.trigger,
        localDate: command.trigger === 'nightly' ? command.localDate : null,
        kinds: command.kinds,
        dryRun: command.dryRun,
        by: command.by,
        startedAt: command.now,
        leaseMs: command.leaseMs,
      },
    },
  ];
}

/** The reason a matched post is skipped now, or null when the action may go ahead. */
function skipReason(
  state: XAutomationState,
  run: OpenRun,
  command: Extract<XAutomationCommand, { type: 'DecideXAutomationAction' }>,
  dryRun: boolean,
): string | null {
  const { kind, evidence, now } = command;
  const rule = ruleOf(state, kind);
  if (!rule || !rule.enabled)
    return `the ${kind === 'auto_repost' ? 'autoRepost' : 'autoDelete'} rule is off`;
  if (rule.socialAccountId !== null && rule.socialAccountId !== evidence.socialAccountId)
    return 'the post was published with another account than the rule names';
  if (run.touched.includes(`${kind}:${evidence.postId}`)) return 'this run decided about the post already';
  if (!inAgeWindow(rule, evidence.publishedAt, now))
    return `outside the age window (minAgeHours ${rule.minAgeHours}, maxAgeDays ${rule.maxAgeDays})`;
  if (kind === 'auto_repost') {
    const repost = rule as AutoRepostRule;
    const blocked = repostBlock(state, repost, evidence.postId, now);
    if (blocked) return blocked;
    if (!repostThresholdsMet(repost.selection, evidence)) return 'the post no longer meets the selection';
  } else {
    const del = rule as AutoDeleteRule;
    const blocked = deleteBlock(state, evidence.postId);
    if (blocked) return blocked;
    if (!metricsFresh(del, evidence.metricsFetchedAt, now))
      return `metrics read ${Math.floor((Date.parse(now) - Date.parse(evidence.metricsFetchedAt)) / hourMs)} h ago; the rule needs them within ${del.metricsMaxAgeHours} h`;
    if (!deleteThresholdsMet(del, evidence)) return 'the post no longer meets maxImpressions and maxLikes';
    if (evidence.replies >= del.skipIfRepliesGte)
      return `${plural(evidence.replies, 'reply')} (skipIfRepliesGte ${del.skipIfRepliesGte})`;
  }
  const used = usedToday(state, run, kind, dryRun, now);
  if (used >= rule.maxActionsPerDay)
    return `maxActionsPerDay ${rule.maxActionsPerDay} reached (${plural(used, 'action')} in the last 24 h${dryRun ? ', planned ones included' : ''})`;
  return null;
}

function decideAction(
  command: Extract<XAutomationCommand, { type: 'DecideXAutomationAction' }>,
  state: XAutomationState,
): XAutomationEvent[] {
  const run = state.runs[command.runId];
  if (!run) throw new Conflict('The automation run is not open', 'run_not_open');
  if (state.actions[command.actionId]) return [];
  const orgId = state.orgId!;
  const rule = ruleOf(state, command.kind);
  const dryRun = rule ? isDryRun(rule, command.dryRun || run.dryRun) : true;
  const skipped = skipReason(state, run, command, dryRun);
  const base = {
    orgId,
    runId: command.runId,
    actionId: command.actionId,
    kind: command.kind,
    evidence: command.evidence,
    at: command.now,
  };
  if (skipped !== null)
    return [
      { type: 'XAutomationActionRecorded', data: { ...base, status: 'skipped', dryRun, reason: skipped } },
    ];
  if (dryRun)
    return [
      {
        type: 'XAutomationActionRecorded',
        data: { ...base, status: 'planned', dryRun: true, reason: command.reason },
      },
    ];
  const again =
    command.kind === 'auto_repost' && (state.posts[command.evidence.postId]?.reposts.length ?? 0) > 0;
  return [{ type: 'XAutomationActionStarted', data: { ...base, reason: command.reason, again } }];
}

function decideSettle(
  command: Extract<XAutomationCommand, { type: 'SettleXAutomationAction' }>,
  state: XAutomationState,
): XAutomationEvent[] {
  const action = state.actions[command.actionId];
  // Settled already (by its run, or as stale by a later one): the first outcome stands.
  if (!action || action.status !== 'started') return [];
  const orgId = state.orgId!;
  return command.outcome.status === 'succeeded'
    ? [
        {
          type: 'XAutomationActionSucceeded',
          data: { orgId, actionId: action.actionId, warnings: command.outcome.warnings, at: command.now },
        },
      ]
    : [
        {
          type: 'XAutomationActionFailed',
          data: {
            orgId,
            actionId: action.actionId,
            error: command.outcome.error,
            definite: command.outcome.definite,
            at: command.now,
          },
        },
      ];
}

function decideComplete(
  command: Extract<XAutomationCommand, { type: 'CompleteXAutomationRun' }>,
  state: XAutomationState,
): XAutomationEvent[] {
  const run = state.runs[command.runId];
  if (!run) return [];
  return [
    {
      type: 'XAutomationRunCompleted',
      data: {
        orgId: state.orgId!,
        runId: run.runId,
        trigger: run.trigger,
        localDate: run.localDate,
        by: run.by,
        dryRun: command.dryRun,
        kinds: command.kinds,
        counts: command.counts,
        byKind: command.byKind,
        warnings: command.warnings,
        completedAt: command.now,
      },
    },
  ];
}

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** The run's lease, renewed by each action it decides. */
function renew(
  state: XAutomationState,
  runId: string,
  at: string,
  change: (run: OpenRun) => OpenRun = (r) => r,
): XAutomationState {
  const run = state.runs[runId];
  if (!run) return state;
  const next = change({ ...run, leaseUntil: plus(at, run.leaseMs) });
  const nights =
    next.localDate && state.nights[next.localDate]?.runId === runId
      ? {
          ...state.nights,
          [next.localDate]: { ...state.nights[next.localDate]!, leaseUntil: next.leaseUntil },
        }
      : state.nights;
  return { ...state, runs: { ...state.runs, [runId]: next }, nights };
}

/** Settled actions older than the ledger keeps, dropped as time moves on (in flight ones stay). */
function pruned(actions: Record<string, LedgerAction>, at: string): Record<string, LedgerAction> {
  const keepFrom = Date.parse(at) - ledgerKeepMs;
  const kept = Object.entries(actions).filter(
    ([, a]) => a.status === 'started' || Date.parse(a.at) >= keepFrom,
  );
  return kept.length === Object.keys(actions).length ? actions : Object.fromEntries(kept);
}

function withPost(
  state: XAutomationState,
  postId: string,
  change: (post: PostLedger) => PostLedger,
): XAutomationState {
  const post = state.posts[postId] ?? { reposts: [], deleted: false, busy: null };
  return { ...state, posts: { ...state.posts, [postId]: change(post) } };
}

function evolveSettled(
  state: XAutomationState,
  actionId: string,
  succeeded: boolean,
  definite: boolean,
): XAutomationState {
  const action = state.actions[actionId];
  if (!action || action.status !== 'started') return state;
  const counts = succeeded || !definite;
  const next: XAutomationState = {
    ...state,
    actions: {
      ...state.actions,
      [actionId]: { ...action, status: succeeded ? 'succeeded' : 'failed', counts },
    },
  };
  return withPost(next, action.postId, (post) => ({
    ...post,
    busy: post.busy === actionId ? null : post.busy,
    deleted: post.deleted || (succeeded && action.kind === 'auto_delete'),
    reposts: counts ? post.reposts : post.reposts.filter((r) => r.actionId !== actionId),
  }));
}

export const xAutomationDecider: Decider<XAutomationState, XAutomationCommand, XAutomationEvent> = {
  initialState: initialXAutomationState,
  codec: xAutomationEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'UpdateXAutomationRules':
        return decideRules(command, state);
      case 'StartXAutomationRun':
        return decideStart(command, state);
      case 'DecideXAutomationAction':
        return decideAction(command, state);
      case 'SettleXAutomationAction':
        return decideSettle(command, state);
      case 'CompleteXAutomationRun':
        return decideComplete(command, state);
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'XAutomationRulesUpdated': {
        const d = event.data;
        return {
          ...state,
          orgId: d.orgId,
          autoRepost: d.autoRepost,
          autoDelete: d.autoDelete,
          updatedAt: d.updatedAt,
          updatedBy: d.updatedBy,
        };
      }
      case 'XAutomationRunStarted': {
        const d = event.data;
        const leaseUntil = plus(d.startedAt, d.leaseMs);
        const run: OpenRun = {
          runId: d.runId,
          trigger: d.trigger,
          by: d.by,
          localDate: d.localDate,
          dryRun: d.dryRun,
          leaseMs: d.leaseMs,
          leaseUntil,
          planned: { auto_repost: 0, auto_delete: 0 },
          touched: [],
        };
        // Runs whose lease ran out a day ago are gone (their instance stopped); their night may be taken over.
        const abandonedBefore = Date.parse(d.startedAt) - dayMs;
        const runs = Object.fromEntries(
          Object.entries(state.runs).filter(([, r]) => Date.parse(r.leaseUntil) >= abandonedBefore),
        );
        let nights = state.nights;
        if (d.localDate) {
          nights = { ...nights, [d.localDate]: { runId: d.runId, leaseUntil, completed: false } };
          const dates = Object.keys(nights).sort();
          if (dates.length > nightsKept)
            nights = Object.fromEntries(dates.slice(-nightsKept).map((date) => [date, nights[date]!]));
        }
        return { ...state, orgId: state.orgId ?? d.orgId, runs: { ...runs, [d.runId]: run }, nights };
      }
      case 'XAutomationActionRecorded': {
        const d = event.data;
        return renew(state, d.runId, d.at, (run) => ({
          ...run,
          planned:
            d.status === 'planned' ? { ...run.planned, [d.kind]: run.planned[d.kind] + 1 } : run.planned,
          touched: d.status === 'planned' ? [...run.touched, `${d.kind}:${d.evidence.postId}`] : run.touched,
        }));
      }
      case 'XAutomationActionStarted': {
        const d = event.data;
        const action: LedgerAction = {
          actionId: d.actionId,
          kind: d.kind,
          postId: d.evidence.postId,
          at: d.at,
          status: 'started',
          counts: true,
        };
        const next = renew(
          { ...state, actions: { ...pruned(state.actions, d.at), [d.actionId]: action } },
          d.runId,
          d.at,
          (run) => ({ ...run, touched: [...run.touched, `${d.kind}:${d.evidence.postId}`] }),
        );
        return withPost(next, d.evidence.postId, (post) => ({
          ...post,
          busy: d.actionId,
          reposts:
            d.kind === 'auto_repost' ? [...post.reposts, { actionId: d.actionId, at: d.at }] : post.reposts,
        }));
      }
      case 'XAutomationActionSucceeded':
        return evolveSettled(state, event.data.actionId, true, false);
      case 'XAutomationActionFailed':
        return evolveSettled(state, event.data.actionId, false, event.data.definite);
      case 'XAutomationRunCompleted': {
        const d = event.data;
        const { [d.runId]: _done, ...runs } = state.runs;
        const night = d.localDate ? state.nights[d.localDate] : undefined;
        const nights =
          d.localDate && night?.runId === d.runId
            ? { ...state.nights, [d.localDate]: { ...night, completed: true } }
            : state.nights;
        return {
          ...state,
          runs,
          nights,
          completedRuns: [...state.completedRuns, d.runId].slice(-completedRunsKept),
        };
      }
      default:
        return assertNever(event);
    }
  },
};

/** Both kinds, in the order runs take them. */
export const allKinds: readonly AutomationKind[] = automationKinds;
