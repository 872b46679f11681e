// The content strategy aggregate: every version of one workspace's strategy (`strategy-<orgId>`), each
// `draft → active → superseded`, and the rules of its content (docs/decisions.md, "Content strategy").
// One stream per workspace, so "at most one active and one draft version" is decided against a single state.
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields, NotFound, Unprocessable, type ErrorDetail } from '../shared/errors.js';
import { deterministicUuid } from '../shared/ids.js';
import type { Platform } from '../shared/platforms.js';
import {
  strategyEventCodec,
  type ChannelPriority,
  type ContentMixEntry,
  type Opportunity,
  type Pillar,
  type Recommendation,
  type StrategyContent,
  type StrategyEvent,
  type StrategyPriority,
  type StrategySource,
} from './event-codec.js';

export * from './event-codec.js';

export const strategyCategory = 'strategy';
/** The Strategy resource's shape version (`meta.schemaVersion`). */
export const strategySchemaVersion = 1;

export const strategyLimits = {
  text: 2000,
  name: 120,
  listItems: 50,
  keywords: 30,
  /** A channel's postsPerWeek: 0 (paused) to several a day. */
  postsPerWeek: { min: 0, max: 70 },
  /** How far from 100 a content mix may sum (decimal percentages such as 33.3 + 33.3 + 33.4). */
  mixTolerance: 1e-6,
} as const;

export type StrategyStatus = 'draft' | 'active' | 'superseded';

export interface StrategyVersion {
  version: number;
  status: StrategyStatus;
  content: StrategyContent;
  source: StrategySource;
  providerModel: string | null;
  agentRunId: string | null;
  createdAt: string;
  createdBy: string | null;
  updatedAt: string;
  generatedAt: string | null;
  confirmedAt: string | null;
  confirmedBy: string | null;
  lastEditedAt: string | null;
  lastSuggestedAt: string | null;
  supersededAt: string | null;
  supersededBy: number | null;
}

export type StrategyState =
  | { status: 'none' }
  | {
      status: 'exists';
      orgId: string;
      strategyId: string;
      versions: Readonly<Record<number, StrategyVersion>>;
      latest: number;
    };

// ---- What a person sends: the PATCH body's fields (ids and statuses optional) ----

export interface PillarInput {
  id?: string;
  name: string;
  description?: string;
  priority?: number;
  keywords?: string[];
}
export interface OpportunityInput {
  id: string;
  theme: string;
  rationale?: string;
  status?: Opportunity['status'];
}
export interface PriorityInput {
  id: string;
  text: string;
  startsAt: string;
  endsAt?: string | null;
  status?: StrategyPriority['status'];
  createdAt?: string;
  createdBy?: string | null;
}
export interface RecommendationInput {
  id: string;
  summary: string;
  createdAt: string;
  rationale?: string;
  proposedChange?: string;
  status?: Recommendation['status'];
  confidence?: Recommendation['confidence'];
}

/** Omitted fields stay; arrays replace the version's whole list. */
export interface StrategyChanges {
  sourceGoal?: string | null;
  primaryObjective?: string;
  targetAudience?: string;
  pillars?: PillarInput[];
  channelPriorities?: ChannelPriority[];
  contentMix?: ContentMixEntry[];
  positioningAngles?: string[];
  opportunities?: OpportunityInput[];
  priorities?: PriorityInput[];
  guardrailNotes?: string[];
  recommendations?: RecommendationInput[];
}

// ---- Commands: time, ids and the generated content come in with them ----

interface Acting {
  orgId: string;
  /** The strategy's id if this command creates the workspace's first version. */
  strategyId: string;
  /** Seeds the ids of pillars sent without one (deterministic: a retried request gives the same ids). */
  idSeed: string;
  by: string | null;
  now: string;
}

