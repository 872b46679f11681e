// Read model of users for GET /v1/users/me: one row per user with the profile fields of the spec.
import { sql } from 'kysely';
import { userEventCodec } from '../../domain/users/event-codec.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';

const columns = {
  name: 'name',
  avatarUrl: 'avatar_url',
  activeOrgId: 'active_org_id',
  locale: 'locale',
  timezone: 'timezone',
} as const;

export const usersProjection = defineProjection({
  name: 'users',
  version: 1,
  tables: ['users'],
  // The profile image events came after version 1 without a rebuild: no stream held them before.
  reads: [readsFrom(userEventCodec)],

  async createTables(trx, schema) {
    await sql`
      create table ${sql.id(schema)}.users (
        id uuid primary key,
        email text not null unique,
        email_verified boolean,
        name text,
        avatar_url text,
        active_org_id uuid,
        feature_flags jsonb not null default '[]',
        locale text,
        timezone text,
        created_at timestamptz not null,
        updated_at timestamptz
      )`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withSchema(schema);
    switch (event.type) {
      case 'UserRegistered': {
        const d = event.data;
        await db
          .insertInto('users')
          .values({
            id: d.userId,
            email: d.email,
            email_verified: null,
            name: d.name,
            avatar_url: null,
            active_org_id: null,
            feature_flags: sql<string[]>`'[]'::jsonb`,
            locale: null,
            timezone: null,
            created_at: d.registeredAt,
            updated_at: d.registeredAt,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'UserProfileUpdated': {
        const set: Record<string, unknown> = { updated_at: event.data.updatedAt };
        for (const [key, column] of Object.entries(columns)) {
          const value = event.data.changes[key as keyof typeof columns];
          if (value !== undefined) set[column] = value;
        }
        await db.updateTable('users').set(set).where('id', '=', event.data.userId).execute();
        return;
      }
      case 'UserEmailVerified':
        await db
          .updateTable('users')
          .set({ email_verified: true })
          .where('id', '=', event.data.userId)
          .execute();
        return;
      case 'UserProfileImageSet':
        await db
          .updateTable('users')
          .set({ avatar_url: event.data.avatarUrl, updated_at: event.data.setAt })
          .where('id', '=', event.data.userId)
          .execute();
        return;
      case 'UserProfileImageRemoved':
        // Only the avatar that showed the image is cleared (the aggregate's evolve does the same).
        await db
          .updateTable('users')
          .set({
            avatar_url: sql<
              string | null
            >`case when avatar_url = ${event.data.avatarUrl} then null else avatar_url end`,
            updated_at: event.data.removedAt,
          })
          .where('id', '=', event.data.userId)
          .execute();
        return;
      default:
        return;
    }
  },
});
