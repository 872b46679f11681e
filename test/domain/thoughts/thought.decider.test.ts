// The thought decider, rule by rule (spec part 2, "Thought", and the state row "thought | PATCH status"): saving
// (trimming, limits, default kind, repeated tags kept once, the same save again deciding nothing), editing (omitted
// fields stay, no change decides nothing), status set as given (archived and back), deleting, recording drafts
// (status drafted, groups appended, the same run once, archived refused) and another workspace's thought not found.
import { describe, expect, test } from 'vitest';
import { Conflict, NotFound, ValidationError } from '../../../domain/shared/errors.js';
import {
  thoughtDecider,
  thoughtLimits,
  type ThoughtCommand,
  type ThoughtEvent,
} from '../../../domain/thoughts/thought.js';
import { deciderSpec } from '../../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const otherOrg = '00000000-0000-4000-8000-000000000002';
const thoughtId = '00000000-0000-4000-8000-0000000000a1';
const groupA = '00000000-0000-4000-8000-0000000000b1';
const groupB = '00000000-0000-4000-8000-0000000000b2';
const now = '2026-11-29T10:00:00.000Z';
const later = '2026-11-29T11:00:00.000Z';
const spec = deciderSpec(thoughtDecider);

const saved: ThoughtEvent = {
  type: 'ThoughtSaved',
  data: {
    orgId,
    thoughtId,
    text: 'Ship small, ship often.',
    kind: 'lesson',
    source: null,
    tags: ['shipping'],
    by: 'u1',
    createdAt: now,
  },
};
const save = (fields: Partial<Extract<ThoughtCommand, { type: 'SaveThought' }>> = {}): ThoughtCommand => ({
  type: 'SaveThought',
  orgId,
  thoughtId,
  text: 'Ship small, ship often.',
  kind: 'lesson',
  tags: ['shipping'],
  by: 'u1',
  now,
  ...fields,
});
const update = (fields: Partial<Extract<ThoughtCommand, { type: 'UpdateThought' }>>): ThoughtCommand => ({
  type: 'UpdateThought',
  orgId,
  thoughtId,
  now: later,
  ...fields,
});
const status = (from: 'new' | 'drafted' | 'archived', to: 'new' | 'drafted' | 'archived'): ThoughtEvent => ({
  type: 'ThoughtStatusChanged',
  data: { orgId, thoughtId, from, status: to, updatedAt: later },
});
const drafted = (groupIds: string[], agentRunId = 'run-1'): ThoughtEvent => ({
  type: 'ThoughtDrafted',
  data: { orgId, thoughtId, groupIds, agentRunId, at: later },
});
const record = (groupIds: string[], agentRunId = 'run-1'): ThoughtCommand => ({
  type: 'RecordThoughtDrafts',
  orgId,
  thoughtId,
  groupIds,
  agentRunId,
  now: later,
});

describe('saving a thought', () => {
  test('a new thought: text and tags trimmed, repeated tags kept once, an empty source is none', () => {
    spec
      .given([])
      .when(
        save({
          text: '  Ship small, ship often.  ',
          tags: [' shipping ', 'Shipping', 'craft'],
          source: '  ',
        }),
      )
      .then([
        {
          type: 'ThoughtSaved',
          data: { ...saved.data, tags: ['shipping', 'craft'], source: null },
        },
      ]);
  });

  test('kind defaults to thought; it starts new with no drafts', () => {
    spec
      .given([])
      .when(save({ kind: undefined }))
      .thenState((s) => {
        expect(s).toMatchObject({
          status: 'exists',
          thought: { kind: 'thought', status: 'new', draftGroupIds: [], lastDraftedAt: null },
        });
      });
  });

  test('empty or too long text, too many or too long tags, a too long source are refused, naming each field', () => {
    let error: unknown;
    try {
      thoughtDecider.decide(
        save({
          text: '   ',
          tags: [
            ...Array.from({ length: thoughtLimits.tags }, (_, i) => `t${i}`),
            'x'.repeat(51),
            'one more',
          ],
          source: 's'.repeat(thoughtLimits.source + 1),
        }),
        { status: 'none' },
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const paths = (error as ValidationError).details?.map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['text', `tags.${thoughtLimits.tags}`, 'tags', 'source']));
    spec
      .given([])
      .when(save({ text: 'x'.repeat(thoughtLimits.text + 1) }))
      .thenThrows(ValidationError, /text/);
    spec
      .given([])
      .when(save({ text: 'x'.repeat(thoughtLimits.text) }))
      .thenState((s) => {
        expect(s.status).toBe('exists');
      });
  });

  test('the same save again decides nothing; another save on the stream is a conflict', () => {
    spec.given([saved]).when(save()).then([]);
    spec
      .given([saved])
      .when(save({ text: 'Something else' }))
      .thenThrows(Conflict);
  });
});

