// The DM conversation decider, row by row of the spec's state table ("DM conversation": PATCH status closed or
// open → closed / reopened, nothing sent; PATCH addMessage → message logged, the conversation continues, optional
// new draft) and the rules the spec leaves open (docs/decisions.md, "Engagement settings and DMs"): the status
// read off the last message, closed sticking until reopened, adding someone tracked continuing their log, a
// message logged once under retries, my message spending the draft, deletion forgetting the log, another
// workspace's conversation not found, the limits.
import { describe, expect, test } from 'vitest';
import {
  dmConversationDecider,
  dmConversationIdOf,
  dmLimits,
  dmStatusOf,
  type DmConversationCommand,
  type DmConversationEvent,
  type DmConversationState,
  type NewDmMessage,
} from '../../domain/engagement/dm-conversation.js';
import { decideAll, fold } from '../../domain/shared/decider.js';
import { Conflict, InvalidFields, NotFound } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const otherOrg = '00000000-0000-4000-8000-000000000002';
const userId = '00000000-0000-4000-8000-000000000011';
const conversationId = dmConversationIdOf(orgId, 'Alex_Dev');
const t0 = '2026-11-20T10:00:00.000Z';
const t1 = '2026-11-21T10:00:00.000Z';
const spec = deciderSpec(dmConversationDecider);

const msg = (messageId: string, from: 'them' | 'me', text: string): NewDmMessage => ({
  messageId,
  from,
  text,
});
const track = (
  messages: NewDmMessage[] = [],
  extra: Partial<Extract<DmConversationCommand, { type: 'TrackDmConversation' }>> = {},
): DmConversationCommand => ({
  type: 'TrackDmConversation',
  orgId,
  conversationId,
  handle: 'Alex_Dev',
  messages,
  by: userId,
  now: t1,
  ...extra,
});
const update = (
  changes: Omit<
    Extract<DmConversationCommand, { type: 'UpdateDmConversation' }>,
    'type' | 'orgId' | 'conversationId' | 'now'
  >,
  org = orgId,
): DmConversationCommand => ({
  type: 'UpdateDmConversation',
  orgId: org,
  conversationId,
  now: t1,
  ...changes,
});

const started = (notes: string | null = null, at = t0): DmConversationEvent => ({
  type: 'DmConversationStarted',
  data: { orgId, conversationId, handle: 'Alex_Dev', notes, by: userId, at },
});
const logged = (messageId: string, from: 'them' | 'me', text: string, at = t1): DmConversationEvent => ({
  type: 'DmMessageLogged',
  data: { orgId, conversationId, messageId, from, text, at },
});
const drafted = (
  draftText: string | null,
  source: 'user' | 'ai' | 'heuristic' = 'user',
  agentRunId: string | null = null,
): DmConversationEvent => ({
  type: 'DmDraftChanged',
  data: {
    orgId,
    conversationId,
    draftText,
    draftReason: source === 'user' ? null : 'why',
    source,
    agentRunId,
    at: t1,
  },
});
const closed: DmConversationEvent = { type: 'DmConversationClosed', data: { orgId, conversationId, at: t1 } };
const reopened: DmConversationEvent = {
  type: 'DmConversationReopened',
  data: { orgId, conversationId, at: t1 },
};
const deleted: DmConversationEvent = {
  type: 'DmConversationDeleted',
  data: { orgId, conversationId, by: userId, at: t1 },
};

const statusAfter = (events: DmConversationEvent[]) => {
  const state: DmConversationState = fold(dmConversationDecider, events);
  return state.status === 'tracked' ? dmStatusOf(state.conversation) : state.status;
};

describe('the id', () => {
  test('one conversation per workspace and person, whatever the handle case', () => {
    expect(dmConversationIdOf(orgId, 'alex_dev')).toBe(conversationId);
    expect(dmConversationIdOf(otherOrg, 'Alex_Dev')).not.toBe(conversationId);
    expect(dmConversationIdOf(orgId, 'alex_dev2')).not.toBe(conversationId);
  });
});

