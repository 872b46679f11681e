// Queries over the users read model.
import type { Kysely } from 'kysely';
import type { ReadModels, UsersTable } from '../read-models.js';

export async function getUser(db: Kysely<ReadModels>, userId: string): Promise<UsersTable | null> {
  return (await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst()) ?? null;
}
