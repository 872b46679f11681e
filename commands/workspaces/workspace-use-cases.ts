// Workspace use cases: any signed-in member creates a workspace and becomes its owner (assistants, connected to
// one workspace, may not), through the write pipeline.
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { workspaceView, type WorkspaceView } from '../../domain/workspaces/views.js';
import { newId } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import { createWorkspace as createWorkspaceCommand } from './workspace-commands.js';

/** The slug is reserved first, then the workspace created with the caller as owner; a taken slug is a 409. */
export async function createWorkspace(
  deps: WriteDeps,
  caller: Caller,
  input: { name: string; slug: string },
  request: WriteRequest,
): Promise<Written<WorkspaceView>> {
  authorize(caller, { scope: null });
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    // With a key, the id comes from it: a retry reserves the same slug for the same workspace and completes.
    const orgId = newId(idempotencySeed ? [idempotencySeed, 'workspace'] : undefined);
    const { workspace } = await createWorkspaceCommand(
      deps.commands,
      { orgId, slug: input.slug, name: input.name, ownerId: caller.userId },
      metadata,
      {
        idempotencySeed,
        // Only with an Idempotency-Key is the answer stored with the append (which otherwise needs no
        // transaction of its own).
        ...(record ? { sideWrite: (trx: unknown, w) => record(trx, workspaceView(w)) } : {}),
      },
    );
    return workspaceView(workspace);
  });
}
