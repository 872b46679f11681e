// AI text and the two post tools that write with AI (issue 29), through the whole service: POST ORG/ai/content/
// generate and ORG/ai/summarize, rewrite_post (POST …/marketing/posts/{postId}/rewrite) and create_x_thread (POST
// …/marketing/drafts/x-thread). Offline (no model): the offline writers' answers, validation in the spec's error
// shape with nothing appended, roles, an idempotent retry, and an assistant calling the tools. Against a locally
// served model: every prompt is inspected (the brand voice and the caller's input are in it, a private knowledge
// item of the brand profile never), credits are charged once per run, a too-long rewrite is asked again, and a
// provider failure changes nothing and charges nothing.
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CreditsService } from '../../../commands/billing/credits.js';
import { textLength } from '../../../domain/post-groups/content-rules.js';
import { localModelEnv, testCredits } from '../../support/ai-runtime.js';
import { connectAssistant } from '../../support/assistant.js';
import { startModelServer, type ModelCall, type ModelServer } from '../../support/model-server.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let offline: TestService;
let withModel: TestService;
let model: ModelServer;
let credits: CreditsService;
let textCost: number;
let draftCost: number;

const schemaOf = (call: ModelCall) =>
  /"name":"(\w+)"/.exec(JSON.stringify(call.body.response_format))?.[1] as
    'generated_text' | 'summary' | 'rewritten_post' | 'x_thread' | undefined;
const modelRewrite = 'Rewritten by the model, plainly. What has worked for you?';
const modelThread = [
  '1/3 Closing faster starts here.',
  '2/3 Match bank lines daily.',
  '3/3 What would you add?',
];

/** A valid answer for each job's output. */
function validAnswer(call: ModelCall): string {
  switch (schemaOf(call)) {
    case 'generated_text':
      return JSON.stringify({ result: 'MODEL-GENERATED: a short post in the brand voice.' });
    case 'summary':
      return JSON.stringify({ result: 'MODEL-SUMMARY of the text.' });
    case 'rewritten_post':
      return JSON.stringify({ text: modelRewrite });
    case 'x_thread':
      return JSON.stringify({ parts: modelThread });
    case undefined:
      throw new Error('no structured output asked for');
  }
}

beforeAll(async () => {
  model = await startModelServer();
  model.scenarios.set('ok', (call) => ({ content: validAnswer(call), usage: { input: 400, output: 60 } }));
  model.scenarios.set('down', () => ({ status: 503 }));
  // A rewrite over X's limit first: the runner asks again, and the second answer fits.
  model.scenarios.set('too-long-once', (call) =>
    call.callNumber === 1
      ? { content: JSON.stringify({ text: 'far too long '.repeat(40) }) }
      : { content: validAnswer(call) },
  );
  [offline, withModel] = await Promise.all([
    startTestService(),
    startTestService({ env: localModelEnv(model.baseUrl, { AI_TIMEOUT_SECONDS: '10' }) }),
  ]);
  const billing = testCredits(withModel);
  credits = billing.credits;
  textCost = billing.catalog.actionCost('ai_text')!.credits;
  draftCost = billing.catalog.actionCost('ai_draft')!.credits;
}, 120_000);
afterAll(async () => {
  await Promise.all([offline?.stop(), withModel?.stop()]);
  await model?.close();
});

interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}
interface Post {
  id: string;
  groupId: string;
  platform: string;
  status: string;
  contentText: string;
  platformPayload: { thread?: string[] } | null;
}
interface Group {
  id: string;
  status: string;
  title: string;
  topic: string | null;
  scheduledFor: string | null;
}
interface TextAnswer {
  result: string;
  creditsUsed: number;
  remainingCredits: number;
}
interface RewriteAnswer {
  post: Post;
  providerModel: string;
  creditsUsed: number;
  remainingCredits: number;
}
interface ThreadAnswer {
  group: Group;
  posts: Post[];
  providerModel: string;
  creditsUsed: number;
  remainingCredits: number;
}
type Role = keyof TestWorkspace['tokens'];

