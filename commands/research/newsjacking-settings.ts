// Newsjacking settings use cases (issue 31, part 3): read them (every member; mcp:read for assistants) and save them
// (owners and admins, the role matrix's "Settings" row; posts:write for assistants, as the spec's scope table says).
// One small stream per workspace, `newsjackingSettings-<orgId>`, replayed on read like the engagement settings.
import { randomUUID } from 'node:crypto';
import {
  newsjackingSettingsCategory,
  newsjackingSettingsDecider,
  newsjackingSettingsView,
  type NewsjackingSettingsChanges,
  type NewsjackingSettingsState,
  type NewsjackingSettingsView,
} from '../../domain/research/newsjacking-settings.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { streamName } from '../../infra/event-store/port.js';
import { handleCommand, loadAggregate, type CommandDeps } from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export const newsjackingSettingsStream = (orgId: string) => streamName(newsjackingSettingsCategory, orgId);

export const researchReading = (orgId: string) =>
  ({ orgId, permission: 'workspace:read', scope: 'mcp:read' }) as const;
const managing = (orgId: string) => ({ orgId, permission: 'settings:manage', scope: 'posts:write' }) as const;

/** The workspace's newsjacking settings as saved, the defaults when none were. */
export async function newsjackingSettingsOf(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
): Promise<NewsjackingSettingsState> {
  return (await loadAggregate(deps.eventStore, newsjackingSettingsStream(orgId), newsjackingSettingsDecider))
    .state;
}

/** Tool: get_newsjacking_settings. */
export async function getNewsjackingSettings(
  deps: Pick<WriteDeps, 'commands'>,
  caller: Caller,
  input: { orgId: string },
): Promise<NewsjackingSettingsView> {
  authorize(caller, researchReading(input.orgId));
  return newsjackingSettingsView(await newsjackingSettingsOf(deps.commands, input.orgId));
}

/** Tool: update_newsjacking_settings. Omitted fields stay; lists (feeds too) replace the saved ones. */
export async function updateNewsjackingSettings(
  deps: WriteDeps,
  caller: Caller,
  input: { orgId: string } & NewsjackingSettingsChanges,
  request: WriteRequest,
): Promise<Written<NewsjackingSettingsView>> {
  const { orgId, ...changes } = input;
  authorize(caller, managing(orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const outcome = await handleCommand(deps.commands, {
      stream: newsjackingSettingsStream(orgId),
      decider: newsjackingSettingsDecider,
      command: {
        type: 'UpdateNewsjackingSettings',
        orgId,
        changes,
        idSeed: idempotencySeed ?? randomUUID(),
        by: caller.userId,
        now: request.now,
      },
      metadata: { ...metadata, orgId },
      eventId: deterministicEventIds(idempotencySeed, 'newsjacking-settings'),
      sideWrite: record ? (trx, o) => record(trx, newsjackingSettingsView(o.state)) : undefined,
    });
    return newsjackingSettingsView(outcome.state);
  });
}
