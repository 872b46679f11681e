// X automation commands: the workspace's automation stream (`xAutomation-<orgId>`, domain/automation), loaded
// and written through the one write path. Runs decide many small steps on it; they retry a conflict more often
// than a request does, since concurrent runs of one workspace contend for the same stream by design.
import {
  xAutomationCategory,
  xAutomationDecider,
  type XAutomationCommand,
  type XAutomationEvent,
  type XAutomationState,
} from '../../domain/automation/x-automation.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type CommandOutcome,
  type SideWriteOf,
} from '../shared/command-handler.js';

export const xAutomationStream = (orgId: string) => streamName(xAutomationCategory, orgId);

/** Attempts after a concurrency conflict for a run's steps (each step is small and always decidable again). */
export const runStepRetries = 50;

export async function loadXAutomation(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
): Promise<{ state: XAutomationState; revision: number | null }> {
  const { state, revision } = await loadAggregate(
    deps.eventStore,
    xAutomationStream(orgId),
    xAutomationDecider,
  );
  return { state, revision };
}

export async function decideXAutomation(
  deps: CommandDeps,
  orgId: string,
  command: XAutomationCommand,
  metadata: CommandMetadata,
  options: {
    awaitReadModels?: boolean;
    sideWrite?: SideWriteOf<CommandOutcome<XAutomationState, XAutomationEvent>>;
    retries?: number;
    /** The stream as the caller last saw it (a run's previous step): decided against first, read again on a conflict. */
    loaded?: { state: XAutomationState; revision: number | null };
  } = {},
): Promise<CommandOutcome<XAutomationState, XAutomationEvent>> {
  return handleCommand(
    options.retries !== undefined
      ? { ...deps, maxRetries: Math.max(deps.maxRetries ?? 5, options.retries) }
      : deps,
    {
      stream: xAutomationStream(orgId),
      decider: xAutomationDecider,
      command,
      metadata: { ...metadata, orgId },
      ...(options.awaitReadModels === false ? { awaitReadModels: false } : {}),
      ...(options.sideWrite ? { sideWrite: options.sideWrite } : {}),
      ...(options.loaded ? { loaded: options.loaded } : {}),
    },
  );
}
