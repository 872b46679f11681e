// The launch kit aggregate: one stream per kit (`launchKit-<kitId>`). Created whole (its copy, its plan and the
// groups its posts were drafted into), then each step marked done or not done. Pure: ids, time and the generated
// content come in the command.
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, NotFound } from '../shared/errors.js';
import {
  launchKitEventCodec,
  type LaunchKitContent,
  type LaunchKitEvent,
  type PlannedStep,
} from './event-codec.js';

export type { LaunchKitEvent } from './event-codec.js';

export const launchKitCategory = 'launchKit';

export type LaunchKitCommand =
  | {
      type: 'CreateLaunchKit';
      orgId: string;
      kitId: string;
      content: LaunchKitContent;
      agentRunId: string;
      providerModel: string;
      source: 'ai' | 'heuristic';
      by: string | null;
      now: string;
    }
  | { type: 'MarkLaunchStep'; kitId: string; stepId: string; done: boolean; now: string };

export interface LaunchKitStep extends PlannedStep {
  done: boolean;
}

export interface LaunchKit extends Omit<LaunchKitContent, 'steps'> {
  id: string;
  orgId: string;
  steps: LaunchKitStep[];
  agentRunId: string;
  providerModel: string;
  source: 'ai' | 'heuristic';
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export type LaunchKitState = { status: 'none' } | { status: 'exists'; kit: LaunchKit };

export const launchKitDecider: Decider<LaunchKitState, LaunchKitCommand, LaunchKitEvent> = {
  initialState: { status: 'none' },
  codec: launchKitEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'CreateLaunchKit': {
        if (state.status === 'exists') {
          // The same run again (a retried request) creates nothing new.
          if (state.kit.agentRunId === command.agentRunId) return [];
          throw new Conflict('Launch kit already exists');
        }
        return [
          {
            type: 'LaunchKitCreated',
            data: {
              ...command.content,
              orgId: command.orgId,
              kitId: command.kitId,
              createdAt: command.now,
              createdBy: command.by,
              agentRunId: command.agentRunId,
              providerModel: command.providerModel,
              source: command.source,
            },
          },
        ];
      }
      case 'MarkLaunchStep': {
        if (state.status !== 'exists') throw new NotFound('Launch kit not found');
        const step = state.kit.steps.find((s) => s.id === command.stepId);
        if (!step)
          throw new NotFound('No such step in this launch kit', 'launch_step_not_found', [
            { path: 'stepId', message: `No step ${JSON.stringify(command.stepId)} in this launch kit` },
          ]);
        if (step.done === command.done) return [];
        return [
          {
            type: 'LaunchStepMarked',
            data: {
              orgId: state.kit.orgId,
              kitId: state.kit.id,
              stepId: step.id,
              done: command.done,
              markedAt: command.now,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'LaunchKitCreated': {
        const { kitId, orgId, steps, createdAt, ...rest } = event.data;
        return {
          status: 'exists',
          kit: {
            ...rest,
            id: kitId,
            orgId,
            steps: steps.map((s) => ({ ...s, done: false })),
            createdAt,
            updatedAt: createdAt,
          },
        };
      }
      case 'LaunchStepMarked': {
        if (state.status !== 'exists') return state;
        const d = event.data;
        return {
          status: 'exists',
          kit: {
            ...state.kit,
            steps: state.kit.steps.map((s) => (s.id === d.stepId ? { ...s, done: d.done } : s)),
            updatedAt: d.markedAt,
          },
        };
      }
      default:
        return assertNever(event);
    }
  },
};
