// The ai-text use cases (issue 29): generate and summarize text (POST ORG/ai/content/generate, POST ORG/ai/summarize),
// rewrite one post by guidance (rewrite_post) and write an X thread as a draft in review (create_x_thread). Each
// runs its AI job through the 'ai jobs' service (credits reserved before a model call and charged once per run by
// the runner; a failed run changes nothing and charges nothing); the two post tools then write through the
// post-group use cases themselves: a rewrite is an ordinary post edit (updatePost: the edit withdraws any approval),
// a thread an ordinary draft (createDraftPost: pending_approval, never scheduled).
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { BrandContext, BrandContextReader } from '../../domain/ai/brand-context.js';
import type { AiJobResult, AiJobRunner } from '../../domain/ai/job.js';
import type { ThoughtBrief } from '../../domain/ai/writing.js';
import { rewritePostJob } from '../../domain/ai-text/rewrite-job.js';
import { generateTextJob, summarizeTextJob, type TextResult } from '../../domain/ai-text/text-jobs.js';
import { defaultThreadParts, xThreadJob } from '../../domain/ai-text/x-thread-job.js';
import { inFlightOrSent } from '../../domain/post-groups/state.js';
import type { PostView } from '../../domain/post-groups/views.js';
import { authorize, idempotencyScopeOf, type Caller } from '../../domain/shared/caller.js';
import { Conflict, NotFound, Unprocessable } from '../../domain/shared/errors.js';
import type { Platform } from '../../domain/shared/platforms.js';
import { findPostRow } from '../../projections/post-groups/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import { writingContextOf } from '../ai/writing-context.js';
import { checkPostAccounts } from '../post-groups/post-group-checks.js';
import {
  createDraftPost,
  updatePost,
  type GroupWithPosts,
  type PostGroupUseCaseDeps,
} from '../post-groups/post-group-use-cases.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { parseIdempotencyKey } from '../shared/idempotency.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export interface AiTextDeps extends PostGroupUseCaseDeps {
  commands: CommandDeps;
  readModels: Kysely<ReadModels>;
  /** Runs the jobs (the ai slice's 'ai jobs' service). */
  aiJobs: AiJobRunner;
  /** The workspace's public brand context (the brand-profile slice's 'brand context' service). */
  brandContext: BrandContextReader;
  /** The workspace's active thoughts, newest first, for the writing context. */
  activeThoughts: (orgId: string, limit: number) => Promise<ThoughtBrief[]>;
  /** Credits left to the workspace (monthly and purchased), read after a run. */
  remainingCredits: (orgId: string) => Promise<number>;
}

/** What the two text endpoints answer (spec: {result, creditsUsed, remainingCredits}). */
export interface AiTextAnswer {
  result: string;
  creditsUsed: number;
  remainingCredits: number;
}

/** What an AI write adds to the resource it wrote. */
export interface AiRunFacts {
  providerModel: string;
  creditsUsed: number;
  remainingCredits: number;
}

export type RewrittenPostAnswer = { post: PostView } & AiRunFacts;
export type XThreadAnswer = GroupWithPosts & AiRunFacts;

/** Text needs posts:draft ("Draft: … AI text (spends credits)"); no tool writes free text, so no assistant may. */
const textWriting = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: null }) as const;
/** The two post tools: posts:draft, and for an assistant the posts:write scope (spec part 1's scope table). */
const postWriting = (orgId: string) => ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

/**
 * The agent run's idempotency key for a request with an Idempotency-Key: the caller's scope and key (hashed to the
 * runner's length) and the job, so the same request again answers the same run without a second model call or
 * charge, and a key reused for another job is another run.
 */
function runKeyOf(caller: Caller, request: WriteRequest, jobType: string): string | null {
  const key = parseIdempotencyKey(request.idempotency?.key);
  if (key === undefined) return null;
  const hash = createHash('sha256')
    .update(`${idempotencyScopeOf(caller)}\n${key}`)
    .digest('hex');
  return `${jobType}:${hash}`;
}

