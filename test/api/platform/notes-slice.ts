// A tiny slice that lives only in the tests, to show that adding a slice is one module and one registration:
// one event (NoteAdded) with its decider, one migration (a workspace's note length limit), one projection
// (`notes`) and one route (POST ORG/notes, answering from the read model it has just caught up).
// A real slice spreads the same parts over domain/, commands/, projections/ and api/ (docs/adding-a-slice.md).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { sql, type Kysely } from 'kysely';
import { secured } from '../../../api/auth/middleware.js';
import type { AppEnv } from '../../../api/platform/app-env.js';
import { errorResponses } from '../../../api/platform/errors.js';
import { dataOf, jsonBody, jsonResponse } from '../../../api/platform/responses.js';
import { orgParams } from '../../../api/shared/params.js';
import type { Slice } from '../../../api/shared/slice.js';
import { commandMetadata } from '../../../api/shared/write.js';
import {
  handleCommand,
  type CommandDeps,
  type CommandMetadata,
} from '../../../commands/shared/command-handler.js';
import { newId } from '../../../commands/shared/ids.js';
import type { Decider, DomainEvent } from '../../../domain/shared/decider.js';
import { defineEventCodec, zodSpecs } from '../../../domain/shared/event-codec.js';
import { Unprocessable } from '../../../domain/shared/errors.js';
import { streamName } from '../../../infra/event-store/port.js';
import { readsFrom } from '../../../projections/engine/event-sources.js';
import { defineProjection } from '../../../projections/engine/projection.js';

// Domain: the decider. Time, ids and the limit come in the command, so decide stays pure.
export type NoteAdded = DomainEvent<
  'NoteAdded',
  { noteId: string; orgId: string; text: string; addedAt: string }
>;
interface AddNote {
  noteId: string;
  orgId: string;
  text: string;
  maxLength: number;
  now: string;
}
type NoteState = { added: false } | { added: true; text: string };

/** How NoteAdded is read back from the store. */
const noteEventCodec = defineEventCodec<NoteAdded>(
  'notes',
  zodSpecs({
    NoteAdded: z.object({ noteId: z.string(), orgId: z.string(), text: z.string(), addedAt: z.string() }),
  }),
);

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

// Route.
const noteSchema = z
  .object({ id: z.uuid(), text: z.string(), notesInWorkspace: z.number().int() })
  .openapi('TestNote');

const addNoteRoute = createRoute({
  ...secured({ permission: 'posts:draft' }),
  method: 'post',
  path: '/v1/orgs/{orgId}/notes',
  tags: ['notes'],
  summary: 'Add a note (a slice of the tests)',
  request: {
    params: orgParams,
    body: jsonBody(
      z
        .object({ text: z.string().min(1) })
        .strict()
        .openapi('AddTestNote'),
    ),
  },
  responses: {
    201: jsonResponse(dataOf(noteSchema), 'The note, and how many the workspace has'),
    ...errorResponses(400, 401, 403, 422, 503),
  },
});

export const notesSlice: Slice = {
  name: 'notes',
  migrations: Object.entries(notesMigrations),
  projections: [notesProjection],
  routes: ({ services }) => [
    (app: OpenAPIHono<AppEnv>) => {
      const db = services.readModels.withTables<NotesReadModels>();
      app.openapi(addNoteRoute, async (c) => {
        const { orgId } = c.req.valid('param');
        const { text } = c.req.valid('json');
        const metadata = commandMetadata(c, services);
        const limit = await db
          .selectFrom('note_limits')
          .select('max_length')
          .where('org_id', '=', orgId)
          .executeTakeFirst();
        const noteId = newId();
        await addNote(
          services.commands,
          { noteId, orgId, text, maxLength: limit?.max_length ?? 280, now: metadata.now },
          metadata,
        );
        // The write waited for every slice's read models, this one's included.
        const { n } = await db
          .selectFrom('notes')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('org_id', '=', orgId)
          .executeTakeFirstOrThrow();
        return c.json({ data: { id: noteId, text, notesInWorkspace: Number(n) } }, 201);
      });
    },
  ],
};