describe('editing a thought', () => {
  test('text, kind and tags: omitted fields stay, the edit carries the whole words', () => {
    spec
      .given([saved])
      .when(update({ text: ' Ship smaller. ', kind: 'tip' }))
      .then([
        {
          type: 'ThoughtEdited',
          data: {
            orgId,
            thoughtId,
            text: 'Ship smaller.',
            kind: 'tip',
            tags: ['shipping'],
            updatedAt: later,
          },
        },
      ]);
  });

  test('nothing changed decides nothing', () => {
    spec
      .given([saved])
      .when(update({ text: 'Ship small, ship often.', tags: ['shipping'] }))
      .then([]);
    spec.given([saved]).when(update({})).then([]);
  });

  test('a bad field is refused', () => {
    spec
      .given([saved])
      .when(update({ text: '' }))
      .thenThrows(ValidationError, /text/);
    spec
      .given([saved])
      .when(update({ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }))
      .thenThrows(ValidationError, /tags/);
  });
});

describe('thought | PATCH status: value in new, drafted, archived → given value', () => {
  const cases: Array<
    [string, ThoughtEvent[], 'new' | 'drafted' | 'archived', 'new' | 'drafted' | 'archived']
  > = [
    ['new → archived', [saved], 'new', 'archived'],
    ['new → drafted', [saved], 'new', 'drafted'],
    ['drafted → new', [saved, drafted([groupA])], 'drafted', 'new'],
    ['drafted → archived', [saved, drafted([groupA])], 'drafted', 'archived'],
    ['archived → new', [saved, status('new', 'archived')], 'archived', 'new'],
    ['archived → drafted', [saved, status('new', 'archived')], 'archived', 'drafted'],
  ];
  test.each(cases)('%s', (_, given, from, to) => {
    spec
      .given(given)
      .when(update({ status: to }))
      .then([status(from, to)]);
  });

  test('the status it has already decides nothing; an edit and a status together are two events', () => {
    spec
      .given([saved])
      .when(update({ status: 'new' }))
      .then([]);
    spec
      .given([saved])
      .when(update({ text: 'Archived idea', status: 'archived' }))
      .then([
        {
          type: 'ThoughtEdited',
          data: {
            orgId,
            thoughtId,
            text: 'Archived idea',
            kind: 'lesson',
            tags: ['shipping'],
            updatedAt: later,
          },
        },
        status('new', 'archived'),
      ]);
  });
});

describe('deleting a thought', () => {
  test('deletes; the thought is then not found', () => {
    spec
      .given([saved])
      .when({ type: 'DeleteThought', orgId, thoughtId, now: later })
      .then([{ type: 'ThoughtDeleted', data: { orgId, thoughtId, deletedAt: later } }]);
    const deleted: ThoughtEvent = { type: 'ThoughtDeleted', data: { orgId, thoughtId, deletedAt: later } };
    spec
      .given([saved, deleted])
      .when({ type: 'DeleteThought', orgId, thoughtId, now: later })
      .thenThrows(NotFound);
    spec
      .given([saved, deleted])
      .when(update({ text: 'Back?' }))
      .thenThrows(NotFound);
    spec
      .given([saved, deleted])
      .when(record([groupA]))
      .thenThrows(NotFound);
    spec.given([saved, deleted]).when(save()).thenThrows(Conflict);
  });
});

describe('recording drafts', () => {
  test('drafted: status drafted, the groups appended, lastDraftedAt set', () => {
    spec
      .given([saved])
      .when(record([groupA]))
      .then([drafted([groupA])]);
    spec
      .given([saved, drafted([groupA])])
      .when(record([groupB], 'run-2'))
      .thenState((s) => {
        expect(s).toMatchObject({
          status: 'exists',
          thought: { status: 'drafted', draftGroupIds: [groupA, groupB], lastDraftedAt: later },
        });
      });
  });

  test('the same agent run again decides nothing', () => {
    spec
      .given([saved, drafted([groupA])])
      .when(record([groupA]))
      .then([]);
  });

  test('an archived thought is not drafted from (409 thought_archived)', () => {
    spec
      .given([saved, status('new', 'archived')])
      .when(record([groupA]))
      .thenThrows(Conflict, /archived/);
  });
});

describe('workspaces', () => {
  test("another workspace's thought is not found, and unknown ones neither", () => {
    spec
      .given([saved])
      .when({ ...update({ text: 'x' }), orgId: otherOrg })
      .thenThrows(NotFound);
    spec.given([saved]).when({ type: 'DeleteThought', orgId: otherOrg, thoughtId, now }).thenThrows(NotFound);
    spec
      .given([])
      .when(update({ text: 'x' }))
      .thenThrows(NotFound);
  });
});
