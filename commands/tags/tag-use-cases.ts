// Tag use cases: create, update and delete a workspace's tags for a caller (a member, or an assistant with
// posts:write), through the write pipeline; each answers with the tag (a delete, as it was).
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { tagView, type TagView } from '../../domain/tags/views.js';
import type { RecordAnswer } from '../shared/idempotent.js';
import { newId } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import {
  createTag as appendCreateTag,
  deleteTag as appendDeleteTag,
  updateTag as appendUpdateTag,
  type TagWriteOptions,
} from './tag-commands.js';

const writing = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

/** The answer goes into the append's transaction when the request carries an Idempotency-Key. */
function recording(record: RecordAnswer<TagView> | undefined): TagWriteOptions {
  return record ? { sideWrite: (trx, tag) => record(trx, tagView(tag)) } : {};
}

export interface CreateTagInput {
  orgId: string;
  name: string;
  /** Null or absent: no colour. */
  color?: string | null;
}

export async function createTag(
  deps: WriteDeps,
  caller: Caller,
  input: CreateTagInput,
  request: WriteRequest,
): Promise<Written<TagView>> {
  authorize(caller, writing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    // With a key, the id comes from it: a retry after a crash creates the same tag, not a second one.
    const tagId = newId(idempotencySeed ? [idempotencySeed, 'tag'] : undefined);
    const { tag } = await appendCreateTag(
      deps.commands,
      input.orgId,
      { tagId, name: input.name, color: input.color },
      metadata,
      recording(record),
    );
    return tagView(tag);
  });
}

export interface UpdateTagInput {
  orgId: string;
  tagId: string;
  /** Omitted fields stay; `color: null` clears the colour. */
  changes: { name?: string; color?: string | null };
}

export async function updateTag(
  deps: WriteDeps,
  caller: Caller,
  input: UpdateTagInput,
  request: WriteRequest,
): Promise<Written<TagView>> {
  authorize(caller, writing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const { tag } = await appendUpdateTag(
      deps.commands,
      input.orgId,
      input.tagId,
      input.changes,
      metadata,
      recording(record),
    );
    return tagView(tag);
  });
}

/** Answers with the tag as it was just before it was deleted. */
export async function deleteTag(
  deps: WriteDeps,
  caller: Caller,
  input: { orgId: string; tagId: string },
  request: WriteRequest,
): Promise<Written<TagView>> {
  authorize(caller, writing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const { tag } = await appendDeleteTag(
      deps.commands,
      input.orgId,
      input.tagId,
      metadata,
      recording(record),
    );
    return tagView(tag);
  });
}
