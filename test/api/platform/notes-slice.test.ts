// Adding a slice is one registration: the service built with the tests' notes slice appended to api/slices.ts
// runs its migration, serves its route (in the OpenAPI document too), folds its projection and waits for it
// on writes (read-your-writes), with nothing else edited.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { slices } from '../../../api/slices.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { Unprocessable } from '../../../domain/shared/errors.js';
import { deciderSpec } from '../../support/decider-spec.js';
import { noteDecider, notesSlice, type NoteAdded } from './notes-slice.js';

let service: TestService;
let workspace: TestWorkspace;
beforeAll(async () => {
  service = await startTestService({ slices: [...slices, notesSlice] });
  workspace = await createTestWorkspace(service);
});
afterAll(async () => service.stop());

const addNote = (text: string, token = workspace.tokens.editor) =>
  service.request('POST', `/v1/orgs/${workspace.orgId}/notes`, { token, body: { text } });

describe('a slice added in one registration', () => {
  test('its decider: one NoteAdded, nothing when the note exists, a refusal past the limit', () => {
    const now = '2026-01-01T00:00:00.000Z';
    const command = { noteId: 'n', orgId: 'o', text: 'hi', maxLength: 280, now };
    const added: NoteAdded = {
      type: 'NoteAdded',
      data: { noteId: 'n', orgId: 'o', text: 'hi', addedAt: now },
    };
    deciderSpec(noteDecider).given([]).when(command).then([added]);
    deciderSpec(noteDecider).given([added]).when(command).then([]);
    deciderSpec(noteDecider)
      .given([])
      .when({ ...command, maxLength: 1 })
      .thenThrows(Unprocessable, /at most 1 characters/);
  });

  test('its migration ran with the others', async () => {
    const { rows } = await service.database.pool.query<{ name: string }>(
      `select name from schema_migrations where name = '0900_note_limits'`,
    );
    expect(rows).toHaveLength(1);
  });

  test('its route writes an event, and answers from its own read model caught up by the write', async () => {
    const first = await addNote('First note');
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ data: { text: 'First note', notesInWorkspace: 1 } });
    const second = await addNote('Second note');
    expect(await second.json()).toMatchObject({ data: { text: 'Second note', notesInWorkspace: 2 } });

    const { rows } = await service.database.pool.query<{ type: string }>(
      `select type from es_events where stream_name like 'note-%'`,
    );
    expect(rows.map((r) => r.type)).toEqual(['NoteAdded', 'NoteAdded']);
    const notes = await service.database.pool.query<{ text: string }>(
      'select text from notes where org_id = $1 order by added_at',
      [workspace.orgId],
    );
    expect(notes.rows.map((r) => r.text)).toEqual(['First note', 'Second note']);
    expect(service.runtime.projections.map((p) => p.name)).toContain('notes');
  });

  test("its route is secured like every other, and its decision uses the migration's table", async () => {
    expect((await addNote('Not mine', workspace.tokens.viewer)).status).toBe(403);
    await service.database.pool.query('insert into note_limits (org_id, max_length) values ($1, 5)', [
      workspace.orgId,
    ]);
    const tooLong = await addNote('Longer than five');
    expect(tooLong.status).toBe(422);
  });

  test('its route is in the OpenAPI document', async () => {
    const doc = (await (await service.request('GET', '/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/v1/orgs/{orgId}/notes'] ?? {})).toEqual(['post']);
  });
});