export type StrategyCommand =
  | (Acting & {
      type: 'GenerateStrategy';
      content: StrategyContent;
      source: Exclude<StrategySource, 'user'>;
      providerModel: string;
      agentRunId: string;
      /** Make the new version active at once (superseding the active one) instead of a draft to confirm. */
      replaceActive: boolean;
    })
  | (Acting & { type: 'EditStrategy'; changes: StrategyChanges })
  | (Acting & { type: 'ConfirmStrategy'; updates?: StrategyChanges })
  | (Acting & {
      type: 'AddStrategyPriority';
      priorityId: string;
      text: string;
      startsAt: string;
      endsAt: string | null;
    })
  | (Acting & {
      type: 'DecideStrategyRecommendation';
      recommendationId: string;
      decision: 'accepted' | 'rejected';
    });

// ---- Reading the state ----

const versionsOf = (state: StrategyState): StrategyVersion[] =>
  state.status === 'exists' ? Object.values(state.versions) : [];

export const activeVersionOf = (state: StrategyState): StrategyVersion | null =>
  versionsOf(state).find((v) => v.status === 'active') ?? null;

export const draftVersionOf = (state: StrategyState): StrategyVersion | null =>
  versionsOf(state).find((v) => v.status === 'draft') ?? null;

/** What GET shows (and PATCH, priorities and recommendations act on): the active version, else the draft. */
export const shownVersionOf = (state: StrategyState): StrategyVersion | null =>
  activeVersionOf(state) ?? draftVersionOf(state);

/** The version an agent run generated, if any. */
export const generatedBy = (state: StrategyState, agentRunId: string): StrategyVersion | null =>
  versionsOf(state).find((v) => v.agentRunId === agentRunId) ?? null;

/** Every version, newest first. */
export const versionHistoryOf = (state: StrategyState): StrategyVersion[] =>
  versionsOf(state).sort((a, b) => b.version - a.version);

/** A priority's status at `now`: an active priority whose end has passed reads `expired` (never stored). */
export function priorityStatusAt(priority: StrategyPriority, now: string): StrategyPriority['status'] {
  if (priority.status !== 'active' || priority.endsAt === null) return priority.status;
  return Date.parse(priority.endsAt) <= Date.parse(now) ? 'expired' : 'active';
}

/**
 * postsPerWeek per channel of the active strategy, for schedule coverage: an enabled channel with postsPerWeek
 * has that target, a disabled channel 0 (nothing is wanted there), a channel without postsPerWeek none.
 */
export function channelTargetsOf(content: StrategyContent): Partial<Record<Platform, number>> {
  const targets: Partial<Record<Platform, number>> = {};
  for (const channel of content.channelPriorities) {
    if (channel.enabled === false) targets[channel.platform] = 0;
    else if (channel.postsPerWeek !== undefined) targets[channel.platform] = channel.postsPerWeek;
  }
  return targets;
}

// ---- Content rules ----

export const emptyContent: StrategyContent = {
  sourceGoal: null,
  primaryObjective: '',
  targetAudience: '',
  pillars: [],
  channelPriorities: [],
  contentMix: [],
  positioningAngles: [],
  opportunities: [],
  priorities: [],
  guardrailNotes: [],
  recommendations: [],
};

const isInstant = (value: string) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));

function duplicates<T>(
  items: readonly T[],
  key: (item: T) => string,
  path: (i: number) => string,
  what: string,
) {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) out.push({ path: path(i), message: `${what} appears twice` });
    seen.add(k);
  });
  return out;
}

/** The content mix's details: known, unique types, 0–100 each, summing to 100 (an empty mix sets no targets). */
export function contentMixProblems(mix: readonly ContentMixEntry[]): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  mix.forEach((entry, i) => {
    if (!Number.isFinite(entry.targetPercent) || entry.targetPercent < 0 || entry.targetPercent > 100)
      out.push({ path: `contentMix.${i}.targetPercent`, message: 'a percentage from 0 to 100' });
  });
  out.push(
    ...duplicates(
      mix,
      (e) => e.contentType,
      (i) => `contentMix.${i}.contentType`,
      'this content type',
    ),
  );
  if (mix.length > 0) {
    const sum = mix.reduce((n, e) => n + e.targetPercent, 0);
    if (!(Math.abs(sum - 100) <= strategyLimits.mixTolerance))
      out.push({
        path: 'contentMix',
        message: `targetPercent values must sum to 100 (they sum to ${+sum.toFixed(4)})`,
      });
  }
  return out;
}

