// Queries over the users read model: the signed-in user (for a caller), and one user's view.
import type { Kysely } from 'kysely';
import { loadUser } from '../../commands/users/user-commands.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { userView, type UserView } from '../../domain/users/views.js';
import type { ReadModels, UsersTable } from '../read-models.js';

export async function getUser(db: Kysely<ReadModels>, userId: string): Promise<UsersTable | null> {
  return (await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst()) ?? null;
}

/** The user as the read model shows them, or null when it does not (yet). */
export async function getUserView(db: Kysely<ReadModels>, userId: string): Promise<UserView | null> {
  const u = await getUser(db, userId);
  if (!u) return null;
  return {
    id: u.id,
    email: u.email,
    emailVerified: u.email_verified,
    name: u.name,
    avatarUrl: u.avatar_url,
    activeOrgId: u.active_org_id,
    featureFlags: u.feature_flags,
    createdAt: u.created_at,
    updatedAt: u.updated_at,
  };
}

/** The caller's own user; any signed-in caller may read it (an assistant with mcp:read). */
export async function getCurrentUser(
  deps: { readModels: Kysely<ReadModels>; commands: Pick<CommandDeps, 'eventStore'> },
  caller: Caller,
): Promise<UserView> {
  authorize(caller, { scope: 'mcp:read' });
  // The read model may not have caught up with a user made by the CLI a moment ago; the stream is the truth.
  return (
    (await getUserView(deps.readModels, caller.userId)) ??
    userView(await loadUser(deps.commands, caller.userId))
  );
}
