// The use cases of a workspace's settings kept as one small stream per workspace (`<category>-<orgId>`), saved
// whole by a decider whose one command names the changed fields: read them (every member; mcp:read for
// assistants), and save them (owners and admins, the role matrix's "Settings" row; posts:write for assistants, as
// the spec's scope table says), answered as the view. The engagement settings and the newsjacking settings are
// two of them; each passes its decider, its view and how a save becomes its command.
import { randomUUID } from 'node:crypto';
import type { Decider } from '../../domain/shared/decider.js';
import type { DomainEvent } from '../../domain/shared/event-codec.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { streamName } from '../../infra/event-store/port.js';
import { handleCommand, loadAggregate, type CommandDeps } from './command-handler.js';
import { deterministicEventIds } from './ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from './write-pipeline.js';

export const settingsReading = (orgId: string) =>
  ({ orgId, permission: 'workspace:read', scope: 'mcp:read' }) as const;
const settingsManaging = (orgId: string) =>
  ({ orgId, permission: 'settings:manage', scope: 'posts:write' }) as const;

/** What a save decides with: the workspace, the changes, a seed for new ids (from the Idempotency-Key), who, when. */
export interface SettingsSave<Changes> {
  orgId: string;
  changes: Changes;
  idSeed: string;
  by: string;
  now: string;
}

export function workspaceSettings<State, Command, Event extends DomainEvent, Changes, View>(spec: {
  category: string;
  decider: Decider<State, Command, Event>;
  view: (state: State) => View;
  command: (save: SettingsSave<Changes>) => Command;
  /** Names the saves' deterministic event ids. */
  scope: string;
}) {
  const streamOf = (orgId: string) => streamName(spec.category, orgId);
  /** The settings as saved, the defaults when none were. */
  const settingsOf = async (deps: Pick<CommandDeps, 'eventStore'>, orgId: string): Promise<State> =>
    (await loadAggregate(deps.eventStore, streamOf(orgId), spec.decider)).state;
  return {
    streamOf,
    settingsOf,
    get: async (deps: WriteDeps, caller: Caller, input: { orgId: string }): Promise<View> => {
      authorize(caller, settingsReading(input.orgId));
      return spec.view(await settingsOf(deps.commands, input.orgId));
    },
    /** Omitted fields stay; lists replace the saved ones. */
    update: async (
      deps: WriteDeps,
      caller: Caller,
      input: { orgId: string } & Changes,
      request: WriteRequest,
    ): Promise<Written<View>> => {
      const { orgId, ...changes } = input;
      authorize(caller, settingsManaging(orgId));
      return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
        const outcome = await handleCommand(deps.commands, {
          stream: streamOf(orgId),
          decider: spec.decider,
          command: spec.command({
            orgId,
            changes: changes as Changes,
            idSeed: idempotencySeed ?? randomUUID(),
            by: caller.userId,
            now: request.now,
          }),
          metadata: { ...metadata, orgId },
          eventId: deterministicEventIds(idempotencySeed, spec.scope),
          sideWrite: record ? (trx, o) => record(trx, spec.view(o.state)) : undefined,
        });
        return spec.view(outcome.state);
      });
    },
  };
}
