// Engagement settings use cases (issue 30, part 1): read them (every member; mcp:read for assistants) and save them
// (owners and admins, the role matrix's "Settings" row; posts:write for assistants, as the spec's scope table
// says). Reads replay the one small stream per workspace, `engagementSettings-<orgId>`; `engagementSettingsOf` is
// what the inbox's refresh reads them with.
import { randomUUID } from 'node:crypto';
import {
  engagementSettingsCategory,
  engagementSettingsDecider,
  engagementSettingsView,
  type EngagementSettingsChanges,
  type EngagementSettingsState,
  type EngagementSettingsView,
} from '../../domain/engagement/settings.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { streamName } from '../../infra/event-store/port.js';
import { handleCommand, loadAggregate, type CommandDeps } from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export const engagementSettingsStream = (orgId: string) => streamName(engagementSettingsCategory, orgId);

const reading = (orgId: string) => ({ orgId, permission: 'workspace:read', scope: 'mcp:read' }) as const;
const managing = (orgId: string) => ({ orgId, permission: 'settings:manage', scope: 'posts:write' }) as const;

/** The workspace's engagement settings as saved, the defaults when none were (for the inbox's refresh). */
export async function engagementSettingsOf(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
): Promise<EngagementSettingsState> {
  return (await loadAggregate(deps.eventStore, engagementSettingsStream(orgId), engagementSettingsDecider))
    .state;
}

/** Tool: get_engagement_settings. */
export async function getEngagementSettings(
  deps: Pick<WriteDeps, 'commands'>,
  caller: Caller,
  input: { orgId: string },
): Promise<EngagementSettingsView> {
  authorize(caller, reading(input.orgId));
  return engagementSettingsView(await engagementSettingsOf(deps.commands, input.orgId));
}

/** Tool: update_engagement_settings. Omitted fields stay; lists (feeds too) replace the saved ones. */
export async function updateEngagementSettings(
  deps: WriteDeps,
  caller: Caller,
  input: { orgId: string } & EngagementSettingsChanges,
  request: WriteRequest,
): Promise<Written<EngagementSettingsView>> {
  const { orgId, ...changes } = input;
  authorize(caller, managing(orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const outcome = await handleCommand(deps.commands, {
      stream: engagementSettingsStream(orgId),
      decider: engagementSettingsDecider,
      command: {
        type: 'UpdateEngagementSettings',
        orgId,
        changes,
        idSeed: idempotencySeed ?? randomUUID(),
        by: caller.userId,
        now: request.now,
      },
      metadata: { ...metadata, orgId },
      eventId: deterministicEventIds(idempotencySeed, 'engagement-settings'),
      sideWrite: record ? (trx, o) => record(trx, engagementSettingsView(o.state)) : undefined,
    });
    return engagementSettingsView(outcome.state);
  });
}