function textProblems(value: string, path: string, max: number = strategyLimits.text): ErrorDetail[] {
  return value.length > max ? [{ path, message: `at most ${max} characters` }] : [];
}

function listProblems(items: readonly unknown[], path: string): ErrorDetail[] {
  return items.length > strategyLimits.listItems
    ? [{ path, message: `at most ${strategyLimits.listItems} items` }]
    : [];
}

/** Every problem of a version's content, each named by its field (`pillars.1.name`, `contentMix`). */
export function contentProblems(content: StrategyContent): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  if (content.sourceGoal !== null) out.push(...textProblems(content.sourceGoal, 'sourceGoal'));
  out.push(...textProblems(content.primaryObjective, 'primaryObjective'));
  out.push(...textProblems(content.targetAudience, 'targetAudience'));
  for (const field of [
    'pillars',
    'channelPriorities',
    'contentMix',
    'positioningAngles',
    'opportunities',
    'priorities',
    'guardrailNotes',
    'recommendations',
  ] as const)
    out.push(...listProblems(content[field], field));

  content.pillars.forEach((p, i) => {
    if (p.name.trim() === '') out.push({ path: `pillars.${i}.name`, message: 'a pillar needs a name' });
    out.push(...textProblems(p.name, `pillars.${i}.name`, strategyLimits.name));
    if (p.description !== undefined) out.push(...textProblems(p.description, `pillars.${i}.description`));
    if (p.priority !== undefined && !Number.isInteger(p.priority))
      out.push({ path: `pillars.${i}.priority`, message: 'an integer' });
    if (p.keywords && p.keywords.length > strategyLimits.keywords)
      out.push({ path: `pillars.${i}.keywords`, message: `at most ${strategyLimits.keywords} keywords` });
  });
  out.push(
    ...duplicates(
      content.pillars,
      (p) => p.id,
      (i) => `pillars.${i}.id`,
      'this pillar id',
    ),
  );
  out.push(
    ...duplicates(
      content.pillars,
      (p) => p.name.trim().toLowerCase(),
      (i) => `pillars.${i}.name`,
      'this pillar name',
    ),
  );

  content.channelPriorities.forEach((c, i) => {
    const { min, max } = strategyLimits.postsPerWeek;
    if (
      c.postsPerWeek !== undefined &&
      !(Number.isFinite(c.postsPerWeek) && c.postsPerWeek >= min && c.postsPerWeek <= max)
    )
      out.push({ path: `channelPriorities.${i}.postsPerWeek`, message: `a number from ${min} to ${max}` });
    if (c.priority !== undefined && !Number.isInteger(c.priority))
      out.push({ path: `channelPriorities.${i}.priority`, message: 'an integer' });
  });
  out.push(
    ...duplicates(
      content.channelPriorities,
      (c) => c.platform,
      (i) => `channelPriorities.${i}.platform`,
      'this platform',
    ),
  );

  out.push(...contentMixProblems(content.contentMix));

  content.positioningAngles.forEach((a, i) => out.push(...textProblems(a, `positioningAngles.${i}`)));
  content.guardrailNotes.forEach((a, i) => out.push(...textProblems(a, `guardrailNotes.${i}`)));

  content.opportunities.forEach((o, i) => {
    if (o.theme.trim() === '')
      out.push({ path: `opportunities.${i}.theme`, message: 'an opportunity needs a theme' });
  });
  out.push(
    ...duplicates(
      content.opportunities,
      (o) => o.id,
      (i) => `opportunities.${i}.id`,
      'this opportunity id',
    ),
  );

  content.priorities.forEach((p, i) => out.push(...priorityProblems(p, `priorities.${i}.`)));
  out.push(
    ...duplicates(
      content.priorities,
      (p) => p.id,
      (i) => `priorities.${i}.id`,
      'this priority id',
    ),
  );

  content.recommendations.forEach((r, i) => {
    if (r.summary.trim() === '')
      out.push({ path: `recommendations.${i}.summary`, message: 'a recommendation needs a summary' });
    if (!isInstant(r.createdAt))
      out.push({ path: `recommendations.${i}.createdAt`, message: 'an ISO 8601 date and time' });
  });
  out.push(
    ...duplicates(
      content.recommendations,
      (r) => r.id,
      (i) => `recommendations.${i}.id`,
      'this recommendation id',
    ),
  );
  return out;
}