describe('adding (POST): starts tracking, or continues the conversation', () => {
  test('a new person: started with the notes, then the messages in order', () => {
    spec
      .given([])
      .when(track([msg('m1', 'them', ' Hi there '), msg('m2', 'me', 'Hello!')], { notes: ' Met at SaaStr ' }))
      .then([started('Met at SaaStr', t1), logged('m1', 'them', 'Hi there'), logged('m2', 'me', 'Hello!')]);
  });

  test('someone tracked: the messages are appended, the notes replaced when given and different', () => {
    spec
      .given([started('old notes'), logged('m1', 'them', 'Hi', t0)])
      .when(track([msg('m2', 'me', 'Hey')], { notes: 'new notes' }))
      .then([
        logged('m2', 'me', 'Hey'),
        { type: 'DmNotesChanged', data: { orgId, conversationId, notes: 'new notes', at: t1 } },
      ]);
    spec
      .given([started('same')])
      .when(track([], { notes: 'same' }))
      .then([]);
    spec
      .given([started('kept')])
      .when(track([]))
      .then([]);
  });

  test('a retried add logs each message once (the ids come from the Idempotency-Key)', () => {
    spec
      .given([started(), logged('m1', 'them', 'Hi')])
      .when(track([msg('m1', 'them', 'Hi'), msg('m2', 'them', 'Still there?')]))
      .then([logged('m2', 'them', 'Still there?')]);
  });

  test('after a deletion, adding the person again starts a fresh log under the same id', () => {
    spec
      .given([started('old'), logged('m1', 'them', 'Hi', t0), deleted])
      .when(track([msg('m9', 'me', 'Hello again')]))
      .thenState((s) => {
        expect(s.status).toBe('tracked');
        if (s.status !== 'tracked') return;
        expect(s.conversation.conversationId).toBe(conversationId);
        expect(s.conversation.notes).toBeNull();
        expect(s.conversation.messages.map((m) => m.id)).toEqual(['m9']);
        expect(s.conversation.createdAt).toBe(t1);
      });
  });

  test('limits: message text 1 to 10000 characters, 50 messages per add, 500 per log, notes 5000', () => {
    spec
      .given([])
      .when(track([msg('m1', 'them', '   ')]))
      .thenThrows(InvalidFields);
    spec
      .given([])
      .when(track([msg('m1', 'them', 'x'.repeat(dmLimits.textLength + 1))]))
      .thenThrows(InvalidFields);
    spec
      .given([])
      .when(track([msg('m1', 'them', 'x'.repeat(dmLimits.textLength))]))
      .thenState(() => undefined);
    spec
      .given([])
      .when(track(Array.from({ length: 51 }, (_, i) => msg(`m${i}`, 'them', 'hi'))))
      .thenThrows(InvalidFields, /Too many/);
    spec
      .given([])
      .when(track([], { notes: 'n'.repeat(5001) }))
      .thenThrows(InvalidFields);
    const full = [
      started(),
      ...Array.from({ length: dmLimits.messages }, (_, i) => logged(`m${i}`, 'them', 'hi')),
    ];
    spec
      .given(full)
      .when(track([msg('more', 'them', 'hi')]))
      .thenThrows(Conflict, /at most 500/);
  });

  test('refusals name every refused field as the caller sent it', () => {
    try {
      dmConversationDecider.decide(
        track([msg('a', 'them', 'ok'), msg('b', 'me', ''), msg('c', 'me', 'x'.repeat(10_001))]),
        fold(dmConversationDecider, []),
      );
      expect.unreachable();
    } catch (error) {
      expect((error as InvalidFields).details).toEqual([
        { path: 'messages.1.text', message: '1 to 10000 characters' },
        { path: 'messages.2.text', message: '1 to 10000 characters' },
      ]);
    }
  });
});

describe('the status, read off the log', () => {
  test('no message yet: your turn (to open); them last: your turn; me last: waiting', () => {
    expect(statusAfter([started()])).toBe('your_turn');
    expect(statusAfter([started(), logged('m1', 'me', 'Hi'), logged('m2', 'them', 'Hey')])).toBe('your_turn');
    expect(statusAfter([started(), logged('m1', 'them', 'Hi'), logged('m2', 'me', 'Hey')])).toBe('waiting');
  });

  test('closed sticks until reopened, whatever is logged; reopening reads the log again', () => {
    expect(statusAfter([started(), logged('m1', 'me', 'Hi'), closed])).toBe('closed');
    expect(statusAfter([started(), closed, logged('m2', 'them', 'Back!')])).toBe('closed');
    expect(statusAfter([started(), logged('m1', 'me', 'Hi'), closed, reopened])).toBe('waiting');
    expect(statusAfter([started(), closed, logged('m2', 'them', 'Back!'), reopened])).toBe('your_turn');
  });
});

