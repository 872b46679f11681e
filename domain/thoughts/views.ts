// A thought as callers see it (spec part 2, "Thought"): rendered from the aggregate for write answers; the thoughts
// read model stores the same state, so lists answer alike.
import type { ThoughtBrief } from '../ai/writing.js';
import type { Thought, ThoughtKind, ThoughtStatus } from './thought.js';

export interface ThoughtView {
  id: string;
  orgId: string;
  text: string;
  kind: ThoughtKind;
  status: ThoughtStatus;
  source: string | null;
  tags: string[];
  draftGroupIds: string[];
  lastDraftedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function thoughtView(thought: Thought): ThoughtView {
  return {
    id: thought.thoughtId,
    orgId: thought.orgId,
    text: thought.text,
    kind: thought.kind,
    status: thought.status,
    source: thought.source,
    tags: thought.tags,
    draftGroupIds: thought.draftGroupIds,
    lastDraftedAt: thought.lastDraftedAt,
    createdAt: thought.createdAt,
    updatedAt: thought.updatedAt,
  };
}

/** The thought as a writer sees it (domain/ai/writing.ts). */
export const thoughtBrief = (
  thought: Pick<Thought, 'thoughtId' | 'kind' | 'text' | 'tags'>,
): ThoughtBrief => ({
  id: thought.thoughtId,
  kind: thought.kind,
  text: thought.text,
  tags: thought.tags,
});