function priorityProblems(
  p: Pick<StrategyPriority, 'text' | 'startsAt' | 'endsAt'>,
  prefix: string,
): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  if (p.text.trim() === '') out.push({ path: `${prefix}text`, message: 'a priority needs a text' });
  out.push(...textProblems(p.text, `${prefix}text`));
  if (!isInstant(p.startsAt)) out.push({ path: `${prefix}startsAt`, message: 'an ISO 8601 date and time' });
  if (p.endsAt !== null) {
    if (!isInstant(p.endsAt)) out.push({ path: `${prefix}endsAt`, message: 'an ISO 8601 date and time' });
    else if (isInstant(p.startsAt) && Date.parse(p.endsAt) <= Date.parse(p.startsAt))
      out.push({ path: `${prefix}endsAt`, message: 'must be after startsAt' });
  }
  return out;
}

export function assertValidContent(content: StrategyContent): void {
  const problems = contentProblems(content);
  if (problems.length > 0) throw new InvalidFields('Invalid strategy', problems);
}

/** What a version needs before it is confirmed: something to steer generation by. */
function incompleteFor(content: StrategyContent): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  if (content.primaryObjective.trim() === '')
    out.push({ path: 'primaryObjective', message: 'a confirmed strategy needs a primary objective' });
  if (content.targetAudience.trim() === '')
    out.push({ path: 'targetAudience', message: 'a confirmed strategy needs a target audience' });
  if (content.pillars.length === 0)
    out.push({ path: 'pillars', message: 'a confirmed strategy needs a pillar' });
  return out;
}

/** Applies a person's changes to a version's content, giving ids and defaults to what was sent without them. */
export function applyChanges(
  content: StrategyContent,
  changes: StrategyChanges,
  context: { idSeed: string; now: string; by: string | null },
): StrategyContent {
  const byName = new Map(content.pillars.map((p) => [p.name.trim().toLowerCase(), p.id]));
  const pillars = changes.pillars?.map((p): Pillar => ({
    ...p,
    name: p.name.trim(),
    // A pillar sent without an id keeps the id of the pillar of that name, else gets a new one.
    id:
      p.id ??
      byName.get(p.name.trim().toLowerCase()) ??
      deterministicUuid(context.idSeed, 'pillar', p.name.trim()),
  }));
  const prior = new Map(content.priorities.map((p) => [p.id, p]));
  return {
    ...content,
    ...(changes.sourceGoal !== undefined ? { sourceGoal: changes.sourceGoal } : {}),
    ...(changes.primaryObjective !== undefined ? { primaryObjective: changes.primaryObjective } : {}),
    ...(changes.targetAudience !== undefined ? { targetAudience: changes.targetAudience } : {}),
    ...(pillars ? { pillars } : {}),
    ...(changes.channelPriorities ? { channelPriorities: changes.channelPriorities } : {}),
    ...(changes.contentMix ? { contentMix: changes.contentMix } : {}),
    ...(changes.positioningAngles ? { positioningAngles: changes.positioningAngles } : {}),
    ...(changes.guardrailNotes ? { guardrailNotes: changes.guardrailNotes } : {}),
    ...(changes.opportunities
      ? { opportunities: changes.opportunities.map((o) => ({ ...o, status: o.status ?? 'open' })) }
      : {}),
    ...(changes.priorities
      ? {
          priorities: changes.priorities.map((p) => ({
            ...p,
            endsAt: p.endsAt ?? null,
            // `expired` is read off the clock; a priority sent back as expired is stored as it was.
            status: p.status === 'expired' ? (prior.get(p.id)?.status ?? 'active') : (p.status ?? 'active'),
            createdAt: p.createdAt ?? prior.get(p.id)?.createdAt ?? context.now,
            createdBy: p.createdBy !== undefined ? p.createdBy : (prior.get(p.id)?.createdBy ?? context.by),
          })),
        }
      : {}),
    ...(changes.recommendations
      ? { recommendations: changes.recommendations.map((r) => ({ ...r, status: r.status ?? 'pending' })) }
      : {}),
  };
}

