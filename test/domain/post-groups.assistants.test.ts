// Assistants in the post-group decider: an assistant never approves what an assistant wrote (its own drafts, its
// edits, another assistant's), a person always may, and the events and approval records name the assistant that
// acted for its user. Given/when/then rows, a fast-check property over random command sequences by people and
// assistants, and events stored before the data named the assistant (only their metadata did).
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import type { AssistantActor } from '../../domain/shared/caller.js';
import { AppError, Forbidden } from '../../domain/shared/errors.js';
import {
  postGroupDecider,
  postGroupEventCodec,
  type PostGroupCommand,
  type PostGroupEvent,
  type PostGroupState,
} from '../../domain/post-groups/post-group.js';
import {
  activeState,
  approve,
  create,
  given,
  groupId,
  history,
  linkedinPostId,
  postOf,
  reject,
  reviewer,
  updateGroup,
  updatePost,
  xPostId,
} from '../support/post-group-fixtures.js';
import { propertyRuns } from '../support/property-runs.js';

const claude: AssistantActor = { clientId: 'client-claude', clientName: 'Claude' };
const other: AssistantActor = { clientId: 'client-other', clientName: 'Other assistant' };
const refusal = 'assistant_cannot_approve_assistant_content';

/** The command as an assistant sends it for the same user. */
function by<C extends PostGroupCommand>(assistant: AssistantActor, command: C): C {
  return { ...command, assistant };
}

const assistantDraft = history(by(claude, create('drafts')));
const memberDraft = history(create('drafts'));

describe('an assistant never approves what an assistant wrote', () => {
  test('its own drafts: refused (403), nothing appended', () => {
    given(assistantDraft).when(by(claude, approve())).thenRefuses(Forbidden, refusal);
    given(assistantDraft)
      .when(by(claude, approve({ approvePosts: [xPostId] })))
      .thenRefuses(Forbidden, refusal);
  });

  test('another assistant’s drafts: refused too (two connections do not approve each other’s work)', () => {
    given(assistantDraft).when(by(other, approve())).thenRefuses(Forbidden, refusal);
  });

  test('approving by PATCH post status approved is the same decision', () => {
    given(assistantDraft)
      .when(by(claude, updatePost(xPostId, {}, { status: 'approved' })))
      .thenRefuses(Forbidden, refusal);
  });

  test('a person approves an assistant’s drafts', () => {
    given(assistantDraft)
      .when(approve())
      .thenState((s, events) => {
        expect(events.map((e) => e.type)).toEqual(['PostGroupApproved']);
        expect(events[0]!.data.assistant).toBeUndefined();
        expect(s.posts.map((p) => p.status)).toEqual(['approved', 'approved']);
      });
  });

  test('an assistant’s edit of a person’s post: that post is the assistant’s now, the others stay the person’s', () => {
    const edited = history(create('drafts'), by(claude, updatePost(xPostId, { contentText: 'Now mine' })));
    expect(postOf(activeState(edited), xPostId).draftedByAssistant).toBe(claude.clientId);
    expect(postOf(activeState(edited), linkedinPostId).draftedByAssistant).toBeNull();
    given(edited).when(by(claude, approve())).thenRefuses(Forbidden, refusal);
    given(edited)
      .when(by(claude, approve({ approvePosts: [linkedinPostId] })))
      .thenTypes(['PostGroupApproved']);
    // Once a person has rewritten it, an assistant may approve it again.
    const byPerson = postGroupDecider.decide(
      updatePost(xPostId, { contentText: 'Written by a person' }),
      activeState(edited),
    );
    given([...edited, ...byPerson])
      .when(by(claude, approve()))
      .thenTypes(['PostGroupApproved']);
  });

  test('an assistant’s edit of what an approved group says withdraws the approval, and it may not approve again', () => {
    const approved = history(create('drafts'), approve());
    const retitled = [
      ...approved,
      ...postGroupDecider.decide(by(claude, updateGroup({ title: 'A better title' })), activeState(approved)),
    ];
    expect(activeState(retitled).status).toBe('pending_approval');
    expect(activeState(retitled).draftedByAssistant).toBe(claude.clientId);
    given(retitled).when(by(claude, approve())).thenRefuses(Forbidden, refusal);
    given(retitled).when(approve()).thenTypes(['PostGroupApproved']);
  });

  test('changing only the time zone or tags is not writing: an assistant may still approve a person’s posts', () => {
    const tz = history(create('drafts'), by(claude, updateGroup({ timezone: 'UTC' })));
    expect(activeState(tz).draftedByAssistant).toBeNull();
    given(tz).when(by(claude, approve())).thenTypes(['PostGroupApproved']);
  });

  test('an assistant may reject an assistant’s drafts (sending back is not approving)', () => {
    given(assistantDraft)
      .when(by(claude, reject()))
      .thenTypes(['PostGroupRejected', 'PreferenceSignalRecorded']);
  });
});

