// X automation use cases (spec "X automation"): read and save the rules, run them now, list what runs did.
// Reading is for every member (mcp:read for assistants); saving and running are for those who manage the
// workspace's settings (owners and admins; posts:write for assistants, as the spec's scope table says).
import type { Kysely } from 'kysely';
import type { AutomationKind } from '../../domain/automation/event-codec.js';
import type { AutoDeletePatch, AutoRepostPatch } from '../../domain/automation/rules.js';
import {
  rulesView,
  type AutomationActionView,
  type XAutomationRulesView,
} from '../../domain/automation/views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { InvalidFields, type ErrorDetail } from '../../domain/shared/errors.js';
import { listXAutomationActions, xAutomationRulesOf } from '../../projections/automation/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { CommandDeps } from '../shared/command-handler.js';
import type { IdempotencyStore } from '../shared/idempotency.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { AccountAccess } from '../social-accounts/account-access.js';
import {
  newRunId,
  runXAutomation,
  type AutomationRunDeps,
  type XAutomationRunResult,
} from './run-x-automation.js';
import { decideXAutomation } from './x-automation-commands.js';

export interface XAutomationDeps {
  commands: CommandDeps;
  idempotency: IdempotencyStore;
  readModels: Kysely<ReadModels>;
  accounts: Pick<AccountAccess, 'resolve'>;
  /** What a run needs besides the write path: the posts it evaluates, what it does on X, the clock. */
  runs: Omit<AutomationRunDeps, 'commands'>;
}

const reading = (orgId: string) => ({ orgId, permission: 'workspace:read', scope: 'mcp:read' }) as const;
const managing = (orgId: string) => ({ orgId, permission: 'settings:manage', scope: 'posts:write' }) as const;

/** Tool: get_x_automation_rules. */
export async function getXAutomationRules(
  deps: Pick<XAutomationDeps, 'readModels'>,
  caller: Caller,
  input: { orgId: string },
): Promise<XAutomationRulesView> {
  authorize(caller, reading(input.orgId));
  return xAutomationRulesOf(deps.readModels, input.orgId);
}

export interface UpdateXAutomationRulesInput {
  orgId: string;
  autoRepost?: AutoRepostPatch;
  autoDelete?: AutoDeletePatch;
}

/** A named account must be one of the workspace's X accounts (connected or not: a run says when it cannot act). */
async function checkAccounts(deps: Pick<XAutomationDeps, 'accounts'>, input: UpdateXAutomationRulesInput) {
  const problems: ErrorDetail[] = [];
  for (const [kind, patch] of [
    ['autoRepost', input.autoRepost],
    ['autoDelete', input.autoDelete],
  ] as const) {
    const socialAccountId = patch?.socialAccountId;
    if (!socialAccountId) continue;
    const resolved = await deps.accounts.resolve({ orgId: input.orgId, platform: 'x', socialAccountId });
    if (!resolved.ok && resolved.reason === 'not_found')
      problems.push({ path: `${kind}.socialAccountId`, message: 'not an X account of this workspace' });
  }
  if (problems.length > 0) throw new InvalidFields('Unknown social account', problems);
}

/** Tool: update_x_automation_rules. A kind left out keeps its rule; a rule saved the first time starts off, in dry run. */
export async function updateXAutomationRules(
  deps: XAutomationDeps,
  caller: Caller,
  input: UpdateXAutomationRulesInput,
  request: WriteRequest,
): Promise<Written<XAutomationRulesView>> {
  authorize(caller, managing(input.orgId));
  await checkAccounts(deps, input);
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const outcome = await decideXAutomation(
      deps.commands,
      input.orgId,
      {
        type: 'UpdateXAutomationRules',
        orgId: input.orgId,
        ...(input.autoRepost ? { autoRepost: input.autoRepost } : {}),
        ...(input.autoDelete ? { autoDelete: input.autoDelete } : {}),
        by: caller.userId,
        now: request.now,
      },
      metadata,
      record ? { sideWrite: (trx, o) => record(trx, rulesView(o.state)) } : {},
    );
    return rulesView(outcome.state);
  });
}

export interface RunXAutomationNowInput {
  orgId: string;
  kinds?: AutomationKind[];
  dryRun?: boolean;
}

/**
 * Tool: run_x_automation. Applies the enabled rules now; a rule in dry run (or a run asked for one) records what
 * it would do and leaves X alone. With an Idempotency-Key a retried request is the same run (its first answer).
 */
export async function runXAutomationNow(
  deps: XAutomationDeps,
  caller: Caller,
  input: RunXAutomationNowInput,
  request: WriteRequest,
): Promise<Written<XAutomationRunResult>> {
  authorize(caller, managing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) =>
    runXAutomation(
      { ...deps.runs, commands: deps.commands },
      {
        orgId: input.orgId,
        runId: newRunId(idempotencySeed),
        trigger: 'manual',
        localDate: null,
        ...(input.kinds ? { kinds: input.kinds } : {}),
        dryRun: input.dryRun === true,
        by: caller.userId,
      },
      metadata,
      record ? { record } : {},
    ),
  );
}

/** Tool: list_x_automation_runs. Newest first; `limit` default 50. */
export async function listXAutomationRuns(
  deps: Pick<XAutomationDeps, 'readModels'>,
  caller: Caller,
  input: { orgId: string; limit?: number },
): Promise<{ items: AutomationActionView[] }> {
  authorize(caller, reading(input.orgId));
  return { items: await listXAutomationActions(deps.readModels, input.orgId, input.limit ?? 50) };
}