const sameContent = (a: StrategyContent, b: StrategyContent) => JSON.stringify(a) === JSON.stringify(b);

// ---- The decider ----

type Existing = Extract<StrategyState, { status: 'exists' }>;

function ids(command: Acting, state: StrategyState) {
  const strategyId = state.status === 'exists' ? state.strategyId : command.strategyId;
  const next = state.status === 'exists' ? state.latest + 1 : 1;
  return { orgId: command.orgId, strategyId, next };
}

function superseded(
  state: StrategyState,
  version: StrategyVersion | null,
  by: number,
  at: string,
): StrategyEvent[] {
  if (!version || state.status !== 'exists') return [];
  return [
    {
      type: 'StrategyVersionSuperseded',
      data: {
        orgId: state.orgId,
        strategyId: state.strategyId,
        version: version.version,
        supersededBy: by,
        supersededAt: at,
      },
    },
  ];
}

function generate(
  command: Extract<StrategyCommand, { type: 'GenerateStrategy' }>,
  state: StrategyState,
): StrategyEvent[] {
  // The same run again (a retry with one Idempotency-Key: the runtime answers the first run) generates nothing.
  if (generatedBy(state, command.agentRunId)) return [];
  assertValidContent(command.content);
  const { orgId, strategyId, next } = ids(command, state);
  const active = activeVersionOf(state);
  const draft = draftVersionOf(state);
  const created: StrategyEvent = {
    type: 'StrategyVersionCreated',
    data: {
      orgId,
      strategyId,
      version: next,
      status: command.replaceActive ? 'active' : 'draft',
      content: command.content,
      source: command.source,
      providerModel: command.providerModel,
      agentRunId: command.agentRunId,
      createdAt: command.now,
      createdBy: command.by,
    },
  };
  // A new proposal replaces a draft nobody confirmed; with replaceActive it replaces the active version too.
  const events = [...superseded(state, draft, next, command.now)];
  if (command.replaceActive) events.push(...superseded(state, active, next, command.now));
  events.push(created);
  if (!command.replaceActive && active)
    events.push({
      type: 'StrategySuggested',
      data: { orgId, strategyId, version: active.version, proposedVersion: next, suggestedAt: command.now },
    });
  return events;
}

function edit(
  command: Extract<StrategyCommand, { type: 'EditStrategy' }>,
  state: StrategyState,
): StrategyEvent[] {
  const target = shownVersionOf(state);
  const content = applyChanges(target?.content ?? emptyContent, command.changes, command);
  assertValidContent(content);
  const { orgId, strategyId, next } = ids(command, state);
  if (!target)
    // Writing a strategy by hand: the workspace's first (or next) version, a draft to confirm.
    return [
      {
        type: 'StrategyVersionCreated',
        data: {
          orgId,
          strategyId,
          version: next,
          status: 'draft',
          content,
          source: 'user',
          providerModel: null,
          agentRunId: null,
          createdAt: command.now,
          createdBy: command.by,
        },
      },
    ];
  if (sameContent(content, target.content)) return [];
  return [
    {
      type: 'StrategyVersionEdited',
      data: {
        orgId,
        strategyId,
        version: target.version,
        content,
        editedAt: command.now,
        editedBy: command.by,
      },
    },
  ];
}