describe('the events and the approval history name the assistant acting for its user', () => {
  test('an assistant’s draft: the creation and the submission record it', () => {
    given([])
      .when(by(claude, create('drafts')))
      .thenState((s, events) => {
        for (const e of events) expect(e.data).toMatchObject({ by: create('drafts').by, assistant: claude });
        expect(s.draftedByAssistant).toBe(claude.clientId);
        expect(s.posts.map((p) => p.draftedByAssistant)).toEqual([claude.clientId, claude.clientId]);
        expect(s.approvals[0]).toMatchObject({ action: 'submit_for_approval', assistant: claude });
      });
  });

  test('an assistant’s approval of a person’s drafts: the event and the records name it and the user', () => {
    given(memberDraft)
      .when(by(claude, approve()))
      .thenState((s, events) => {
        expect(events[0]).toMatchObject({
          type: 'PostGroupApproved',
          data: { by: reviewer, assistant: claude },
        });
        const record = s.approvals.at(-1)!;
        expect(record).toMatchObject({ action: 'approved', approvedByUserId: reviewer, assistant: claude });
        for (const p of s.posts) expect(p.approvals.at(-1)).toEqual(record);
      });
  });

  test('a person’s approval records no assistant', () => {
    given(assistantDraft)
      .when(approve())
      .thenState((s) => expect(s.approvals.at(-1)).not.toHaveProperty('assistant'));
  });
});

describe('events stored before the data named the assistant', () => {
  const stored = (event: PostGroupEvent, revision: number, metadata: Record<string, unknown>) => ({
    streamName: `postGroup-${groupId}`,
    revision,
    type: event.type,
    data: JSON.parse(JSON.stringify(event.data)) as unknown,
    metadata: { schemaVersion: 1, ...metadata },
  });

  test('are read with the assistant of their metadata, so its old drafts still cannot be approved by one', () => {
    // What an assistant's draft looked like in the store: the data without `assistant`, the metadata with it.
    const old = memberDraft.map((e, i) =>
      stored(e, i, {
        actor: `assistant:${claude.clientId}`,
        assistant: { ...claude, connectionId: 'c1', onBehalfOf: create('drafts').by },
      }),
    );
    const decoded = postGroupEventCodec.decodeAll(old);
    for (const e of decoded) expect(e.data.assistant).toEqual(claude);
    given(decoded).when(by(other, approve())).thenRefuses(Forbidden, refusal);
  });

  test('a person’s events are read as they were stored', () => {
    const decoded = postGroupEventCodec.decodeAll(memberDraft.map((e, i) => stored(e, i, { actor: 'u1' })));
    expect(decoded).toEqual(memberDraft);
    given(decoded).when(by(claude, approve())).thenTypes(['PostGroupApproved']);
  });
});

// ----------------------------------------------------------------------------------------- property

type Actor = 'person' | 'claude' | 'other';
const actors: Record<Actor, AssistantActor | undefined> = { person: undefined, claude, other };

type Step =
  | { kind: 'create'; actor: Actor; origin: 'drafts' | 'post_groups' }
  | { kind: 'editPost'; actor: Actor; post: number; text: string }
  | { kind: 'editGroup'; actor: Actor; title?: string; timezone?: string }
  | { kind: 'approve'; actor: Actor; subset?: number[] }
  | { kind: 'approvePost'; actor: Actor; post: number }
  | { kind: 'reject'; actor: Actor }
  | { kind: 'submit'; actor: Actor };

const actorArb = fc.constantFrom<Actor>('person', 'claude', 'other');
const textArb = fc.constantFrom('One', 'Two', 'Three', 'Four');
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    actor: actorArb,
    origin: fc.constantFrom('drafts' as const, 'post_groups' as const),
  }),
  fc.record({
    kind: fc.constant('editPost' as const),
    actor: actorArb,
    post: fc.nat({ max: 1 }),
    text: textArb,
  }),
  fc.record(
    {
      kind: fc.constant('editGroup' as const),
      actor: actorArb,
      title: fc.constantFrom('Launch', 'Relaunch'),
      timezone: fc.constantFrom('UTC', 'Europe/Berlin'),
    },
    { requiredKeys: ['kind', 'actor'] },
  ),
  fc.record(
    {
      kind: fc.constant('approve' as const),
      actor: actorArb,
      subset: fc.uniqueArray(fc.nat({ max: 1 }), { minLength: 1, maxLength: 2 }),
    },
    { requiredKeys: ['kind', 'actor'] },
  ),
  fc.record({ kind: fc.constant('approvePost' as const), actor: actorArb, post: fc.nat({ max: 1 }) }),
  fc.record({ kind: fc.constant('reject' as const), actor: actorArb }),
  fc.record({ kind: fc.constant('submit' as const), actor: actorArb }),
);

