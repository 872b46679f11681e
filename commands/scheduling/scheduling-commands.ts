// Scheduling commands: the workspace's time zone and scheduler settings, decided against the workspace's
// scheduling stream (`scheduling-<orgId>`), so every change is an event naming who changed what, and when.
import {
  schedulingCategory,
  schedulingDecider,
  type SchedulingCommand,
  type SchedulingSettingsChanges,
  type SchedulingState,
} from '../../domain/scheduling/scheduling.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteOption,
} from '../shared/command-handler.js';

export const schedulingStream = (orgId: string) => streamName(schedulingCategory, orgId);

/** The side write (the idempotency record) is given the state the command left. */
export type SchedulingWriteOptions = SideWriteOption<SchedulingState>;

async function run(
  deps: CommandDeps,
  orgId: string,
  command: SchedulingCommand,
  metadata: CommandMetadata,
  options: SchedulingWriteOptions,
): Promise<SchedulingState> {
  const sideWrite = options.sideWrite;
  const outcome = await handleCommand(deps, {
    stream: schedulingStream(orgId),
    decider: schedulingDecider,
    command,
    metadata: { ...metadata, orgId },
    sideWrite: sideWrite ? (trx, o) => sideWrite(trx, o.state) : undefined,
  });
  return outcome.state;
}

const byOf = (metadata: CommandMetadata) => metadata.userId ?? metadata.actor;

export function setWorkspaceTimezone(
  deps: CommandDeps,
  orgId: string,
  timezone: string,
  metadata: CommandMetadata,
  options: SchedulingWriteOptions = {},
): Promise<SchedulingState> {
  return run(
    deps,
    orgId,
    { type: 'SetWorkspaceTimezone', orgId, timezone, by: byOf(metadata), now: metadata.now },
    metadata,
    options,
  );
}

export function changeSchedulingSettings(
  deps: CommandDeps,
  orgId: string,
  input: { changes: SchedulingSettingsChanges; resetPostingWindows?: string[]; timezone?: string },
  metadata: CommandMetadata,
  options: SchedulingWriteOptions = {},
): Promise<SchedulingState> {
  return run(
    deps,
    orgId,
    {
      type: 'ChangeSchedulingSettings',
      orgId,
      changes: input.changes,
      ...(input.resetPostingWindows !== undefined ? { resetPostingWindows: input.resetPostingWindows } : {}),
      ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
      by: byOf(metadata),
      now: metadata.now,
    },
    metadata,
    options,
  );
}
