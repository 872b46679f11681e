// Announcements of membership changes (a member joined, changed role, left or was suspended), for caches of
// "which role does this user hold in this workspace" such as the per-request membership check of the API.
// The workspaces projection announces each change from inside its fold transaction: to this process at
// once (before the commit), and to every process through NOTIFY, which PostgreSQL delivers at the commit.
import { sql, type Transaction } from 'kysely';

/** NOTIFY channel; the payload is `<orgId>:<userId>`. */
export const MEMBERSHIP_CHANNEL = 'workspace_memberships';

export interface MembershipChange {
  orgId: string;
  userId: string;
}

export type MembershipChangeListener = (change: MembershipChange) => void;

const listeners = new Set<MembershipChangeListener>();

/** Calls `listener` when this process folds a membership change (before it commits); returns the unsubscribe. */
export function onLocalMembershipChange(listener: MembershipChangeListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Inside the transaction that writes the change: tells local listeners now and every listener at the commit. */
export async function announceMembershipChange<DB>(
  trx: Transaction<DB>,
  change: MembershipChange,
): Promise<void> {
  for (const listener of [...listeners]) listener(change);
  await sql`select pg_notify(${MEMBERSHIP_CHANNEL}, ${`${change.orgId}:${change.userId}`})`.execute(trx);
}

/** `announceMembershipChange` for many changes in one statement (a batch fold): each distinct member once. */
export async function announceMembershipChanges<DB>(
  trx: Transaction<DB>,
  changes: readonly MembershipChange[],
): Promise<void> {
  const payloads = [...new Set(changes.map((c) => `${c.orgId}:${c.userId}`))];
  if (payloads.length === 0) return;
  for (const change of changes) for (const listener of [...listeners]) listener(change);
  await sql`select pg_notify(${MEMBERSHIP_CHANNEL}, p) from unnest(${payloads}::text[]) as p`.execute(trx);
}

/** The change a notification payload names, or undefined for anything else. */
export function parseMembershipChange(payload: string | undefined): MembershipChange | undefined {
  const [orgId, userId, ...rest] = (payload ?? '').split(':');
  return orgId && userId && rest.length === 0 ? { orgId, userId } : undefined;
}