/**
 * Before a paid run, what the write after it would refuse of the key itself: its syntax, and its reuse with
 * another request (422 idempotency_key_reused), so a misused key spends nothing.
 */
async function checkKey(deps: PostGroupUseCaseDeps, caller: Caller, request: WriteRequest): Promise<void> {
  const keyed = request.idempotency;
  const key = parseIdempotencyKey(keyed?.key);
  if (!keyed || key === undefined) return;
  await deps.idempotency.replay({ scope: idempotencyScopeOf(caller), key, requestHash: keyed.requestHash });
}

async function brandOf(
  deps: Pick<AiTextDeps, 'readModels' | 'brandContext'>,
  orgId: string,
): Promise<{ brand: BrandContext | null; workspaceName: string }> {
  const [workspace, brand] = await Promise.all([
    deps.readModels.selectFrom('workspaces').select('name').where('id', '=', orgId).executeTakeFirst(),
    deps.brandContext.forOrg(orgId),
  ]);
  return { brand, workspaceName: workspace?.name ?? 'This workspace' };
}

const factsOf = async (deps: AiTextDeps, orgId: string, run: AiJobResult<unknown>): Promise<AiRunFacts> => ({
  providerModel: run.providerModel,
  creditsUsed: run.creditsUsed,
  remainingCredits: await deps.remainingCredits(orgId),
});

/** A text job as a write: the Idempotency-Key answers the first answer again; the run is keyed alike. */
function textWrite(
  deps: AiTextDeps,
  caller: Caller,
  request: WriteRequest,
  orgId: string,
  job: { jobType: string },
  run: (idempotencyKey: string | null) => Promise<AiJobResult<TextResult>>,
): Promise<Written<AiTextAnswer>> {
  return runWrite<AiTextAnswer>(deps.idempotency, caller, request, async () => {
    const result = await run(runKeyOf(caller, request, job.jobType));
    const { creditsUsed, remainingCredits } = await factsOf(deps, orgId, result);
    return { result: result.output.result, creditsUsed, remainingCredits };
  });
}

/** POST ORG/ai/content/generate: the text the prompt asks for, in the brand voice. */
export async function generateText(
  deps: AiTextDeps,
  caller: Caller,
  input: { orgId: string; prompt: string },
  request: WriteRequest,
): Promise<Written<AiTextAnswer>> {
  const { orgId } = input;
  authorize(caller, textWriting(orgId));
  const prompt = input.prompt.trim();
  return textWrite(deps, caller, request, orgId, generateTextJob, async (idempotencyKey) =>
    deps.aiJobs.run(generateTextJob, {
      orgId,
      userId: caller.userId,
      input: { prompt, ...(await brandOf(deps, orgId)) },
      idempotencyKey,
      payload: { prompt },
    }),
  );
}

/** POST ORG/ai/summarize: a summary of the caller's text (nothing of the workspace is sent with it). */
export async function summarizeText(
  deps: AiTextDeps,
  caller: Caller,
  input: { orgId: string; text: string },
  request: WriteRequest,
): Promise<Written<AiTextAnswer>> {
  const { orgId } = input;
  authorize(caller, textWriting(orgId));
  const text = input.text.trim();
  return textWrite(deps, caller, request, orgId, summarizeTextJob, (idempotencyKey) =>
    deps.aiJobs.run(summarizeTextJob, {
      orgId,
      userId: caller.userId,
      input: { text },
      idempotencyKey,
      // The text itself stays out of the run's payload (GET agent-runs shows it to every member).
      payload: { textLength: text.length },
    }),
  );
}

/**
 * Tool: rewrite_post. The post's text rewritten by the guidance in the brand voice (posts.rewrite), then applied as
 * an ordinary edit through updatePost: the edit withdraws any approval, and what updatePost refuses (a post being
 * published or published, content the platform refuses) is refused as it refuses it. A post that can no longer be
 * changed is refused before the run, so it spends nothing.
 */
