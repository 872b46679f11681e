// The workspaces projection's batch fold (used for 500-event pages by rebuilds and catch-up) leaves the same
// rows as folding the same events one by one, whatever the mix and order of creations, joins, role changes,
// suspensions, reactivations, removals, detail changes and deletions.
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RecordedEvent } from '../../infra/event-store/port.js';
import { eventReader } from '../../projections/engine/event-sources.js';
import type { ReadModels } from '../../projections/read-models.js';
import { workspacesProjection } from '../../projections/workspaces/workspaces-projection.js';
import { testMetadata } from '../support/events.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { propertyRuns } from '../support/property-runs.js';

let database: TestDatabase<ReadModels>;
let db: Kysely<ReadModels>;

beforeAll(async () => {
  database = await createTestDatabase<ReadModels>({});
  db = database.db;
});
afterAll(async () => database.drop());

const orgs = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
const users = ['10000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000002'];
const roles = ['owner', 'admin', 'editor', 'viewer'];

const anEvent = fc.oneof(
  fc.record({ type: fc.constant('WorkspaceCreated'), org: fc.integer({ min: 0, max: 1 }), n: fc.nat(9) }),
  fc.record({
    type: fc.constantFrom('MemberJoined', 'MemberRoleChanged'),
    org: fc.integer({ min: 0, max: 1 }),
    user: fc.integer({ min: 0, max: 1 }),
    role: fc.constantFrom(...roles),
    n: fc.nat(9),
  }),
  fc.record({
    type: fc.constantFrom('MemberSuspended', 'MemberReactivated', 'MemberRemoved'),
    org: fc.integer({ min: 0, max: 1 }),
    user: fc.integer({ min: 0, max: 1 }),
    n: fc.nat(9),
  }),
  fc.record({
    type: fc.constantFrom('WorkspaceUpdated', 'WorkspaceDeleted'),
    org: fc.integer({ min: 0, max: 1 }),
    n: fc.nat(9),
  }),
);
type Generated = { type: string; org: number; user?: number; role?: string; n: number };

function recorded(events: readonly Generated[]): RecordedEvent[] {
  return events.map((e, i) => {
    const orgId = orgs[e.org]!;
    const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    const userId = e.user === undefined ? undefined : users[e.user];
    const data = {
      WorkspaceCreated: {
        orgId,
        slug: `ws-${e.org}`,
        name: `Workspace ${e.n}`,
        ownerId: users[0],
        createdAt: at,
      },
      MemberJoined: { orgId, userId, role: e.role, joinedAt: at },
      MemberRoleChanged: { orgId, userId, role: e.role, changedAt: at },
      MemberSuspended: { orgId, userId, by: users[0], suspendedAt: at },
      MemberReactivated: { orgId, userId, by: users[0], reactivatedAt: at },
      MemberRemoved: { orgId, userId, by: users[0], removedAt: at },
      // Slugs stay apart per workspace, as the slug reservations keep them.
      WorkspaceUpdated: {
        orgId,
        name: `Renamed ${e.n}`,
        slug: `ws-${e.org}-${e.n}`,
        avatarUrl: e.n % 2 === 0 ? null : `https://example.org/${e.n}.png`,
        updatedAt: at,
      },
      WorkspaceDeleted: { orgId, by: users[0], deletedAt: at },
    }[e.type];
    return {
      id: `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`,
      streamName: `workspace-${orgId}`,
      revision: i,
      type: e.type,
      data,
      metadata: testMetadata(),
      position: `pg:1:${i}`,
      recordedAt: at,
    };
  });
}

async function rows(schema: string) {
  const w = await sql`select * from ${sql.id(schema, 'workspaces')} order by id`.execute(db);
  const m = await sql`select * from ${sql.id(schema, 'workspace_members')} order by org_id, user_id`.execute(
    db,
  );
  return { workspaces: w.rows, members: m.rows };
}

test('a batch fold leaves the rows folding event by event leaves', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(anEvent, { maxLength: 25 }), async (generated) => {
      run += 1;
      const events = eventReader(workspacesProjection.reads).decodeAll(recorded(generated));
      const one = `wsb_one_${run}`;
      const batch = `wsb_batch_${run}`;
      await db.transaction().execute(async (trx) => {
        for (const schema of [one, batch]) {
          await sql`create schema ${sql.id(schema)}`.execute(trx);
          await workspacesProjection.createTables(trx, schema);
        }
        for (const e of events) await workspacesProjection.apply(trx, e, one);
        await workspacesProjection.applyBatch!(trx, events, batch);
      });
      expect(await rows(batch)).toEqual(await rows(one));
      await sql`drop schema ${sql.id(one)} cascade; drop schema ${sql.id(batch)} cascade`.execute(db);
    }),
    { numRuns: propertyRuns(60) },
  );
});
