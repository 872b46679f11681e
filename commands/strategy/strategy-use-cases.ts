// Content strategy use cases for a caller (a member, or an assistant reading with get_strategy): read the strategy
// shown (active, else the draft), its versions, edit, confirm, generate (an AI job: the model, or the offline
// writer), add a priority, decide a recommendation. Every write decides against `strategy-<orgId>` through the
// write pipeline and answers the version it wrote.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import type { AiJobRunner } from '../../domain/ai/job.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { InvalidFields, Unprocessable } from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { platforms, type Platform } from '../../domain/shared/platforms.js';
import {
  contentOfGenerated,
  generateStrategyJob,
  type StrategyGenerateInput,
} from '../../domain/strategy/generate-job.js';
import {
  activeVersionOf,
  generatedBy,
  priorityStatusAt,
  shownVersionOf,
  strategyCategory,
  strategyDecider,
  versionHistoryOf,
  type StrategyChanges,
  type StrategyCommand,
  type StrategyState,
  type StrategyVersion,
} from '../../domain/strategy/strategy.js';
import { strategyView, type StrategyView } from '../../domain/strategy/views.js';
import { streamName } from '../../infra/event-store/port.js';
import type { ReadModels } from '../../projections/read-models.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteDb,
} from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export interface StrategyDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
  /** Runs the strategy.generate job (the ai slice's `ai jobs` service). */
  aiJobs: AiJobRunner;
  /** The workspace's public brand context (the brand-profile slice's `brand context` service). */
  brandContext: BrandContextReader;
}

export const strategyStream = (orgId: string) => streamName(strategyCategory, orgId);
/** One strategy per workspace: its id never changes across versions. */
export const strategyIdOf = (orgId: string) => deterministicUuid('strategy', orgId);

const reading = (orgId: string) => ({ orgId, permission: 'workspace:read', scope: 'mcp:read' }) as const;
/** Owners and admins; no tool edits the strategy, so assistants may not. */
const managing = (orgId: string) => ({ orgId, permission: 'strategy:manage', scope: null }) as const;

async function loadStrategy(deps: Pick<CommandDeps, 'eventStore'>, orgId: string): Promise<StrategyState> {
  return (await loadAggregate(deps.eventStore, strategyStream(orgId), strategyDecider)).state;
}

function viewOf(state: StrategyState, version: StrategyVersion | null, now: string): StrategyView | null {
  return state.status === 'exists' && version ? strategyView(state, version, now) : null;
}

/** GET: the active version; with none, the draft waiting to be confirmed; null when the workspace has neither. */
export async function getStrategy(
  deps: Pick<StrategyDeps, 'commands'>,
  caller: Caller,
  input: { orgId: string },
  now: string,
): Promise<StrategyView | null> {
  authorize(caller, reading(input.orgId));
  const state = await loadStrategy(deps.commands, input.orgId);
  return viewOf(state, shownVersionOf(state), now);
}

/** Every version, newest first, a page of `limit` at a time. */
export async function listStrategyVersions(
  deps: Pick<StrategyDeps, 'commands'>,
  caller: Caller,
  input: { orgId: string; page?: number; limit?: number },
  now: string,
): Promise<StrategyView[]> {
  authorize(caller, reading(input.orgId));
  const state = await loadStrategy(deps.commands, input.orgId);
  if (state.status !== 'exists') return [];
  const limit = input.limit ?? 20;
  const from = ((input.page ?? 1) - 1) * limit;
  return versionHistoryOf(state)
    .slice(from, from + limit)
    .map((v) => strategyView(state, v, now));
}

type Acting = Pick<StrategyCommand, 'orgId' | 'strategyId' | 'idSeed' | 'by' | 'now'>;

interface DecideOptions {
  /** Seeds ids and event ids, so a retried request decides the same (the Idempotency-Key's). */
  idempotencySeed?: string | undefined;
  /** Stores the answer with the append (the idempotency record). */
  record?: ((trx: SideWriteDb, view: StrategyView) => Promise<void>) | undefined;
}

/** Decides one command and answers the version `answer` picks from the state after it. */
async function decideStrategy(
  deps: Pick<WriteDeps, 'commands'>,
  orgId: string,
  metadata: CommandMetadata,
  command: (acting: Acting) => Promise<StrategyCommand>,
  answer: (state: StrategyState, command: StrategyCommand) => StrategyVersion | null,
  options: DecideOptions = {},
): Promise<StrategyView> {
  const { idempotencySeed, record } = options;
  const acting: Acting = {
    orgId,
    strategyId: strategyIdOf(orgId),
    idSeed: idempotencySeed ?? randomUUID(),
    by: metadata.userId ?? null,
    now: metadata.now,
  };
  const decided = await command(acting);
  const view = (state: StrategyState) => {
    const shown = viewOf(state, answer(state, decided), metadata.now);
    // decide refused the command already when there is nothing to answer; reaching this is a broken invariant.
    if (!shown) throw new Error(`Strategy of ${orgId} missing after ${decided.type}`);
    return shown;
  };
  const outcome = await handleCommand(deps.commands, {
    stream: strategyStream(orgId),
    decider: strategyDecider,
    command: decided,
    metadata: { ...metadata, orgId },
    eventId: deterministicEventIds(idempotencySeed, 'strategy'),
    sideWrite: record ? (trx, o) => record(trx, view(o.state)) : undefined,
  });
  return view(outcome.state);
}