const post = (
  service: TestService,
  ws: TestWorkspace,
  rest: string,
  body: unknown,
  options: { role?: Role; headers?: Record<string, string> } = {},
) =>
  service.request('POST', `/v1/orgs/${ws.orgId}${rest}`, {
    token: ws.tokens[options.role ?? 'owner'],
    body,
    ...(options.headers ? { headers: options.headers } : {}),
  });

async function ok<T>(res: Response, status = 200): Promise<T> {
  expect(res.status, await res.clone().text()).toBe(status);
  return ((await res.json()) as { data: T }).data;
}
async function refused(res: Response, status: number): Promise<ErrorBody> {
  expect(res.status, await res.clone().text()).toBe(status);
  return (await res.json()) as ErrorBody;
}

const balance = async (orgId: string) => (await credits.summaryOf(orgId)).creditBalance.total;

/** An X draft, approved without a time: status `approved`. */
async function approvedXPost(service: TestService, ws: TestWorkspace, text: string): Promise<Post> {
  const draft = await ok<{ group: Group; posts: Post[] }>(
    await post(service, ws, '/marketing/drafts', {
      title: 'To rewrite',
      posts: [{ platform: 'x', contentText: text }],
    }),
  );
  const approved = await ok<Group>(
    await post(service, ws, `/marketing/post-groups/${draft.group.id}/approve`, { autoSchedule: false }),
  );
  expect(approved.status).toBe('approved');
  return { ...draft.posts[0]!, status: 'approved' };
}

async function getPost(service: TestService, ws: TestWorkspace, postId: string, groupId: string) {
  const res = await service.request('GET', `/v1/orgs/${ws.orgId}/marketing/post-groups/${groupId}`, {
    token: ws.tokens.viewer,
  });
  return (await ok<{ group: Group; posts: Post[] }>(res)).posts.find((p) => p.id === postId)!;
}

const groupCount = async (service: TestService, ws: TestWorkspace) => {
  const res = await service.request('GET', `/v1/orgs/${ws.orgId}/marketing/posts?limit=100`, {
    token: ws.tokens.owner,
  });
  return new Set((await ok<{ items: Post[] }>(res)).items.map((p) => p.groupId)).size;
};

const withEmoji =
  "We're really excited to share our new close checklist! 🎉 It's the fastest way to close. #finance";

