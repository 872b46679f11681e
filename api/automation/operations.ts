// The X automation's operations (spec "X automation"): GET and PUT ORG/automation/x/rules
// (get_x_automation_rules, update_x_automation_rules), POST ORG/automation/x/run (run_x_automation) and
// GET ORG/automation/x/runs (list_x_automation_runs). Reading is for every member; saving and running for owners
// and admins (settings:manage; docs/decisions.md, "X automation"). No operation costs credits.
import {
  getXAutomationRules,
  listXAutomationRuns,
  runXAutomationNow,
  updateXAutomationRules,
  type XAutomationDeps,
} from '../../commands/automation/x-automation-use-cases.js';
import type { PublishingEnv } from '../publishing/settings.js';
import type { PlatformEnv } from '../platform/settings.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import { xAutomationDeps } from './deps.js';
import {
  runXAutomationBody,
  updateXAutomationRulesBody,
  xAutomationRulesSchema,
  xAutomationRunSchema,
  xAutomationRunsQuery,
  xAutomationRunsSchema,
} from './schemas.js';

const operation = operationsWith<XAutomationDeps>();
const path = '/v1/orgs/{orgId}/automation/x';
const reading = { permission: 'workspace:read', scope: 'mcp:read' } as const;
const managing = { permission: 'settings:manage', scope: 'posts:write' } as const;

const ruleState = (rule: { enabled: boolean; dryRun: boolean } | null) =>
  rule === null ? 'not set up' : !rule.enabled ? 'off' : rule.dryRun ? 'on, dry run' : 'on';

export const xAutomationOperations = operationGroup<XAutomationDeps, PlatformEnv & PublishingEnv>(
  (ctx) => xAutomationDeps(ctx),
  [
    operation({
      name: 'get_x_automation_rules',
      kind: 'read',
      method: 'get',
      path: `${path}/rules`,
      tags: ['marketing'],
      summary: "The workspace's X automation rules (auto-repost, auto-delete)",
      description: 'Tool: get_x_automation_rules. A rule never set up is null.',
      params: orgParams,
      output: xAutomationRulesSchema,
      outputDescription: 'The rules',
      errors: [400, 401, 403],
      access: reading,
      tool: {
        title: 'Get the X automation rules',
        description:
          "Returns the workspace's X automation rules: autoRepost (reposts its own best X posts: threshold or top_n " +
          'selection, age window, cooldown and caps) and autoDelete (deletes its own underperforming X posts: age ' +
          'window, maxImpressions/maxLikes, fresh metrics required, replies protect a post, daily cap), each null ' +
          'when never set up, with enabled and dryRun. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: (r) => `autoRepost: ${ruleState(r.autoRepost)}; autoDelete: ${ruleState(r.autoDelete)}.`,
      },
      run: (deps, { caller }, input) => getXAutomationRules(deps, caller, input),
    }),
    operation({
      name: 'update_x_automation_rules',
      kind: 'write',
      method: 'put',
      path: `${path}/rules`,
      tags: ['marketing'],
      summary: 'Save the X automation rules',
      description:
        'Tool: update_x_automation_rules. A kind left out keeps its saved rule; fields left out keep their values ' +
        'or, the first time, take safe defaults (off, dry run); null clears a threshold.',
      params: orgParams,
      body: updateXAutomationRulesBody,
      output: xAutomationRulesSchema,
      outputDescription: 'The rules as saved',
      errors: [400, 401, 402, 403, 409, 503],
      access: managing,
      tool: {
        title: 'Save the X automation rules',
        description:
          'Saves the workspace’s X automation rules. Give autoRepost and/or autoDelete with only the fields to ' +
          'change; a rule saved for the first time starts off and in dry run (it records what it would do and touches ' +
          'nothing). null clears a threshold (minImpressions, minLikes, minEngagementRate, maxImpressions, maxLikes). ' +
          'Turning enabled on with dryRun false lets automation repost or delete the workspace’s own X posts on its ' +
          'own every night: confirm with the person first.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        summary: (r) =>
          `Saved. autoRepost: ${ruleState(r.autoRepost)}; autoDelete: ${ruleState(r.autoDelete)}.`,
      },
      run: (deps, { caller, request }, input) => updateXAutomationRules(deps, caller, input, request),
    }),
    operation({
      name: 'run_x_automation',
      kind: 'write',
      method: 'post',
      path: `${path}/run`,
      tags: ['marketing'],
      summary: 'Apply the enabled X automation rules now',
      description:
        'Tool: run_x_automation. Instead of waiting for the nightly sweep; a rule in dry run, or a run with ' +
        '`dryRun: true`, records what it would do without touching X.',
      params: orgParams,
      body: runXAutomationBody,
      bodyRequired: false,
      output: xAutomationRunSchema,
      outputDescription: 'What the run did',
      errors: [400, 401, 402, 403, 409, 503],
      access: managing,
      tool: {
        title: 'Run the X automation now',
        description:
          'Applies the workspace’s enabled X automation rules now (kinds: auto_repost, auto_delete; both by ' +
          'default) and answers what it did: each action planned (dry run), succeeded, failed or skipped with why, ' +
          'and counts. A rule in dry run, or dryRun: true, touches nothing on X. A live auto_delete rule deletes ' +
          'posts on X for good: check the rules (get_x_automation_rules) and prefer dryRun: true first.',
        hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
        summary: (r) =>
          `${r.dryRun ? 'Dry run: ' : ''}evaluated ${r.counts.evaluated}, matched ${r.counts.matched}, acted ` +
          `${r.counts.acted}, skipped ${r.counts.skipped}, failed ${r.counts.failed}` +
          (r.warnings.length > 0 ? `. ${r.warnings.join('. ')}.` : '.'),
      },
      run: (deps, { caller, request }, input) => runXAutomationNow(deps, caller, input, request),
    }),
    operation({
      name: 'list_x_automation_runs',
      kind: 'read',
      method: 'get',
      path: `${path}/runs`,
      tags: ['marketing'],
      summary: 'What X automation did, newest first',
      description:
        'Tool: list_x_automation_runs. Every action runs recorded: planned, succeeded, failed or skipped.',
      params: orgParams,
      query: xAutomationRunsQuery,
      output: xAutomationRunsSchema,
      outputDescription: 'Automation actions, newest first',
      errors: [400, 401, 403],
      access: reading,
      tool: {
        title: 'List X automation runs',
        description:
          'Lists what X automation did or would do, newest first: each action (auto_repost or auto_delete) with the ' +
          'post, status (planned in a dry run, succeeded, failed, skipped), why, and any error. limit: at most 200 ' +
          '(default 50). Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: (r) => `${r.items.length} automation action${r.items.length === 1 ? '' : 's'}.`,
      },
      run: (deps, { caller }, input) => listXAutomationRuns(deps, caller, input),
    }),
  ],
);