const postIds = [xPostId, linkedinPostId];

function commandOf(s: Step, state: PostGroupState): PostGroupCommand {
  const assistant = actors[s.actor];
  const as = <C extends PostGroupCommand>(c: C): C => (assistant ? { ...c, assistant } : c);
  const ids = state.kind === 'active' ? state.posts.map((p) => p.id) : postIds;
  switch (s.kind) {
    case 'create':
      return as(create(s.origin));
    case 'editPost':
      return as(updatePost(ids[s.post % ids.length]!, { contentText: s.text }));
    case 'editGroup': {
      const { kind: _, actor: __, ...changes } = s;
      return as(updateGroup(changes));
    }
    case 'approve':
      return as(approve(s.subset ? { approvePosts: s.subset.map((i) => ids[i % ids.length]!) } : {}));
    case 'approvePost':
      return as(updatePost(ids[s.post % ids.length]!, {}, { status: 'approved' }));
    case 'reject':
      return as(reject());
    case 'submit':
      return as(updateGroup({}, 'pending_approval'));
  }
}

/**
 * Who last wrote each post's content and what the group says, kept by the test from the commands alone (not
 * from the state's own bookkeeping): a command that changed a post's content hash, or the group's title, topic or
 * objective, makes its actor their writer.
 */
interface Writers {
  posts: Map<string, Actor>;
  group: Actor | null;
}

function rewrite(writers: Writers, before: PostGroupState, after: PostGroupState, actor: Actor): Writers {
  if (after.kind !== 'active') return writers;
  const posts = new Map(writers.posts);
  for (const p of after.posts) {
    const was = before.kind === 'active' ? before.posts.find((q) => q.id === p.id) : undefined;
    if (!was || was.contentHash !== p.contentHash) posts.set(p.id, actor);
  }
  const says = (g: PostGroupState) =>
    g.kind === 'active' ? [g.title, g.topic, g.objective].join('\u0000') : null;
  return { posts, group: says(before) !== says(after) ? actor : writers.group };
}

describe('property: no sequence of commands lets an assistant approve content an assistant last wrote', () => {
  test('over random sequences by a person and two assistants', () => {
    const seen = { assistantApprovals: 0, refusals: 0, personApprovalsOfAssistantWork: 0 };
    // The whole count by default: the coverage checks below need it (at half they failed now and then).
    const runs = propertyRuns(400, 400);
    const share = runs / 400;
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), (steps) => {
        let state: PostGroupState = postGroupDecider.initialState;
        let writers: Writers = { posts: new Map(), group: null };
        for (const s of steps) {
          const command = commandOf(s, state);
          let events: PostGroupEvent[];
          try {
            events = postGroupDecider.decide(command, state);
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            if (error.code === refusal) {
              // Refused only for an assistant, and only when an assistant wrote something of the group.
              expect(command.assistant).toBeDefined();
              const anyWritten =
                (writers.group !== null && writers.group !== 'person') ||
                [...writers.posts.values()].some((w) => w !== 'person');
              expect(anyWritten).toBe(true);
              seen.refusals++;
            }
            continue;
          }
          for (const e of events) {
            // Every event records the assistant that acted, and only then.
            expect(e.data.assistant).toEqual(command.assistant);
            if (e.type !== 'PostGroupApproved') continue;
            if (command.assistant) {
              seen.assistantApprovals++;
              expect(
                writers.group === null || writers.group === 'person',
                'group written by an assistant',
              ).toBe(true);
              for (const p of e.data.posts) expect(writers.posts.get(p.postId), p.postId).toBe('person');
            } else if (e.data.posts.some((p) => writers.posts.get(p.postId) !== 'person')) {
              seen.personApprovalsOfAssistantWork++;
            }
          }
          const next = events.reduce(postGroupDecider.evolve, state);
          writers = rewrite(writers, state, next, s.actor);
          state = next;
        }
      }),
      { numRuns: runs },
    );
    // Not vacuous: assistants did approve people's work, were refused theirs, and people approved theirs. (A few
    // of each is enough to show it; the counts vary with the seed, and 18 of 400 runs was seen against a bound of
    // 20, so the bound is 8.)
    expect(seen.assistantApprovals).toBeGreaterThan(8 * share);
    expect(seen.refusals).toBeGreaterThan(8 * share);
    expect(seen.personApprovalsOfAssistantWork).toBeGreaterThan(8 * share);
  });
});
