// The thought aggregate (spec part 2, "Thought"; issue 29): a saved idea that feeds post generation while it is
// active (new or drafted) and stops once archived. One stream per thought (`thought-<thoughtId>`). Decisions are
// pure: time, ids and the agent run come in the command; refusals name the fields in the thought's terms.
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields, NotFound, type ErrorDetail } from '../shared/errors.js';
import {
  thoughtEventCodec,
  thoughtKinds,
  thoughtStatuses,
  type ThoughtEvent,
  type ThoughtKind,
  type ThoughtStatus,
} from './event-codec.js';

export { thoughtKinds, thoughtStatuses, type ThoughtEvent, type ThoughtKind, type ThoughtStatus };

export const thoughtCategory = 'thought';

export const thoughtLimits = {
  text: 5000,
  source: 500,
  tags: 20,
  tag: 50,
  /** Groups a thought remembers it was drafted into (the oldest are forgotten past it). */
  draftGroups: 200,
} as const;

export interface Thought {
  thoughtId: string;
  orgId: string;
  text: string;
  kind: ThoughtKind;
  status: ThoughtStatus;
  source: string | null;
  tags: string[];
  draftGroupIds: string[];
  /** Agent runs already recorded (a repeated ThoughtDrafted of one run decides nothing). */
  agentRunIds: string[];
  lastDraftedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type ThoughtState =
  { status: 'none' } | { status: 'exists'; thought: Thought } | { status: 'deleted'; orgId: string };

export interface ThoughtContent {
  text: string;
  kind?: ThoughtKind | undefined;
  source?: string | null | undefined;
  tags?: string[] | undefined;
}

export type ThoughtCommand =
  | ({
      type: 'SaveThought';
      orgId: string;
      thoughtId: string;
      by: string | null;
      now: string;
    } & ThoughtContent)
  /** Omitted fields stay; tags replace. */
  | {
      type: 'UpdateThought';
      orgId: string;
      thoughtId: string;
      text?: string | undefined;
      kind?: ThoughtKind | undefined;
      status?: ThoughtStatus | undefined;
      tags?: string[] | undefined;
      now: string;
    }
  | { type: 'DeleteThought'; orgId: string; thoughtId: string; now: string }
  | {
      type: 'RecordThoughtDrafts';
      orgId: string;
      thoughtId: string;
      groupIds: string[];
      agentRunId: string;
      now: string;
    };

const clean = (text: string) => text.trim();

function checkText(text: string, details: ErrorDetail[]): string {
  const t = clean(text);
  if (t.length === 0 || t.length > thoughtLimits.text)
    details.push({ path: 'text', message: `1 to ${thoughtLimits.text} characters after trimming` });
  return t;
}

function checkTags(tags: readonly string[], details: ErrorDetail[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  tags.forEach((tag, i) => {
    const t = clean(tag);
    if (t.length === 0 || t.length > thoughtLimits.tag) {
      details.push({ path: `tags.${i}`, message: `1 to ${thoughtLimits.tag} characters after trimming` });
      return;
    }
    // The same tag twice (whatever its case) is kept once, as first written.
    if (seen.has(t.toLowerCase())) return;
    seen.add(t.toLowerCase());
    out.push(t);
  });
  if (out.length > thoughtLimits.tags)
    details.push({ path: 'tags', message: `at most ${thoughtLimits.tags} tags` });
  return out;
}

function checkSource(source: string | null | undefined, details: ErrorDetail[]): string | null {
  if (source === undefined || source === null) return null;
  const s = clean(source);
  if (s.length > thoughtLimits.source)
    details.push({ path: 'source', message: `at most ${thoughtLimits.source} characters` });
  return s === '' ? null : s;
}

function checkKind(kind: string | undefined, details: ErrorDetail[]): ThoughtKind | undefined {
  if (kind === undefined) return undefined;
  if (!(thoughtKinds as readonly string[]).includes(kind)) {
    details.push({ path: 'kind', message: `one of ${thoughtKinds.join(', ')}` });
    return undefined;
  }
  return kind as ThoughtKind;
}

function checkStatus(status: string | undefined, details: ErrorDetail[]): ThoughtStatus | undefined {
  if (status === undefined) return undefined;
  if (!(thoughtStatuses as readonly string[]).includes(status)) {
    details.push({ path: 'status', message: `one of ${thoughtStatuses.join(', ')}` });
    return undefined;
  }
  return status as ThoughtStatus;
}

function refuseIfAny(details: ErrorDetail[]): void {
  if (details.length > 0)
    throw new InvalidFields(details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
}

/** The thought of the workspace, or 404: another workspace's thought is not found either. */
function liveThought(state: ThoughtState, orgId: string): Thought {
  if (state.status !== 'exists' || state.thought.orgId !== orgId) throw new NotFound('Thought not found');
  return state.thought;
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether a thought feeds generation (spec: active thoughts are taken into account; archived ones stop). */
export const isActiveThought = (thought: Pick<Thought, 'status'>) => thought.status !== 'archived';

export const thoughtDecider: Decider<ThoughtState, ThoughtCommand, ThoughtEvent> = {
  initialState: { status: 'none' },
  codec: thoughtEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'SaveThought': {
        const details: ErrorDetail[] = [];
        const text = checkText(command.text, details);
        const kind = checkKind(command.kind, details) ?? 'thought';
        const source = checkSource(command.source, details);
        const tags = checkTags(command.tags ?? [], details);
        refuseIfAny(details);
        if (state.status === 'exists') {
          const t = state.thought;
          // The same save again (a concurrent retry under one Idempotency-Key) changes nothing.
          if (
            t.orgId === command.orgId &&
            t.text === text &&
            t.kind === kind &&
            t.source === source &&
            sameList(t.tags, tags)
          )
            return [];
          throw new Conflict('Thought already exists');
        }
        if (state.status === 'deleted') throw new Conflict('Thought already exists');
        return [
          {
            type: 'ThoughtSaved',
            data: {
              orgId: command.orgId,
              thoughtId: command.thoughtId,
              text,
              kind,
              source,
              tags,
              by: command.by,
              createdAt: command.now,
            },
          },
        ];
      }
      case 'UpdateThought': {
        const thought = liveThought(state, command.orgId);
        const details: ErrorDetail[] = [];
        const text = command.text === undefined ? thought.text : checkText(command.text, details);
        const kind = checkKind(command.kind, details) ?? thought.kind;
        const tags = command.tags === undefined ? thought.tags : checkTags(command.tags, details);
        const status = checkStatus(command.status, details) ?? thought.status;
        refuseIfAny(details);
        const events: ThoughtEvent[] = [];
        if (text !== thought.text || kind !== thought.kind || !sameList(tags, thought.tags))
          events.push({
            type: 'ThoughtEdited',
            data: {
              orgId: thought.orgId,
              thoughtId: thought.thoughtId,
              text,
              kind,
              tags,
              updatedAt: command.now,
            },
          });
        if (status !== thought.status)
          events.push({
            type: 'ThoughtStatusChanged',
            data: {
              orgId: thought.orgId,
              thoughtId: thought.thoughtId,
              from: thought.status,
              status,
              updatedAt: command.now,
            },
          });
        return events;
      }
      case 'DeleteThought': {
        const thought = liveThought(state, command.orgId);
        return [
          {
            type: 'ThoughtDeleted',
            data: { orgId: thought.orgId, thoughtId: thought.thoughtId, deletedAt: command.now },
          },
        ];
      }
      case 'RecordThoughtDrafts': {
        const thought = liveThought(state, command.orgId);
        // The same run recorded again (a retried request) decides nothing.
        if (thought.agentRunIds.includes(command.agentRunId)) return [];
        assertDraftable(thought);
        if (command.groupIds.length === 0)
          throw new InvalidFields('No group to record', [
            { path: 'groupIds', message: 'at least one group' },
          ]);
        return [
          {
            type: 'ThoughtDrafted',
            data: {
              orgId: thought.orgId,
              thoughtId: thought.thoughtId,
              groupIds: [...new Set(command.groupIds)],
              agentRunId: command.agentRunId,
              at: command.now,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'ThoughtSaved': {
        const d = event.data;
        return {
          status: 'exists',
          thought: {
            thoughtId: d.thoughtId,
            orgId: d.orgId,
            text: d.text,
            kind: d.kind,
            status: 'new',
            source: d.source,
            tags: d.tags,
            draftGroupIds: [],
            agentRunIds: [],
            lastDraftedAt: null,
            createdAt: d.createdAt,
            updatedAt: d.createdAt,
          },
        };
      }
      case 'ThoughtEdited': {
        if (state.status !== 'exists') return state;
        const d = event.data;
        return {
          status: 'exists',
          thought: { ...state.thought, text: d.text, kind: d.kind, tags: d.tags, updatedAt: d.updatedAt },
        };
      }
      case 'ThoughtStatusChanged': {
        if (state.status !== 'exists') return state;
        return {
          status: 'exists',
          thought: { ...state.thought, status: event.data.status, updatedAt: event.data.updatedAt },
        };
      }
      case 'ThoughtDeleted':
        return { status: 'deleted', orgId: event.data.orgId };
      case 'ThoughtDrafted': {
        if (state.status !== 'exists') return state;
        const t = state.thought;
        const d = event.data;
        const groups = [...t.draftGroupIds, ...d.groupIds.filter((g) => !t.draftGroupIds.includes(g))];
        return {
          status: 'exists',
          thought: {
            ...t,
            status: 'drafted',
            draftGroupIds: groups.slice(-thoughtLimits.draftGroups),
            agentRunIds: [...t.agentRunIds, d.agentRunId].slice(-thoughtLimits.draftGroups),
            lastDraftedAt: d.at,
            updatedAt: d.at,
          },
        };
      }
      default:
        return assertNever(event);
    }
  },
};

/** An archived thought is not drafted from (409 `thought_archived`): unarchive it first (PATCH status). */
export function assertDraftable(thought: Thought): void {
  if (thought.status === 'archived')
    throw new Conflict(
      'The thought is archived: set its status to new before drafting from it',
      'thought_archived',
    );
}

/** The thought of `orgId` in the state, or 404 (the drafting use case checks before it runs a model). */
export const thoughtOf = liveThought;