/** A caller's write: through the write pipeline (Idempotency-Key, metadata), then `decideStrategy`. */
async function writeStrategy(
  deps: WriteDeps,
  caller: Caller,
  orgId: string,
  request: WriteRequest,
  command: (acting: Acting, step: { idempotencySeed: string | undefined }) => Promise<StrategyCommand>,
  answer: (state: StrategyState, command: StrategyCommand) => StrategyVersion | null,
): Promise<Written<StrategyView>> {
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) =>
    decideStrategy(deps, orgId, metadata, (acting) => command(acting, { idempotencySeed }), answer, {
      idempotencySeed,
      record,
    }),
  );
}

/** PATCH: edits the version GET shows; with none, starts a draft from the body. */
export async function updateStrategy(
  deps: StrategyDeps,
  caller: Caller,
  input: { orgId: string; changes: StrategyChanges },
  request: WriteRequest,
): Promise<Written<StrategyView>> {
  authorize(caller, managing(input.orgId));
  return writeStrategy(
    deps,
    caller,
    input.orgId,
    request,
    async (acting) => ({ type: 'EditStrategy', ...acting, changes: input.changes }),
    shownVersionOf,
  );
}

/** Confirm: the draft (with `updates`) becomes the active version; without a draft, the active one is confirmed. */
export async function confirmStrategy(
  deps: StrategyDeps,
  caller: Caller,
  input: { orgId: string; updates?: StrategyChanges },
  request: WriteRequest,
): Promise<Written<StrategyView>> {
  authorize(caller, managing(input.orgId));
  return underUpdates(() =>
    writeStrategy(
      deps,
      caller,
      input.orgId,
      request,
      async (acting) => ({
        type: 'ConfirmStrategy',
        ...acting,
        ...(input.updates ? { updates: input.updates } : {}),
      }),
      activeVersionOf,
    ),
  );
}

/** Confirm's fields are sent under `updates`: its refusals name them there (`updates.contentMix`). */
async function underUpdates<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if ((error instanceof InvalidFields || error instanceof Unprocessable) && error.details)
      throw error.withDetails(error.details.map((d) => ({ ...d, path: `updates.${d.path}` })));
    throw error;
  }
}

/** What the generator is told of the workspace: its name, its connected platforms and its public brand context. */
export async function strategyInputOf(
  deps: Pick<StrategyDeps, 'readModels' | 'brandContext'>,
  orgId: string,
  goal: string | null,
): Promise<StrategyGenerateInput> {
  const [workspace, accounts, brand] = await Promise.all([
    deps.readModels.selectFrom('workspaces').select('name').where('id', '=', orgId).executeTakeFirst(),
    deps.readModels
      .selectFrom('social_accounts')
      .select('platform')
      .distinct()
      .where('org_id', '=', orgId)
      .where('deleted', '=', false)
      .where('status', '=', 'connected')
      .execute(),
    deps.brandContext.forOrg(orgId),
  ]);
  const connected = new Set(accounts.map((a) => a.platform));
  return {
    goal,
    brand,
    workspaceName: workspace?.name ?? 'This workspace',
    connectedPlatforms: platforms.filter((p): p is Platform => connected.has(p)),
  };
}

/** The version the command's agent run generated (the same run again generates nothing new). */
const generatedVersionOf = (state: StrategyState, command: StrategyCommand) =>
  command.type === 'GenerateStrategy' ? generatedBy(state, command.agentRunId) : null;

/** The GenerateStrategy command: the strategy.generate job run through the `ai jobs` service. */
async function generateCommand(
  deps: Pick<StrategyDeps, 'readModels' | 'brandContext' | 'aiJobs'>,
  acting: Acting,
  input: { goal: string | null; replaceActive: boolean; idempotencyKey: string | null },
): Promise<StrategyCommand> {
  const jobInput = await strategyInputOf(deps, acting.orgId, input.goal);
  const result = await deps.aiJobs.run(generateStrategyJob, {
    orgId: acting.orgId,
    input: jobInput,
    userId: acting.by,
    idempotencyKey: input.idempotencyKey,
    payload: { goal: input.goal, replaceActive: input.replaceActive },
  });
  return {
    type: 'GenerateStrategy',
    ...acting,
    content: contentOfGenerated(result.output, { goal: input.goal, idSeed: result.runId, now: acting.now }),
    source: result.source,
    providerModel: result.providerModel,
    agentRunId: result.runId,
    replaceActive: input.replaceActive,
  };
}