describe('offline writer', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createTestWorkspace(offline, 'Ledgerly');
    const res = await offline.request('PATCH', `/v1/orgs/${ws.orgId}/brand/profile`, {
      token: ws.tokens.owner,
      body: {
        brandType: 'business',
        mission: 'Give finance teams their evenings back',
        businessOutline: {
          targetAudience: ['controllers at mid-sized companies'],
          valueProposition: 'Close the books in three days with fewer spreadsheets',
        },
        voice: {
          tone: 'Clear and practical',
          personalityTraits: [],
          writingGuidelines: [],
          bannedPhrases: [],
        },
      },
    });
    expect(res.status).toBe(200);
  });

  test('generate writes a brand-voiced text on the prompt topic, free, and records an ai.generate run', async () => {
    const answer = await ok<TextAnswer>(
      await post(offline, ws, '/ai/content/generate', {
        prompt: 'Write a short LinkedIn post about closing the books faster',
      }),
    );
    expect(answer.result).toContain('Closing the books faster.');
    expect(answer.result).toContain('At Ledgerly, we give finance teams their evenings back');
    expect(answer.result).toContain('close the books in three days with fewer spreadsheets');
    expect(answer.creditsUsed).toBe(0);
    expect(answer.remainingCredits).toBe(await balance(ws.orgId));
    const runs = await offline.request('GET', `/v1/orgs/${ws.orgId}/agent-runs?jobType=ai.generate`, {
      token: ws.tokens.viewer,
    });
    const items = (await ok<{ items: { status: string; payload: unknown; costCredits: number }[] }>(runs))
      .items;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      status: 'succeeded',
      costCredits: 0,
      payload: { prompt: 'Write a short LinkedIn post about closing the books faster' },
    });
  });

  test('summarize keeps the sentences carrying the most frequent words, in their order', async () => {
    const sentences = [
      'The month-end close is slow at most mid-sized companies.',
      'Teams spend days matching bank lines to invoices by hand.',
      'Spreadsheets get passed around by email, and nobody knows which version is right.',
      'Automated reconciliation matches most bank lines to invoices in minutes.',
      'The weather was nice last week.',
      'Auditors like it because every match is recorded.',
      'Companies that automate reconciliation close the books days faster.',
      'They also find errors earlier.',
    ];
    const answer = await ok<TextAnswer>(
      await post(offline, ws, '/ai/summarize', { text: sentences.join(' ') }),
    );
    const kept = sentences.filter((s) => answer.result.includes(s));
    expect(kept).toEqual([sentences[1], sentences[3]]);
    expect(answer.result).toBe(kept.join(' '));
    expect(answer.creditsUsed).toBe(0);
  });

  test('bad input is a 400 naming the field; roles without posts:draft get 403; nothing is appended', async () => {
    const before = await eventCount(offline);
    const cases: Array<[string, unknown, string]> = [
      ['/ai/content/generate', {}, 'body.prompt'],
      ['/ai/content/generate', { prompt: '   ' }, 'body.prompt'],
      ['/ai/content/generate', { prompt: 'x'.repeat(4001) }, 'body.prompt'],
      ['/ai/content/generate', { prompt: 'Hi', extra: 1 }, 'body.extra'],
      ['/ai/summarize', { text: 'y'.repeat(20_001) }, 'body.text'],
      ['/ai/summarize', { text: 42 }, 'body.text'],
      ['/marketing/drafts/x-thread', { topic: '' }, 'body.topic'],
      ['/marketing/drafts/x-thread', { topic: 'Close', parts: 1 }, 'body.parts'],
      ['/marketing/drafts/x-thread', { topic: 'Close', parts: 26 }, 'body.parts'],
      ['/marketing/drafts/x-thread', { topic: 'Close', socialAccountId: 'nope' }, 'body.socialAccountId'],
      [
        '/marketing/drafts/x-thread',
        { topic: 'Close', socialAccountId: randomUUID() },
        'body.socialAccountId',
      ],
      [`/marketing/posts/${randomUUID()}/rewrite`, {}, 'body.guidance'],
      [`/marketing/posts/${randomUUID()}/rewrite`, { guidance: 'g'.repeat(2001) }, 'body.guidance'],
      [
        `/marketing/posts/${randomUUID()}/rewrite`,
        { guidance: 'shorter', keepLength: 'yes' },
        'body.keepLength',
      ],
    ];
    for (const [rest, body, path] of cases) {
      const error = await refused(await post(offline, ws, rest, body), 400);
      expect(error.error, `${rest} ${JSON.stringify(body).slice(0, 80)}`).toEqual(expect.any(String));
      expect(
        error.details?.map((d) => d.path),
        `${rest} ${JSON.stringify(body).slice(0, 80)}`,
      ).toContain(path);
    }
    expect(
      (
        await refused(
          await post(offline, ws, `/marketing/posts/${randomUUID()}/rewrite`, { guidance: 'shorter' }),
          404,
        )
      ).error,
    ).toEqual(expect.any(String));
    for (const role of ['viewer', 'reviewer'] as const) {
      await refused(await post(offline, ws, '/ai/content/generate', { prompt: 'Hi' }, { role }), 403);
      await refused(await post(offline, ws, '/ai/summarize', { text: 'Hi.' }, { role }), 403);
      await refused(await post(offline, ws, '/marketing/drafts/x-thread', { topic: 'Close' }, { role }), 403);
    }
    expect(await eventCount(offline)).toBe(before);
    // An editor drafts: allowed.
    await ok<TextAnswer>(await post(offline, ws, '/ai/summarize', { text: 'One. Two.' }, { role: 'editor' }));
  });

  test('rewrite_post applies the guidance within X’s limit, as an edit that withdraws the approval', async () => {
    const approved = await approvedXPost(offline, ws, withEmoji);
    const answer = await ok<RewriteAnswer>(
      await post(offline, ws, `/marketing/posts/${approved.id}/rewrite`, {
        guidance: 'More formal, remove the emoji and hashtags, and add a question',
      }),
    );
    expect(answer).toMatchObject({ providerModel: 'offline', creditsUsed: 0 });
    expect(answer.post).toMatchObject({ id: approved.id, status: 'pending_approval' });
    expect(answer.post.contentText).toBe(
      'We are really excited to share our new close checklist. It is the fastest way to close.\n\nWhat has worked for you?',
    );
    // Read-your-writes: the group is back in review with the new text.
    const read = await getPost(offline, ws, approved.id, approved.groupId);
    expect(read).toMatchObject({ status: 'pending_approval', contentText: answer.post.contentText });

    const long = await approvedXPost(offline, ws, `${'Closing the books is a team sport. '.repeat(7)}Done.`);
    const short = await ok<RewriteAnswer>(
      await post(offline, ws, `/marketing/posts/${long.id}/rewrite`, { guidance: 'shorter, add a question' }),
    );
    expect(textLength('x', short.post.contentText)).toBeLessThanOrEqual(280);
    expect(short.post.contentText.length).toBeLessThan(long.contentText.length);
    expect(short.post.contentText).toMatch(/\?$/);
  });

  test('create_x_thread drafts a numbered thread in review: the first part as contentText, the rest as thread', async () => {
    const answer = await ok<ThreadAnswer>(
      await post(offline, ws, '/marketing/drafts/x-thread', {
        topic: 'How we close the books in three days',
        parts: 4,
      }),
    );
    expect(answer).toMatchObject({ providerModel: 'offline', creditsUsed: 0 });
    expect(answer.group).toMatchObject({
      status: 'pending_approval',
      scheduledFor: null,
      topic: 'How we close the books in three days',
    });
    expect(answer.posts).toHaveLength(1);
    const [thread] = answer.posts;
    expect(thread).toMatchObject({ platform: 'x', status: 'pending_approval' });
    const parts = [thread!.contentText, ...(thread!.platformPayload?.thread ?? [])];
    expect(parts).toHaveLength(4);
    parts.forEach((part, i) => {
      expect(part.startsWith(`${i + 1}/4 `)).toBe(true);
      expect(textLength('x', part)).toBeLessThanOrEqual(280);
    });
    expect(parts[0]).toContain('How we close the books in three days');
    expect(parts[1]).toContain('close the books in three days with fewer spreadsheets');
  });

  test('a repeated Idempotency-Key answers the first thread again, with one draft and one run', async () => {
    const fresh = await createTestWorkspace(offline);
    const headers = { 'Idempotency-Key': randomUUID() };
    const first = await post(
      offline,
      fresh,
      '/marketing/drafts/x-thread',
      { topic: 'Audit readiness' },
      { headers },
    );
    const one = await ok<ThreadAnswer>(first);
    const again = await post(
      offline,
      fresh,
      '/marketing/drafts/x-thread',
      { topic: 'Audit readiness' },
      { headers },
    );
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await ok<ThreadAnswer>(again)).toEqual(one);
    expect(await groupCount(offline, fresh)).toBe(1);
    // The key with another body: refused before any run.
    const reused = await post(offline, fresh, '/marketing/drafts/x-thread', { topic: 'Other' }, { headers });
    expect((await refused(reused, 422)).code).toBe('idempotency_key_reused');
    const runs = await offline.request('GET', `/v1/orgs/${fresh.orgId}/agent-runs`, {
      token: fresh.tokens.owner,
    });
    expect((await ok<{ items: unknown[] }>(runs)).items).toHaveLength(1);
  });

  test('an assistant with posts:write drafts a thread and rewrites it by tool; the text endpoints are no tools', async () => {
    const fresh = await createTestWorkspace(offline);
    const assistant = await connectAssistant(offline, {
      userId: fresh.userIds.editor,
      orgId: fresh.orgId,
      scopes: ['posts:write'],
    });
    const names = (await assistant.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['create_x_thread', 'rewrite_post']));
    expect(names).not.toContain('generateText');
    expect(names).not.toContain('summarizeText');

    const created = (await assistant.client.callTool({
      name: 'create_x_thread',
      arguments: { topic: 'Month-end close checklists', parts: 3 },
    })) as CallToolResult;
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const thread = created.structuredContent as unknown as ThreadAnswer;
    expect(thread.group.status).toBe('pending_approval');
    expect(thread.posts[0]!.platformPayload?.thread).toHaveLength(2);

    const rewritten = (await assistant.client.callTool({
      name: 'rewrite_post',
      arguments: { postId: thread.posts[0]!.id, guidance: 'shorter' },
    })) as CallToolResult;
    expect(rewritten.isError, JSON.stringify(rewritten.content)).toBeFalsy();
    expect((rewritten.structuredContent as unknown as RewriteAnswer).post.status).toBe('pending_approval');

    const readOnly = await connectAssistant(offline, {
      userId: fresh.userIds.editor,
      orgId: fresh.orgId,
      scopes: ['mcp:read'],
    });
    const readNames = (await readOnly.client.listTools()).tools.map((t) => t.name);
    expect(readNames).not.toContain('create_x_thread');
    expect(readNames).not.toContain('rewrite_post');
    await Promise.all([assistant.client.close(), readOnly.client.close()]);
  });
});