describe('PATCH (state table: status closed or open; addMessage)', () => {
  const open = [started(), logged('m1', 'them', 'Hi', t0)];

  test('status closed closes an open conversation; again decides nothing', () => {
    spec
      .given(open)
      .when(update({ status: 'closed' }))
      .then([closed]);
    spec
      .given([...open, closed])
      .when(update({ status: 'closed' }))
      .then([]);
  });

  test('status open reopens a closed conversation; an open one stays as it is', () => {
    spec
      .given([...open, closed])
      .when(update({ status: 'open' }))
      .then([reopened]);
    spec
      .given(open)
      .when(update({ status: 'open' }))
      .then([]);
  });

  test('addMessage logs it and the conversation continues (whose turn follows the message)', () => {
    spec
      .given(open)
      .when(update({ addMessage: msg('m2', 'me', 'Thanks!') }))
      .then([logged('m2', 'me', 'Thanks!')]);
    expect(statusAfter([...open, logged('m2', 'me', 'Thanks!')])).toBe('waiting');
    spec
      .given([...open, logged('m2', 'me', 'Thanks!')])
      .when(update({ addMessage: msg('m2', 'me', 'Thanks!') }))
      .then([]);
  });

  test('addMessage with a new draft (PATCH with draft: true): decided in sequence, the message then the draft', () => {
    const { events } = decideAll(
      dmConversationDecider,
      [
        update({ addMessage: msg('m2', 'them', 'Any pricing?') }),
        {
          type: 'WriteDmDraft',
          orgId,
          conversationId,
          draftText: 'Sure: …',
          draftReason: 'why',
          source: 'ai',
          agentRunId: 'run-1',
          now: t1,
        },
      ],
      fold(dmConversationDecider, open),
    );
    expect(events).toEqual([logged('m2', 'them', 'Any pricing?'), drafted('Sure: …', 'ai', 'run-1')]);
  });

  test('notes: replaced, blank clears, the same decides nothing', () => {
    spec
      .given(open)
      .when(update({ notes: 'Prefers mornings' }))
      .then([{ type: 'DmNotesChanged', data: { orgId, conversationId, notes: 'Prefers mornings', at: t1 } }]);
    spec
      .given([...open, { type: 'DmNotesChanged', data: { orgId, conversationId, notes: 'x', at: t0 } }])
      .when(update({ notes: '  ' }))
      .then([{ type: 'DmNotesChanged', data: { orgId, conversationId, notes: null, at: t1 } }]);
    spec
      .given(open)
      .when(update({ notes: null }))
      .then([]);
  });

  test('draftText: my own draft; empty clears it; over 10000 characters refused', () => {
    spec
      .given(open)
      .when(update({ draftText: ' Sounds good ' }))
      .then([drafted('Sounds good')]);
    spec
      .given([...open, drafted('Sounds good')])
      .when(update({ draftText: '' }))
      .then([drafted(null)]);
    spec
      .given([...open, drafted('Sounds good')])
      .when(update({ draftText: 'Sounds good' }))
      .then([]);
    spec
      .given(open)
      .when(update({ draftText: 'x'.repeat(10_001) }))
      .thenThrows(InvalidFields);
  });

  test('a message from me spends the draft; one from them keeps it', () => {
    const withDraft = [...open, drafted('Reply text')];
    spec
      .given(withDraft)
      .when(update({ addMessage: msg('m2', 'me', 'Reply text') }))
      .thenState((s) => expect(s.status === 'tracked' && s.conversation.draft).toBeNull());
    spec
      .given(withDraft)
      .when(update({ addMessage: msg('m2', 'them', 'One more thing') }))
      .thenState((s) => expect(s.status === 'tracked' && s.conversation.draft?.text).toBe('Reply text'));
  });

  test("an untracked, deleted or other workspace's conversation is not found", () => {
    spec
      .given([])
      .when(update({ status: 'closed' }))
      .thenThrows(NotFound);
    spec
      .given([...open, deleted])
      .when(update({ notes: 'x' }))
      .thenThrows(NotFound);
    spec
      .given(open)
      .when(update({ status: 'closed' }, otherOrg))
      .thenThrows(NotFound);
  });
});

describe('drafting (POST …/draft) and deleting', () => {
  const open = [started(), logged('m1', 'them', 'Hi', t0)];
  const write = (agentRunId: string, org = orgId): DmConversationCommand => ({
    type: 'WriteDmDraft',
    orgId: org,
    conversationId,
    draftText: ' Hello! ',
    draftReason: 'why',
    source: 'heuristic',
    agentRunId,
    now: t1,
  });

  test('a run writes the draft; the same run again decides nothing; another run redrafts', () => {
    spec
      .given(open)
      .when(write('run-1'))
      .then([drafted('Hello!', 'heuristic', 'run-1')]);
    spec
      .given([...open, drafted('Hello!', 'heuristic', 'run-1')])
      .when(write('run-1'))
      .then([]);
    spec
      .given([...open, drafted('Hello!', 'heuristic', 'run-1')])
      .when(write('run-2'))
      .then([drafted('Hello!', 'heuristic', 'run-2')]);
    spec.given([]).when(write('run-1')).thenThrows(NotFound);
    spec.given(open).when(write('run-1', otherOrg)).thenThrows(NotFound);
  });

  test('delete stops tracking: later writes are not found; deleting again is not found', () => {
    const del: DmConversationCommand = {
      type: 'DeleteDmConversation',
      orgId,
      conversationId,
      by: userId,
      now: t1,
    };
    spec.given(open).when(del).then([deleted]);
    spec
      .given([...open, deleted])
      .when(del)
      .thenThrows(NotFound);
    spec.given([]).when(del).thenThrows(NotFound);
    spec
      .given(open)
      .when({ ...del, orgId: otherOrg })
      .thenThrows(NotFound);
  });
});