function confirm(
  command: Extract<StrategyCommand, { type: 'ConfirmStrategy' }>,
  state: StrategyState,
): StrategyEvent[] {
  const active = activeVersionOf(state);
  const draft = draftVersionOf(state);
  // A pending draft is what a confirmation is about; without one, the active version is confirmed in place.
  const target = draft ?? active;
  if (state.status !== 'exists' || !target)
    throw new NotFound(
      'This workspace has no strategy to confirm: generate or write one first',
      'strategy_not_found',
    );
  const content = command.updates ? applyChanges(target.content, command.updates, command) : target.content;
  assertValidContent(content);
  const incomplete = incompleteFor(content);
  if (incomplete.length > 0)
    throw new Unprocessable(
      'The strategy is not complete enough to confirm: it needs a primary objective, a target audience and a pillar',
      'strategy_incomplete',
      incomplete,
    );
  const base = { orgId: state.orgId, strategyId: state.strategyId, version: target.version };
  const changed = !sameContent(content, target.content);
  const events: StrategyEvent[] = [];
  if (changed)
    events.push({
      type: 'StrategyVersionEdited',
      data: { ...base, content, editedAt: command.now, editedBy: command.by },
    });
  if (target.status === 'active' && target.confirmedAt !== null && !changed) return [];
  if (target.status === 'draft') events.push(...superseded(state, active, target.version, command.now));
  events.push({
    type: 'StrategyVersionConfirmed',
    data: {
      ...base,
      activated: target.status === 'draft',
      confirmedAt: command.now,
      confirmedBy: command.by,
    },
  });
  return events;
}

function shownOrNotFound(state: StrategyState): { state: Existing; version: StrategyVersion } {
  const version = shownVersionOf(state);
  if (state.status !== 'exists' || !version)
    throw new NotFound(
      'This workspace has no strategy yet: generate or write one first',
      'strategy_not_found',
    );
  return { state, version };
}

function addPriority(
  command: Extract<StrategyCommand, { type: 'AddStrategyPriority' }>,
  state: StrategyState,
): StrategyEvent[] {
  const { state: s, version } = shownOrNotFound(state);
  const existing = version.content.priorities.find((p) => p.id === command.priorityId);
  // The same addition again (a retry whose id came from its Idempotency-Key) changes nothing.
  if (existing) return [];
  const priority: StrategyPriority = {
    id: command.priorityId,
    text: command.text.trim(),
    startsAt: command.startsAt,
    endsAt: command.endsAt,
    status: 'active',
    createdAt: command.now,
    createdBy: command.by,
  };
  const problems = priorityProblems(priority, '');
  if (problems.length > 0) throw new InvalidFields('Invalid priority', problems);
  if (version.content.priorities.length >= strategyLimits.listItems)
    throw new Conflict(
      `A strategy has at most ${strategyLimits.listItems} priorities`,
      'strategy_priority_limit',
    );
  return [
    {
      type: 'StrategyPriorityAdded',
      data: {
        orgId: s.orgId,
        strategyId: s.strategyId,
        version: version.version,
        priority,
        addedAt: command.now,
      },
    },
  ];
}

function decideRecommendation(
  command: Extract<StrategyCommand, { type: 'DecideStrategyRecommendation' }>,
  state: StrategyState,
): StrategyEvent[] {
  const { state: s, version } = shownOrNotFound(state);
  const recommendation = version.content.recommendations.find((r) => r.id === command.recommendationId);
  if (!recommendation)
    throw new NotFound('No such recommendation in the strategy', 'recommendation_not_found');
  if (recommendation.status === command.decision) return [];
  if (recommendation.status !== 'pending')
    throw new Conflict(`The recommendation was already ${recommendation.status}`, 'recommendation_decided');
  return [
    {
      type: 'StrategyRecommendationDecided',
      data: {
        orgId: s.orgId,
        strategyId: s.strategyId,
        version: version.version,
        recommendationId: recommendation.id,
        decision: command.decision,
        decidedAt: command.now,
        decidedBy: command.by,
      },
    },
  ];
}