describe('with a model: prompts, credits and failures', () => {
  const secret = 'SECRET-SERIES-B-CLOSES-IN-MARCH';
  const voice = 'VOICE-DRY-AND-PRECISE';
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await createTestWorkspace(withModel, 'Ledgerly');
    const res = await withModel.request('PATCH', `/v1/orgs/${ws.orgId}/brand/profile`, {
      token: ws.tokens.owner,
      body: {
        voice: {
          tone: voice,
          personalityTraits: ['calm'],
          writingGuidelines: ['Short paragraphs'],
          bannedPhrases: [],
        },
        knowledgeItems: [
          { kind: 'fact', text: `Our ${secret}`, disclosure: 'private' },
          { kind: 'fact', text: 'PUBLIC-FACT-NETSUITE-XERO', disclosure: 'public' },
        ],
      },
    });
    expect(res.status).toBe(200);
  });

  /** The prompts sent while `run` ran; none carries the private knowledge item. */
  async function promptsOf<T>(run: () => Promise<T>): Promise<{ value: T; prompts: string[] }> {
    const from = model.requests.length;
    const value = await run();
    const prompts = model.prompts().slice(from);
    for (const prompt of prompts) expect(prompt).not.toContain(secret);
    return { value, prompts };
  }

  test('generate: the prompt carries the brand voice, public facts and the request; charged once', async () => {
    const before = await balance(ws.orgId);
    const { value, prompts } = await promptsOf(async () =>
      ok<TextAnswer>(
        await post(withModel, ws, '/ai/content/generate', { prompt: 'Write about PROMPT-MARKER-42' }),
      ),
    );
    expect(value).toEqual({
      result: 'MODEL-GENERATED: a short post in the brand voice.',
      creditsUsed: textCost,
      remainingCredits: before - textCost,
    });
    expect(await balance(ws.orgId)).toBe(before - textCost);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain(voice);
    expect(prompts[0]).toContain('PUBLIC-FACT-NETSUITE-XERO');
    expect(prompts[0]).toContain('PROMPT-MARKER-42');
  });

  test('summarize: the prompt is the text and nothing of the workspace; charged once', async () => {
    const before = await balance(ws.orgId);
    const { value, prompts } = await promptsOf(async () =>
      ok<TextAnswer>(
        await post(withModel, ws, '/ai/summarize', { text: 'TEXT-MARKER-7 is long. It goes on.' }),
      ),
    );
    expect(value).toEqual({
      result: 'MODEL-SUMMARY of the text.',
      creditsUsed: textCost,
      remainingCredits: before - textCost,
    });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('TEXT-MARKER-7 is long. It goes on.');
    expect(prompts[0]).not.toContain(voice);
  });

  test('rewrite_post: the prompt carries the voice, guidance and text; the approval is withdrawn; charged once', async () => {
    const approved = await approvedXPost(withModel, ws, 'POST-MARKER-9: we close in three days!');
    const before = await balance(ws.orgId);
    const { value, prompts } = await promptsOf(async () =>
      ok<RewriteAnswer>(
        await post(withModel, ws, `/marketing/posts/${approved.id}/rewrite`, {
          guidance: 'GUIDANCE-MARKER plainer',
        }),
      ),
    );
    expect(value).toMatchObject({
      providerModel: 'openai-compatible:gpt-4o-mini',
      creditsUsed: draftCost,
      remainingCredits: before - draftCost,
      post: { id: approved.id, status: 'pending_approval', contentText: modelRewrite },
    });
    expect(prompts).toHaveLength(1);
    for (const marker of [voice, 'GUIDANCE-MARKER plainer', 'POST-MARKER-9', 'at most 280'])
      expect(prompts[0]).toContain(marker);
    expect(await balance(ws.orgId)).toBe(before - draftCost);
  });

  test('rewrite_post: an answer over the platform limit is asked again, and the run is charged once', async () => {
    const approved = await approvedXPost(withModel, ws, 'Short post to rewrite.');
    const before = await balance(ws.orgId);
    const { value, prompts } = await promptsOf(async () =>
      ok<RewriteAnswer>(
        await post(withModel, ws, `/marketing/posts/${approved.id}/rewrite`, {
          guidance: 'scenario:too-long-once',
        }),
      ),
    );
    expect(prompts).toHaveLength(2);
    expect(value.post.contentText).toBe(modelRewrite);
    expect(value.creditsUsed).toBe(draftCost);
    expect(await balance(ws.orgId)).toBe(before - draftCost);
  });

  test('create_x_thread: grounded prompt; the thread is a draft in review; charged once', async () => {
    // An active thought grounds the thread (the writing context reads the thoughts read model).
    await ok(await post(withModel, ws, '/thoughts', { text: 'THOUGHT-MARKER-3: reconcile daily' }), 201);
    const before = await balance(ws.orgId);
    const { value, prompts } = await promptsOf(async () =>
      ok<ThreadAnswer>(
        await post(withModel, ws, '/marketing/drafts/x-thread', {
          topic: 'TOPIC-MARKER-5 close',
          guidance: 'practical',
        }),
      ),
    );
    expect(value.group.status).toBe('pending_approval');
    expect(value.posts[0]).toMatchObject({
      platform: 'x',
      status: 'pending_approval',
      contentText: modelThread[0],
      platformPayload: { thread: modelThread.slice(1) },
    });
    expect(value).toMatchObject({ creditsUsed: draftCost, remainingCredits: before - draftCost });
    expect(prompts).toHaveLength(1);
    for (const marker of [
      voice,
      'PUBLIC-FACT-NETSUITE-XERO',
      'TOPIC-MARKER-5 close',
      'Guidance: practical',
      'THOUGHT-MARKER-3',
    ])
      expect(prompts[0]).toContain(marker);
  });

  test('a provider failure answers 503 and leaves nothing changed and nothing charged', async () => {
    const approved = await approvedXPost(withModel, ws, 'Stays as it is.');
    const groups = await groupCount(withModel, ws);
    const before = await balance(ws.orgId);
    const calls = model.requests.length;

    const generate = await post(withModel, ws, '/ai/content/generate', { prompt: 'scenario:down' });
    expect((await refused(generate, 503)).code).toBe('ai_provider_unavailable');
    const rewrite = await post(withModel, ws, `/marketing/posts/${approved.id}/rewrite`, {
      guidance: 'scenario:down',
    });
    expect((await refused(rewrite, 503)).code).toBe('ai_provider_unavailable');
    const thread = await post(withModel, ws, '/marketing/drafts/x-thread', { topic: 'scenario:down' });
    expect((await refused(thread, 503)).code).toBe('ai_provider_unavailable');

    expect(model.requests.length).toBeGreaterThan(calls); // the provider was asked, and failed
    expect(await balance(ws.orgId)).toBe(before);
    expect(await getPost(withModel, ws, approved.id, approved.groupId)).toMatchObject({
      status: 'approved',
      contentText: 'Stays as it is.',
    });
    expect(await groupCount(withModel, ws)).toBe(groups);
  });
});
