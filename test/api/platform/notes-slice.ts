// A tiny slice that lives only in the tests, to show that adding a slice is one module and one registration:
// one event (NoteAdded) with its decider, one migration (a workspace's note length limit), one projection
// (`notes`), one use case and one operation (POST ORG/notes and the add_note tool, answering from the read model
// the write has just caught up).
// A real slice spreads the same parts over domain/, commands/, projections/ and api/ (docs/adding-a-slice.md).
import { z } from '@hono/zod-openapi';
import { sql, type Kysely } from 'kysely';
import { operationGroup, operationsWith } from '../../../api/shared/operation.js';
import { orgParams } from '../../../api/shared/params.js';
import type { RouteServices } from '../../../api/shared/services.js';
import type { Slice } from '../../../api/shared/slice.js';
import {
  handleCommand,
  type CommandDeps,
  type CommandMetadata,
} from '../../../commands/shared/command-handler.js';
import { newId } from '../../../commands/shared/ids.js';
import {
  runWrite,
  type WriteDeps,
  type WriteRequest,
  type Written,
} from '../../../commands/shared/write-pipeline.js';
import type { Caller } from '../../../domain/shared/caller.js';
import type { Decider } from '../../../domain/shared/decider.js';
import { zodEventCodec, type EventsOf } from '../../../domain/shared/event-codec.js';
import { Unprocessable } from '../../../domain/shared/errors.js';
import { streamName } from '../../../infra/event-store/port.js';
import { readsFrom } from '../../../projections/engine/event-sources.js';
import { defineProjection } from '../../../projections/engine/projection.js';
import type { ReadModels } from '../../../projections/read-models.js';

// Domain: the event, declared once (its schema; the type and the codec come from it), and the decider. Time, ids
// and the limit come in the command, so decide stays pure.
const noteEvents = {
  NoteAdded: z.object({ noteId: z.string(), orgId: z.string(), text: z.string(), addedAt: z.string() }),
};
export type NoteAdded = EventsOf<typeof noteEvents>;
/** How NoteAdded is read back from the store. */
const noteEventCodec = zodEventCodec('notes', noteEvents);

interface AddNote {
  noteId: string;
  orgId: string;
  text: string;
  maxLength: number;
  now: string;
}
type NoteState = { added: false } | { added: true; text: string };

export const noteDecider: Decider<NoteState, AddNote, NoteAdded> = {
  initialState: { added: false },
  codec: noteEventCodec,
  evolve: (_state, event) => ({ added: true, text: event.data.text }),
  decide: (command, state) => {
    if (state.added) return [];
    if (command.text.length > command.maxLength)
      throw new Unprocessable(`A note has at most ${command.maxLength} characters in this workspace`);
    const { noteId, orgId, text, now } = command;
    return [{ type: 'NoteAdded', data: { noteId, orgId, text, addedAt: now } }];
  },
};

// Command: one stream per note.
export async function addNote(deps: CommandDeps, command: AddNote, metadata: CommandMetadata) {
  return handleCommand(deps, {
    stream: streamName('note', command.noteId),
    decider: noteDecider,
    command,
    metadata: { ...metadata, orgId: command.orgId },
  });
}

// Migration: a table of the slice's own (no projection: no generations, no rebuild).
type NoteLimitsTable = { org_id: string; max_length: number };

export const notesMigrations = {
  '0900_note_limits': {
    async up(db: Kysely<unknown>) {
      await sql`create table note_limits (org_id uuid primary key, max_length int not null)`.execute(db);
    },
  },
};

// Projection, and its read-model type: kept with the slice and reached with `withTables`, so
// projections/read-models.ts is not edited.
export type NotesReadModels = {
  notes: { id: string; org_id: string; text: string; added_at: string };
  note_limits: NoteLimitsTable;
};

export const notesProjection = defineProjection({
  name: 'notes',
  version: 1,
  tables: ['notes'],
  reads: [readsFrom(noteEventCodec)],
  async createTables(trx, schema) {
    await sql`
      create table ${sql.id(schema)}.notes (
        id uuid primary key, org_id uuid not null, text text not null, added_at timestamptz not null
      )`.execute(trx);
  },
  async apply(trx, { data }, schema) {
    await trx
      .withTables<NotesReadModels>()
      .withSchema(schema)
      .insertInto('notes')
      .values({ id: data.noteId, org_id: data.orgId, text: data.text, added_at: data.addedAt })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  },
});

// Use case: reads the workspace's limit, decides through the write pipeline (Idempotency-Key, metadata), and
// answers from the slice's read model, which the write has caught up.
export interface AddNoteInput {
  orgId: string;
  text: string;
}

export interface NoteView {
  id: string;
  text: string;
  notesInWorkspace: number;
}

export async function addNoteUseCase(
  deps: WriteDeps & { readModels: Kysely<ReadModels> },
  caller: Caller,
  input: AddNoteInput,
  request: WriteRequest,
): Promise<Written<NoteView>> {
  const db = deps.readModels.withTables<NotesReadModels>();
  return runWrite(deps.idempotency, caller, request, async ({ metadata, idempotencySeed }) => {
    const limit = await db
      .selectFrom('note_limits')
      .select('max_length')
      .where('org_id', '=', input.orgId)
      .executeTakeFirst();
    const noteId = newId(idempotencySeed ? [idempotencySeed, 'note'] : undefined);
    const { orgId, text } = input;
    await addNote(
      deps.commands,
      { noteId, orgId, text, maxLength: limit?.max_length ?? 280, now: metadata.now },
      metadata,
    );
    // The write waited for every slice's read models, this one's included.
    const { n } = await db
      .selectFrom('notes')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow();
    return { id: noteId, text, notesInWorkspace: Number(n) };
  });
}

// Operation: one declaration makes the route (POST ORG/notes, in the OpenAPI document) and the assistant tool
// (add_note); both check the role or scope and the subscription before the use case.
const noteSchema = z
  .object({ id: z.uuid(), text: z.string(), notesInWorkspace: z.number().int() })
  .openapi('TestNote');

const operation = operationsWith<RouteServices>();

export const addNoteOperation = operation({
  name: 'add_note',
  kind: 'write',
  method: 'post',
  path: '/v1/orgs/{orgId}/notes',
  tags: ['notes'],
  summary: 'Add a note (a slice of the tests)',
  params: orgParams,
  body: z
    .object({ text: z.string().min(1) })
    .strict()
    .openapi('AddTestNote'),
  output: noteSchema,
  outputDescription: 'The note, and how many the workspace has',
  status: 201,
  errors: [400, 401, 403, 422, 503],
  access: { permission: 'posts:draft', scope: 'posts:write' },
  tool: {
    title: 'Add a note',
    description: 'Adds a short note to the workspace (a slice of the tests).',
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    summary: (note) => `Added note ${note.id}; the workspace has ${note.notesInWorkspace}.`,
  },
  run: (services, { caller, request }, input) => addNoteUseCase(services, caller, input, request),
});

export const notesSlice: Slice = {
  name: 'notes',
  migrations: Object.entries(notesMigrations),
  projections: [notesProjection],
  operations: [operationGroup((ctx) => ctx.services, [addNoteOperation])],
};