export async function rewritePost(
  deps: AiTextDeps,
  caller: Caller,
  input: { orgId: string; postId: string; guidance: string; keepLength?: boolean },
  request: WriteRequest,
): Promise<Written<RewrittenPostAnswer>> {
  const { orgId, postId } = input;
  authorize(caller, postWriting(orgId));
  const row = await findPostRow(deps.readModels, orgId, postId);
  if (!row) throw new NotFound('Post not found');
  const post = row.body;
  if (inFlightOrSent.includes(post.status))
    throw new Conflict(`The post is ${post.status} and can no longer be changed`, 'post_not_editable');
  if (post.contentText.trim().length === 0)
    throw new Unprocessable('The post has no text to rewrite', 'post_has_no_text', [
      { path: 'postId', message: 'the post has no text; write one with update_post first' },
    ]);
  await checkKey(deps, caller, request);
  const guidance = input.guidance.trim();
  const keepLength = input.keepLength ?? false;
  const run = await deps.aiJobs.run(rewritePostJob(row.platform as Platform), {
    orgId,
    userId: caller.userId,
    input: {
      platform: row.platform as Platform,
      text: post.contentText,
      guidance,
      keepLength,
      ...(await brandOf(deps, orgId)),
    },
    idempotencyKey: runKeyOf(caller, request, 'posts.rewrite'),
    payload: { postId, guidance, keepLength },
  });
  const edited = await updatePost(deps, caller, { orgId, postId, contentText: run.output.text }, request);
  return {
    output: { post: edited.output, ...(await factsOf(deps, orgId, run)) },
    replayed: edited.replayed,
  };
}

/** The draft group's title: the thread's topic, bounded. */
const threadTitle = (topic: string) => {
  const title = `X thread: ${topic.replace(/\s+/g, ' ')}`;
  return title.length <= 300 ? title : `${title.slice(0, 299).trimEnd()}…`;
};

/**
 * Tool: create_x_thread. An X thread on the topic (posts.x_thread), grounded in the writing context, created as a
 * draft through createDraftPost: one X post whose contentText is the first part and platformPayload.thread the
 * others, pending_approval, never scheduled.
 */
export async function createXThread(
  deps: AiTextDeps,
  caller: Caller,
  input: { orgId: string; topic: string; guidance?: string; parts?: number; socialAccountId?: string },
  request: WriteRequest,
): Promise<Written<XThreadAnswer>> {
  const { orgId, socialAccountId } = input;
  authorize(caller, postWriting(orgId));
  // Checked before the run, named as the caller sent it (the draft would name it posts.0.socialAccountId).
  await checkPostAccounts(deps.readModels, orgId, [
    { platform: 'x', socialAccountId, path: 'socialAccountId' },
  ]);
  await checkKey(deps, caller, request);
  const topic = input.topic.trim();
  const guidance = input.guidance?.trim() || null;
  const parts = input.parts ?? defaultThreadParts;
  const context = await writingContextOf(deps, orgId, new Date(request.now));
  const run = await deps.aiJobs.run(xThreadJob, {
    orgId,
    userId: caller.userId,
    input: { topic, guidance, parts, context },
    idempotencyKey: runKeyOf(caller, request, 'posts.x_thread'),
    payload: { topic, guidance, parts, socialAccountId: socialAccountId ?? null },
  });
  const [first, ...thread] = run.output.parts;
  const created = await createDraftPost(
    deps,
    caller,
    {
      orgId,
      title: threadTitle(topic),
      topic,
      posts: [
        {
          platform: 'x',
          contentText: first!,
          ...(socialAccountId ? { socialAccountId } : {}),
          ...(thread.length > 0 ? { thread } : {}),
        },
      ],
    },
    request,
  );
  return {
    output: { ...created.output, ...(await factsOf(deps, orgId, run)) },
    replayed: created.replayed,
  };
}
