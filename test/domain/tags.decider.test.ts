// The workspace tags decider, rule by rule: create, unique names (case and whitespace), colours, update,
// rename, no-op update, delete, unknown tags and the per-workspace limit.
import { describe, expect, test } from 'vitest';
import { fold } from '../../domain/shared/decider.js';
import { Conflict, NotFound, ValidationError } from '../../domain/shared/errors.js';
import {
  maxTagsPerWorkspace,
  workspaceTagsDecider,
  type TagCommand,
  type TagEvent,
} from '../../domain/tags/tags.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const sales = '00000000-0000-4000-8000-0000000000a1';
const launch = '00000000-0000-4000-8000-0000000000a2';
const unknown = '00000000-0000-4000-8000-0000000000ff';
const now = '2026-11-22T10:00:00.000Z';
const later = '2026-11-22T11:00:00.000Z';

const created = (tagId: string, name: string, color: string | null = null): TagEvent => ({
  type: 'TagCreated',
  data: { orgId, tagId, name, color, createdAt: now },
});
const create = (name: string, color?: string | null, tagId = launch): TagCommand => ({
  type: 'CreateTag',
  orgId,
  tagId,
  name,
  ...(color !== undefined ? { color } : {}),
  now,
});
const withSales = [created(sales, 'Sales', '#ff8800')];
const spec = deciderSpec(workspaceTagsDecider);

describe('creating a tag', () => {
  test('a new tag is created with its name trimmed and its colour lower-cased', () => {
    spec
      .given([])
      .when(create('  Launch ', '#AbC'))
      .then([created(launch, 'Launch', '#abc')]);
    spec
      .given(withSales)
      .when(create('Launch'))
      .thenState((s) => {
        expect(s.status === 'active' && Object.keys(s.tags).sort()).toEqual([sales, launch].sort());
      });
  });

  test('a name already taken in the workspace is a conflict, whatever its case or surrounding spaces', () => {
    for (const name of ['Sales', 'sales', 'SALES', '  sAlEs  ']) {
      spec
        .given(withSales)
        .when(create(name))
        .thenThrows(Conflict, /"Sales"/);
    }
  });

  test('the conflict carries the tag_name_taken code', () => {
    expect(() => workspaceTagsDecider.decide(create('SALES'), fold(workspaceTagsDecider, withSales))).toThrow(
      expect.objectContaining({ code: 'tag_name_taken' }),
    );
  });

  test('a blank or too long name is refused naming the name', () => {
    for (const name of ['', '   ', 'x'.repeat(51)]) {
      spec.given([]).when(create(name)).thenThrows(ValidationError, /name/);
    }
    spec
      .given([])
      .when(create('x'.repeat(50)))
      .then([created(launch, 'x'.repeat(50))]);
  });

  test('a colour that is not #rgb or #rrggbb is refused naming the colour', () => {
    for (const color of ['red', '#ff88', 'ff8800', '#ggg', '#ff8800ff', '']) {
      let error: unknown;
      try {
        workspaceTagsDecider.decide(create('Launch', color), { status: 'empty' });
      } catch (e) {
        error = e;
      }
      expect(error, color).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details).toEqual([{ path: 'color', message: expect.any(String) }]);
    }
    spec
      .given([])
      .when(create('Launch', null))
      .then([created(launch, 'Launch', null)]);
  });

  test('the same creation again (same tag id, name and colour) changes nothing; another one conflicts', () => {
    spec
      .given(withSales)
      .when(create('Sales', '#FF8800', sales))
      .then([]);
    spec
      .given(withSales)
      .when(create('Other', null, sales))
      .thenThrows(Conflict);
  });

  test(`a workspace holds at most ${maxTagsPerWorkspace} tags; deleting one makes room`, () => {
    const full = Array.from({ length: maxTagsPerWorkspace }, (_, i) =>
      created(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, `tag ${i}`),
    );
    spec
      .given(full)
      .when(create('One more'))
      .thenThrows(Conflict, /at most 500/);
    expect(() => workspaceTagsDecider.decide(create('One more'), fold(workspaceTagsDecider, full))).toThrow(
      expect.objectContaining({ code: 'tag_limit_reached' }),
    );
    spec
      .given(full.slice(1))
      .when(create('One more'))
      .then([created(launch, 'One more')]);
    spec
      .given([...full, { type: 'TagDeleted', data: { orgId, tagId: full[0]!.data.tagId, deletedAt: later } }])
      .when(create('One more'))
      .then([created(launch, 'One more')]);
  });
});

