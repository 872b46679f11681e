// `cli token --email <email> [--workspace <slug>] [--role <role>]`: creates what is missing (the user; the
// workspace with that user as owner) and prints an access token as the last line. Works with or without the server.
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  addMember,
  createWorkspace,
  findWorkspaceBySlug,
  loadWorkspace,
} from '../../commands/workspaces/workspace-commands.js';
import { ensureUser, loadUser } from '../../commands/users/user-commands.js';
import type { CommandDeps, CommandMetadata } from '../../commands/shared/command-handler.js';
import { isRole, roles, type Role } from '../../domain/workspaces/roles.js';
import type { AuthService } from '../auth/auth-service.js';
import { TOKEN_USAGE } from './usage.js';
export { TOKEN_USAGE } from './usage.js';

export interface TokenCommandDeps {
  commands: CommandDeps;
  auth: AuthService;
  out: (line: string) => void;
  /** Workspaces the user belongs to, oldest membership first (from the read model when available). */
  workspacesOf?: (userId: string) => Promise<Array<{ orgId: string; role: string }>>;
}

export async function tokenCommand(args: string[], deps: TokenCommandDeps): Promise<number> {
  let values: { email?: string; workspace?: string; role?: string; name?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        email: { type: 'string' },
        workspace: { type: 'string' },
        role: { type: 'string' },
        name: { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    deps.out(`${error instanceof Error ? error.message : String(error)}\n${TOKEN_USAGE}`);
    return 2;
  }
  const email = z.email().safeParse(values.email?.trim());
  if (!email.success) {
    deps.out(`--email must be an e-mail address\n${TOKEN_USAGE}`);
    return 2;
  }
  if (values.role !== undefined && !isRole(values.role)) {
    deps.out(`--role must be one of ${roles.join(', ')}\n${TOKEN_USAGE}`);
    return 2;
  }
  const meta = (): CommandMetadata => ({
    orgId: null,
    actor: 'system',
    correlationId: randomUUID(),
    now: new Date().toISOString(),
  });

  const { user, created } = await ensureUser(
    deps.commands,
    { email: email.data, name: values.name ?? null },
    meta(),
  );
  deps.out(`${created ? 'created' : 'found'} user ${user.email} (${user.userId})`);

  let orgId: string | null = null;
  let role: Role | null = null;
  if (values.workspace !== undefined) {
    const slug = values.workspace;
    const existing = await findWorkspaceBySlug(deps.commands, slug);
    if (!existing) {
      const { workspace } = await createWorkspace(
        deps.commands,
        { orgId: randomUUID(), slug, name: slug, ownerId: user.userId },
        { ...meta(), actor: user.userId },
      );
      deps.out(`created workspace ${workspace.slug} (${workspace.orgId}) with ${user.email} as owner`);
      orgId = workspace.orgId;
      role = 'owner';
      if (values.role && values.role !== 'owner') {
        deps.out(`note: the creator of a workspace is its owner; --role ${values.role} ignored`);
      }
    } else {
      const current = existing.members[user.userId]?.role;
      const wanted: Role = values.role ?? current ?? 'editor';
      if (current !== wanted) {
        const updated = await addMember(
          deps.commands,
          existing.orgId,
          { userId: user.userId, role: wanted },
          meta(),
        );
        deps.out(
          `${current ? `changed role of ${user.email} to` : `added ${user.email} as`} ${wanted} in ${updated.slug}`,
        );
      }
      orgId = existing.orgId;
      role = wanted;
    }
  } else {
    // No workspace named: the user's active one, else their first, else a user-only token.
    const { activeOrgId: active } = await loadUser(deps.commands, user.userId);
    const candidates = [
      ...(active ? [active] : []),
      ...((await deps.workspacesOf?.(user.userId)) ?? []).map((w) => w.orgId),
    ];
    for (const candidate of candidates) {
      const workspace = await loadWorkspace(deps.commands, candidate).catch(() => null);
      const memberRole = workspace?.members[user.userId]?.role;
      if (memberRole) {
        orgId = candidate;
        role = memberRole;
        break;
      }
    }
    deps.out(
      orgId
        ? `token for workspace ${orgId} as ${role}`
        : 'token without a workspace (create one with POST /v1/orgs)',
    );
  }

  const token = await deps.auth.issueAccessToken({ userId: user.userId, email: user.email, orgId, role });
  deps.out(`expires at ${token.expiresAt}`);
  deps.out(token.token);
  return 0;
}
