// Adding a slice is one registration: the service built with the tests' notes slice appended to api/slices.ts
// runs its migration, serves its operation as a route (in the OpenAPI document too) and as an assistant tool,
// folds its projection and waits for it on writes (read-your-writes), with nothing else edited. Its operation is
// one declaration and one use case (notes-slice.ts).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { slices } from '../../../api/slices.js';
import { connectAssistant } from '../../support/assistant.js';
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

  test('its operation is an assistant tool too: listed with its scope, refused without it, checked alike', async () => {
    const writer = await connectAssistant(service, {
      userId: workspace.userIds.editor,
      orgId: workspace.orgId,
      scopes: ['posts:write'],
    });
    const { tools } = await writer.client.listTools();
    const tool = tools.find((t) => t.name === 'add_note');
    expect(tool?.inputSchema.required).toEqual(['text']);
    expect(tool?.inputSchema.properties).not.toHaveProperty('orgId');
    const added = await writer.client.callTool({ name: 'add_note', arguments: { text: 'Tool' } });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toMatchObject({ text: 'Tool' });
    // The same use case's refusal (the limit is 5 here), and a bad field named in the tool's terms.
    const tooLong = await writer.client.callTool({ name: 'add_note', arguments: { text: 'x'.repeat(10) } });
    expect(tooLong.structuredContent).toMatchObject({ status: 422 });
    const invalid = await writer.client.callTool({ name: 'add_note', arguments: { text: '' } });
    expect(invalid.structuredContent).toMatchObject({ status: 400, details: [{ path: 'arguments.text' }] });

    const reader = await connectAssistant(service, {
      userId: workspace.userIds.editor,
      orgId: workspace.orgId,
      scopes: [],
    });
    expect((await reader.client.listTools()).tools.map((t) => t.name)).not.toContain('add_note');
    const refused = await reader.client.callTool({ name: 'add_note', arguments: { text: 'No scope' } });
    expect(refused.structuredContent).toMatchObject({ status: 403, code: 'insufficient_scope' });
    // The viewer's role may not draft, whatever the connection's scopes.
    const viewer = await connectAssistant(service, {
      userId: workspace.userIds.viewer,
      orgId: workspace.orgId,
      scopes: ['posts:write'],
    });
    const byViewer = await viewer.client.callTool({ name: 'add_note', arguments: { text: 'Viewer' } });
    expect(byViewer.structuredContent).toMatchObject({ status: 403 });
  });
});