describe('updating a tag', () => {
  const update = (changes: { name?: string; color?: string | null }, tagId = sales): TagCommand => ({
    type: 'UpdateTag',
    tagId,
    ...changes,
    now: later,
  });
  const updated = (name: string, color: string | null): TagEvent => ({
    type: 'TagUpdated',
    data: { orgId, tagId: sales, name, color, updatedAt: later },
  });

  test('the event carries the full new values; omitted fields stay and a null colour clears', () => {
    spec
      .given(withSales)
      .when(update({ name: ' Revenue ' }))
      .then([updated('Revenue', '#ff8800')]);
    spec
      .given(withSales)
      .when(update({ color: '#00F' }))
      .then([updated('Sales', '#00f')]);
    spec
      .given(withSales)
      .when(update({ color: null }))
      .then([updated('Sales', null)]);
    spec
      .given(withSales)
      .when(update({ name: 'Revenue' }))
      .thenState((s) => {
        expect(s.status === 'active' && s.tags[sales]).toMatchObject({
          name: 'Revenue',
          color: '#ff8800',
          createdAt: now,
          updatedAt: later,
        });
      });
  });

  test('renaming to a name another tag has is a conflict, whatever the case', () => {
    spec
      .given([...withSales, created(launch, 'Launch')])
      .when(update({ name: 'LAUNCH ' }))
      .thenThrows(Conflict, /"Launch"/);
  });

  test('renaming a tag to its own name in another case is allowed', () => {
    spec
      .given(withSales)
      .when(update({ name: 'SALES' }))
      .then([updated('SALES', '#ff8800')]);
  });

  test('an update that changes nothing appends nothing', () => {
    spec.given(withSales).when(update({})).then([]);
    spec
      .given(withSales)
      .when(update({ name: ' Sales ', color: '#FF8800' }))
      .then([]);
  });

  test('bad values are refused', () => {
    spec
      .given(withSales)
      .when(update({ name: '  ' }))
      .thenThrows(ValidationError);
    spec
      .given(withSales)
      .when(update({ color: 'orange' }))
      .thenThrows(ValidationError);
  });

  test('an unknown or deleted tag is not found', () => {
    spec
      .given([])
      .when(update({ name: 'X' }))
      .thenThrows(NotFound, /Tag not found/);
    spec
      .given(withSales)
      .when(update({ name: 'X' }, unknown))
      .thenThrows(NotFound);
    spec
      .given([...withSales, { type: 'TagDeleted', data: { orgId, tagId: sales, deletedAt: later } }])
      .when(update({ name: 'X' }))
      .thenThrows(NotFound);
  });
});

describe('deleting a tag', () => {
  const remove = (tagId: string): TagCommand => ({ type: 'DeleteTag', tagId, now: later });
  const deleted: TagEvent = { type: 'TagDeleted', data: { orgId, tagId: sales, deletedAt: later } };

  test('deleting removes the tag and frees its name', () => {
    spec.given(withSales).when(remove(sales)).then([deleted]);
    spec
      .given(withSales)
      .when(remove(sales))
      .thenState((s) => expect(s.status === 'active' && s.tags).toEqual({}));
    spec
      .given([...withSales, deleted])
      .when(create('sales'))
      .then([created(launch, 'sales')]);
  });

  test('deleting an unknown or already deleted tag is not found', () => {
    spec.given([]).when(remove(sales)).thenThrows(NotFound);
    spec.given(withSales).when(remove(unknown)).thenThrows(NotFound);
    spec
      .given([...withSales, deleted])
      .when(remove(sales))
      .thenThrows(NotFound, /Tag not found/);
  });
});