/** Generate: the strategy.generate job writes a new version, a draft (default) or, with replaceActive, the active one. */
export async function generateStrategy(
  deps: StrategyDeps,
  caller: Caller,
  input: { orgId: string; goal?: string; replaceActive?: boolean },
  request: WriteRequest,
): Promise<Written<StrategyView>> {
  authorize(caller, managing(input.orgId));
  const goal = input.goal?.trim() ? input.goal.trim() : null;
  const replaceActive = input.replaceActive ?? false;
  return writeStrategy(
    deps,
    caller,
    input.orgId,
    request,
    // Inside the write: a replay of the Idempotency-Key answers the first result without a second run.
    (acting, { idempotencySeed }) =>
      generateCommand(deps, acting, { goal, replaceActive, idempotencyKey: idempotencySeed ?? null }),
    generatedVersionOf,
  );
}

/**
 * A generated draft as part of another use case that has already authorised its caller (onboarding from a
 * website: "generates a draft content plan … does not activate the plan"). Never activates: an active version
 * stays active and the draft waits beside it, as a generate without replaceActive.
 */
export async function proposeStrategyDraft(
  deps: Pick<StrategyDeps, 'commands' | 'readModels' | 'brandContext' | 'aiJobs'>,
  input: { orgId: string; goal: string | null; idempotencyKey?: string | null },
  metadata: CommandMetadata,
): Promise<StrategyView> {
  const goal = input.goal?.trim() ? input.goal.trim() : null;
  const seed = input.idempotencyKey ?? undefined;
  return decideStrategy(
    deps,
    input.orgId,
    metadata,
    (acting) => generateCommand(deps, acting, { goal, replaceActive: false, idempotencyKey: seed ?? null }),
    generatedVersionOf,
    { idempotencySeed: seed },
  );
}

/** Adds a time-bounded priority to the version GET shows. */
export async function addStrategyPriority(
  deps: StrategyDeps,
  caller: Caller,
  input: { orgId: string; text: string; startsAt?: string; endsAt?: string | null },
  request: WriteRequest,
): Promise<Written<StrategyView>> {
  authorize(caller, managing(input.orgId));
  return writeStrategy(
    deps,
    caller,
    input.orgId,
    request,
    async (acting) => ({
      type: 'AddStrategyPriority',
      ...acting,
      priorityId: deterministicUuid(acting.idSeed, 'priority'),
      text: input.text,
      startsAt: input.startsAt ? new Date(input.startsAt).toISOString() : acting.now,
      endsAt: input.endsAt ? new Date(input.endsAt).toISOString() : null,
    }),
    shownVersionOf,
  );
}

/** Accepts or rejects a recommendation of the version GET shows. */
export async function decideStrategyRecommendation(
  deps: StrategyDeps,
  caller: Caller,
  input: { orgId: string; recommendationId: string; decision: 'accepted' | 'rejected' },
  request: WriteRequest,
): Promise<Written<StrategyView>> {
  authorize(caller, managing(input.orgId));
  return writeStrategy(
    deps,
    caller,
    input.orgId,
    request,
    async (acting) => ({
      type: 'DecideStrategyRecommendation',
      ...acting,
      recommendationId: input.recommendationId,
      decision: input.decision,
    }),
    shownVersionOf,
  );
}

/** What the strategy slice offers other slices' use cases (the 'strategy drafts' service). */
export interface StrategyDrafts {
  /**
   * Generates a draft (goal and the workspace's brand context, a model or the offline writer) and saves it without
   * activating it. The caller has authorised its own caller; `metadata` is its write's. The same
   * `idempotencyKey` decides the same draft again (nothing new).
   */
  propose(
    orgId: string,
    options: { goal: string | null; idempotencyKey?: string | null },
    metadata: CommandMetadata,
  ): Promise<StrategyView>;
}

/**
 * What a post writer is grounded in from the strategy (domain/ai/writing.ts): the shown version's pillars (the
 * active one, or the draft before any is confirmed) and the priorities in force at `now`.
 */
export async function strategyGroundingOf(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
  now: string,
): Promise<{ pillars: { name: string; description: string; keywords: string[] }[]; priorities: string[] }> {
  const version = shownVersionOf(await loadStrategy(deps, orgId));
  if (!version) return { pillars: [], priorities: [] };
  return {
    pillars: version.content.pillars.map((p) => ({
      name: p.name,
      description: p.description ?? '',
      keywords: p.keywords ?? [],
    })),
    priorities: version.content.priorities
      .filter((p) => priorityStatusAt(p, now) === 'active')
      .map((p) => p.text),
  };
}
