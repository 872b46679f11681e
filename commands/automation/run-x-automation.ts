// One run of the X automation (POST ORG/automation/x/run, or the nightly sweep): starts the run on the
// workspace's automation stream, plans each enabled rule over the published X posts and their latest metrics, then
// has the aggregate decide each pick (planned in a dry run, skipped with why, or claimed) before X is called for a
// claimed one, and settles it with X's answer. The claim is appended with the stream's expected revision before the
// call, so the caps hold across concurrent runs and instances; a run that stops between claim and answer leaves the
// claim counted, and the next run settles it as failed with an unknown outcome.
import { randomUUID } from 'node:crypto';
import type {
  ActionEvidence,
  AutomationKind,
  KindSummary,
  RunCounts,
  RunTrigger,
} from '../../domain/automation/event-codec.js';
import {
  planDelete,
  planRepost,
  type RulePlan,
  type XPostCandidate,
} from '../../domain/automation/planner.js';
import { dayMs } from '../../domain/automation/matching.js';
import { withWarnings, type AutomationActionView } from '../../domain/automation/views.js';
import {
  allKinds,
  dailyCapReached,
  ruleOf,
  type XAutomationState,
} from '../../domain/automation/x-automation.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import type { Checkpoint } from '../../infra/event-store/port.js';
import {
  awaitReadModels,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteOf,
} from '../shared/command-handler.js';
import { decideXAutomation, runStepRetries } from './x-automation-commands.js';

/** What X did with a claimed action. `definite`: X certainly did nothing (it refused before acting). */
export type EffectOutcome =
  { status: 'succeeded'; warnings: string[] } | { status: 'failed'; error: string; definite: boolean };

export interface ActionTarget {
  orgId: string;
  postId: string;
  socialAccountId: string;
  externalTweetId: string;
}

/** The calls a run makes to act (the live ones: the X connector and the x-posts deletion; tests: fakes). */
export interface AutomationEffects {
  /** Reposts the post with the account it was published with; `again`: the workspace reposted it before. */
  repost(target: ActionTarget & { again: boolean }): Promise<EffectOutcome>;
  /** Deletes the post on X and removes it here, as POST x-posts/delete does. */
  delete(target: ActionTarget, metadata: CommandMetadata): Promise<EffectOutcome>;
}

export interface AutomationRunDeps {
  commands: CommandDeps;
  /** The workspace's published X posts published since `since`, with their latest metrics. */
  candidates(orgId: string, since: string): Promise<XPostCandidate[]>;
  effects: AutomationEffects;
  now: () => Date;
  /** How long a run holds its night without deciding anything; default 15 minutes. */
  leaseMs?: number;
  /** A claim older than this never settled is from a stopped run; default 15 minutes (a call times out long before). */
  staleActionMs?: number;
}

export interface RunXAutomationInput {
  orgId: string;
  runId: string;
  trigger: RunTrigger;
  /** The night a nightly run is for (the workspace's local date). */
  localDate: string | null;
  /** Which rules to apply; both when left out. */
  kinds?: readonly AutomationKind[];
  /** Record only, whatever the rules say. */
  dryRun: boolean;
  /** Who asked (null: the nightly sweep). */
  by: string | null;
}

export interface XAutomationRunResult {
  dryRun: boolean;
  kinds: AutomationKind[];
  counts: RunCounts;
  actions: AutomationActionView[];
  warnings: string[];
}

/** Failed calls to X in a row after which a run leaves a rule's other picks for a later run. */
export const maxFailuresInARow = 3;

const ruleName: Record<AutomationKind, string> = { auto_repost: 'autoRepost', auto_delete: 'autoDelete' };

function actionView(
  kind: AutomationKind,
  actionId: string,
  evidence: ActionEvidence,
  fields: Pick<AutomationActionView, 'status' | 'reason' | 'dryRun' | 'error' | 'createdAt'>,
): AutomationActionView {
  return {
    id: actionId,
    kind,
    socialAccountId: evidence.socialAccountId,
    sourcePostId: evidence.postId,
    externalTweetId: evidence.externalTweetId,
    ...fields,
  };
}