function withVersion(
  state: StrategyState,
  version: number,
  change: (v: StrategyVersion) => StrategyVersion,
): StrategyState {
  if (state.status !== 'exists') return state;
  const current = state.versions[version];
  if (!current) return state;
  return { ...state, versions: { ...state.versions, [version]: change(current) } };
}

export const strategyDecider: Decider<StrategyState, StrategyCommand, StrategyEvent> = {
  initialState: { status: 'none' },
  codec: strategyEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'GenerateStrategy':
        return generate(command, state);
      case 'EditStrategy':
        return edit(command, state);
      case 'ConfirmStrategy':
        return confirm(command, state);
      case 'AddStrategyPriority':
        return addPriority(command, state);
      case 'DecideStrategyRecommendation':
        return decideRecommendation(command, state);
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'StrategyVersionCreated': {
        const d = event.data;
        const generated = d.source !== 'user';
        const version: StrategyVersion = {
          version: d.version,
          status: d.status,
          content: d.content,
          source: d.source,
          providerModel: d.providerModel,
          agentRunId: d.agentRunId,
          createdAt: d.createdAt,
          createdBy: d.createdBy,
          updatedAt: d.createdAt,
          generatedAt: generated ? d.createdAt : null,
          confirmedAt: null,
          confirmedBy: null,
          lastEditedAt: generated ? null : d.createdAt,
          lastSuggestedAt: generated ? d.createdAt : null,
          supersededAt: null,
          supersededBy: null,
        };
        const versions = state.status === 'exists' ? state.versions : {};
        return {
          status: 'exists',
          orgId: d.orgId,
          strategyId: state.status === 'exists' ? state.strategyId : d.strategyId,
          versions: { ...versions, [d.version]: version },
          latest: Math.max(state.status === 'exists' ? state.latest : 0, d.version),
        };
      }
      case 'StrategyVersionEdited': {
        const d = event.data;
        return withVersion(state, d.version, (v) => ({
          ...v,
          content: d.content,
          updatedAt: d.editedAt,
          lastEditedAt: d.editedAt,
        }));
      }
      case 'StrategyVersionConfirmed': {
        const d = event.data;
        return withVersion(state, d.version, (v) => ({
          ...v,
          status: d.activated ? 'active' : v.status,
          confirmedAt: d.confirmedAt,
          confirmedBy: d.confirmedBy,
          updatedAt: d.confirmedAt,
        }));
      }
      case 'StrategyVersionSuperseded': {
        const d = event.data;
        return withVersion(state, d.version, (v) => ({
          ...v,
          status: 'superseded',
          supersededAt: d.supersededAt,
          supersededBy: d.supersededBy,
          updatedAt: d.supersededAt,
        }));
      }
      case 'StrategyPriorityAdded': {
        const d = event.data;
        return withVersion(state, d.version, (v) => ({
          ...v,
          content: { ...v.content, priorities: [...v.content.priorities, d.priority] },
          updatedAt: d.addedAt,
          lastEditedAt: d.addedAt,
        }));
      }
      case 'StrategyRecommendationDecided': {
        const d = event.data;
        return withVersion(state, d.version, (v) => ({
          ...v,
          content: {
            ...v.content,
            recommendations: v.content.recommendations.map((r) =>
              r.id === d.recommendationId ? { ...r, status: d.decision } : r,
            ),
          },
          updatedAt: d.decidedAt,
        }));
      }
      case 'StrategySuggested': {
        const d = event.data;
        return withVersion(state, d.version, (v) => ({ ...v, lastSuggestedAt: d.suggestedAt }));
      }
      default:
        return assertNever(event);
    }
  },
};
