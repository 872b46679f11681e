// The launch kit decider, rule by rule: a kit is created whole; the same run again creates nothing, another run on
// the same id is a conflict; a step is marked done or not done; the same mark again decides nothing; an unknown
// kit or step is refused, the step named `stepId`.
import { describe, expect, test } from 'vitest';
import type { LaunchKitContent } from '../../domain/launch-kits/event-codec.js';
import {
  launchKitDecider,
  type LaunchKitCommand,
  type LaunchKitEvent,
} from '../../domain/launch-kits/launch-kit.js';
import { fold } from '../../domain/shared/decider.js';
import { Conflict, NotFound } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const kitId = '00000000-0000-4000-8000-0000000000a1';
const now = '2026-11-22T10:00:00.000Z';
const later = '2026-11-22T11:00:00.000Z';

const content: LaunchKitContent = {
  productName: 'Shipday',
  pitch: 'Release notes from your changelog.',
  url: null,
  launchDate: '2026-12-08',
  timezone: 'Europe/London',
  channels: ['x'],
  productHunt: null,
  hackerNews: null,
  steps: [
    {
      id: 'step-1',
      day: -7,
      date: '2026-12-01',
      time: null,
      scheduledForUtc: null,
      kind: 'task',
      channel: null,
      title: 'Prepare the launch assets',
      detail: 'Screenshots.',
      groupId: null,
      platform: null,
    },
    {
      id: 'step-2',
      day: 0,
      date: '2026-12-08',
      time: '08:00',
      scheduledForUtc: '2026-12-08T08:00:00.000Z',
      kind: 'post',
      channel: 'x',
      title: 'Launch post on X',
      detail: 'The launch.',
      groupId: '00000000-0000-4000-8000-0000000000b1',
      platform: 'x',
    },
  ],
};

const create = (agentRunId = 'run-1'): LaunchKitCommand => ({
  type: 'CreateLaunchKit',
  orgId,
  kitId,
  content,
  agentRunId,
  providerModel: 'offline',
  source: 'heuristic',
  by: null,
  now,
});
const created: LaunchKitEvent = {
  type: 'LaunchKitCreated',
  data: {
    ...content,
    orgId,
    kitId,
    createdAt: now,
    createdBy: null,
    agentRunId: 'run-1',
    providerModel: 'offline',
    source: 'heuristic',
  },
};
const mark = (stepId: string, done: boolean): LaunchKitCommand => ({
  type: 'MarkLaunchStep',
  kitId,
  stepId,
  done,
  now: later,
});
const marked = (stepId: string, done: boolean): LaunchKitEvent => ({
  type: 'LaunchStepMarked',
  data: { orgId, kitId, stepId, done, markedAt: later },
});
const spec = deciderSpec(launchKitDecider);

describe('creating a kit', () => {
  test('a new kit is created whole, every step not done', () => {
    spec.given([]).when(create()).then([created]);
    const state = fold(launchKitDecider, [created]);
    expect(state.status === 'exists' && state.kit.steps.map((s) => s.done)).toEqual([false, false]);
    expect(state.status === 'exists' && state.kit.updatedAt).toBe(now);
  });

  test('the same run again creates nothing; another run on the same id is a conflict', () => {
    spec.given([created]).when(create()).then([]);
    spec
      .given([created])
      .when(create('run-2'))
      .thenThrows(Conflict, /already exists/);
  });
});

describe('marking a step', () => {
  test('done, then not done again; the kit is updated at the mark', () => {
    spec
      .given([created])
      .when(mark('step-2', true))
      .then([marked('step-2', true)]);
    spec
      .given([created, marked('step-2', true)])
      .when(mark('step-2', false))
      .then([marked('step-2', false)]);
    const state = fold(launchKitDecider, [created, marked('step-2', true)]);
    expect(state.status === 'exists' && state.kit.steps.map((s) => s.done)).toEqual([false, true]);
    expect(state.status === 'exists' && state.kit.updatedAt).toBe(later);
  });

  test('the same mark again decides nothing', () => {
    spec.given([created]).when(mark('step-1', false)).then([]);
    spec
      .given([created, marked('step-1', true)])
      .when(mark('step-1', true))
      .then([]);
  });

  test('an unknown step is not found, named stepId; an unknown kit is not found', () => {
    let error: unknown;
    try {
      launchKitDecider.decide(mark('step-9', true), fold(launchKitDecider, [created]));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NotFound);
    expect((error as NotFound).details).toEqual([
      { path: 'stepId', message: expect.stringContaining('step-9') },
    ]);
    spec
      .given([])
      .when(mark('step-1', true))
      .thenThrows(NotFound, /Launch kit not found/);
  });
});