const emptySummary = (): KindSummary => ({ planned: 0, acted: 0, skipped: 0, failed: 0 });

/**
 * Runs the automation once. `record` commits the answer with the run's last append (the Idempotency-Key).
 * Throws the aggregate's Conflict when a nightly run's night is done or taken (`night_done`, `night_taken`).
 */
export async function runXAutomation(
  deps: AutomationRunDeps,
  input: RunXAutomationInput,
  metadata: CommandMetadata,
  options: { record?: SideWriteOf<XAutomationRunResult>; awaitReadModels?: boolean } = {},
): Promise<XAutomationRunResult> {
  const { orgId, runId } = input;
  const commands = deps.commands;
  const step = { awaitReadModels: false, retries: runStepRetries } as const;
  const at = () => deps.now().toISOString();
  const requested = input.kinds && input.kinds.length > 0 ? [...new Set(input.kinds)] : [...allKinds];
  const started = await decideXAutomation(
    commands,
    orgId,
    {
      type: 'StartXAutomationRun',
      orgId,
      runId,
      trigger: input.trigger,
      localDate: input.localDate,
      kinds: requested,
      dryRun: input.dryRun,
      by: input.by,
      now: at(),
      leaseMs: deps.leaseMs ?? 15 * 60_000,
      staleActionMs: deps.staleActionMs ?? 15 * 60_000,
    },
    metadata,
    step,
  );
  let state: XAutomationState = started.state;
  let revision = started.revision;
  let last: Checkpoint | null = started.position;
  /** Each step is decided first against what the run's previous step left (one read of the stream per run). */
  const seen = () => ({ ...step, loaded: { state, revision } });

  const warnings: string[] = [];
  const kinds: AutomationKind[] = [];
  for (const kind of requested) {
    const rule = ruleOf(state, kind);
    if (!rule) warnings.push(`${ruleName[kind]} is not set up`);
    else if (!rule.enabled) warnings.push(`${ruleName[kind]} is off`);
    else {
      kinds.push(kind);
      if (rule.dryRun && !input.dryRun)
        warnings.push(`${ruleName[kind]} is in dry run: it recorded what it would do and left X alone`);
    }
  }
  const dryRun = input.dryRun || (kinds.length > 0 && kinds.every((k) => ruleOf(state, k)!.dryRun));

  const counts: RunCounts = { evaluated: 0, matched: 0, acted: 0, skipped: 0, failed: 0 };
  const byKind: Record<AutomationKind, KindSummary> = {
    auto_repost: emptySummary(),
    auto_delete: emptySummary(),
  };
  const actions: AutomationActionView[] = [];

  if (kinds.length > 0) {
    const oldest = Math.max(...kinds.map((k) => ruleOf(state, k)!.maxAgeDays));
    const since = new Date(deps.now().getTime() - oldest * dayMs).toISOString();
    const candidates = await deps.candidates(orgId, since);
    for (const kind of kinds) {
      const now = at();
      const rule = ruleOf(state, kind);
      if (!rule) continue;
      const plan: RulePlan =
        kind === 'auto_repost'
          ? planRepost(state.autoRepost!, candidates, state, now)
          : planDelete(state.autoDelete!, candidates, state, now);
      counts.evaluated += plan.evaluated;
      counts.matched += plan.picks.length;
      warnings.push(...plan.warnings);
      const summary = byKind[kind];
      let failedInARow = 0;
      for (const [index, pick] of plan.picks.entries()) {
        // X keeps failing (an account to reconnect, an outage): the rule's other picks wait for a later run.
        if (failedInARow >= maxFailuresInARow) {
          const left = plan.picks.length - index;
          summary.skipped += left;
          counts.skipped += left;
          warnings.push(
            `${ruleName[kind]}: X failed ${failedInARow} times in a row; ${left} more matching post${left === 1 ? ' was' : 's were'} left for a later run`,
          );
          break;
        }
        // The cap is reached (a skip recorded says so): the rule's other picks wait for a later run.
        if (index > 0 && dailyCapReached(state, runId, kind, input.dryRun, at())) {
          const left = plan.picks.length - index;
          summary.skipped += left;
          counts.skipped += left;
          warnings.push(
            `${ruleName[kind]}: maxActionsPerDay reached; ${left} more matching post${left === 1 ? ' was' : 's were'} left for a later run`,
          );
          break;
        }
        const actionId = deterministicUuid(runId, kind, pick.evidence.postId);
        const decided = await decideXAutomation(
          commands,
          orgId,
          {
            type: 'DecideXAutomationAction',
            runId,
            actionId,
            kind,
            evidence: pick.evidence,
            reason: pick.reason,
            dryRun: input.dryRun,
            now: at(),
          },
          metadata,
          seen(),
        );
        ({ state, revision } = decided);
        last = decided.position ?? last;
        const event = decided.events[0];
        if (!event) continue;
        if (event.type === 'XAutomationActionRecorded') {
          const d = event.data;
          actions.push(
            actionView(kind, actionId, d.evidence, {
              status: d.status,
              reason: d.reason,
              dryRun: d.dryRun,
              error: null,
              createdAt: d.at,
            }),
          );
          if (d.status === 'planned') summary.planned++;
          else {
            summary.skipped++;
            counts.skipped++;
          }
          continue;
        }
        if (event.type !== 'XAutomationActionStarted') continue;
        const claim = event.data;
        const target: ActionTarget = {
          orgId,
          postId: claim.evidence.postId,
          socialAccountId: claim.evidence.socialAccountId,
          externalTweetId: claim.evidence.externalTweetId,
        };
        const outcome = await act(deps.effects, kind, target, claim.again, {
          ...metadata,
          causationId: runId,
          now: at(),
        });
        const settled = await decideXAutomation(
          commands,
          orgId,
          { type: 'SettleXAutomationAction', actionId, outcome, now: at() },
          metadata,
          seen(),
        );
        ({ state, revision } = settled);
        last = settled.position ?? last;
        const succeeded = outcome.status === 'succeeded';
        actions.push(
          actionView(kind, actionId, claim.evidence, {
            status: succeeded ? 'succeeded' : 'failed',
            reason: succeeded ? withWarnings(claim.reason, outcome.warnings) : claim.reason,
            dryRun: false,
            error: succeeded ? null : outcome.error,
            createdAt: claim.at,
          }),
        );
        if (succeeded) {
          summary.acted++;
          counts.acted++;
          failedInARow = 0;
        } else {
          summary.failed++;
          counts.failed++;
          failedInARow++;
        }
      }
    }
  }

  const result: XAutomationRunResult = { dryRun, kinds, counts, actions, warnings };
  const record = options.record;
  const completed = await decideXAutomation(
    commands,
    orgId,
    { type: 'CompleteXAutomationRun', runId, counts, byKind, kinds, dryRun, warnings, now: at() },
    metadata,
    { ...seen(), ...(record ? { sideWrite: (trx) => record(trx, result) } : {}) },
  );
  last = completed.position ?? last;
  if (last && options.awaitReadModels !== false) await awaitReadModels(commands, last);
  return result;
}

/** Calls X through the effects; a throw that is not an outcome (a bug, the database) is a failure of unknown outcome. */
async function act(
  effects: AutomationEffects,
  kind: AutomationKind,
  target: ActionTarget,
  again: boolean,
  metadata: CommandMetadata,
): Promise<EffectOutcome> {
  try {
    return kind === 'auto_repost'
      ? await effects.repost({ ...target, again })
      : await effects.delete(target, metadata);
  } catch (error) {
    return {
      status: 'failed',
      error: error instanceof Error ? error.message : String(error),
      definite: false,
    };
  }
}

/** A run id: from the Idempotency-Key when there is one (a retried request is the same run), else fresh. */
export function newRunId(seed: string | undefined): string {
  return seed ? deterministicUuid(seed, 'x-automation-run') : randomUUID();
}
