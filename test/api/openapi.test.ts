// The service's own OpenAPI document (every route actually mounted) is valid OpenAPI 3.1 and names the spec's paths;
// every operation has a stable operationId (the tool's name where the operation has a tool, camelCase otherwise) and
// declares its security; every declared operation (api/slices.ts's `operations`) is in it as declared; and a client
// generator (openapi-typescript) makes types from it that type-check.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { operations as declared } from '../../api/slices.js';
import { startTestService, type TestService } from '../support/runtime.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ background: false });
});
afterAll(async () => service.stop());

test('GET /v1/openapi.json is a valid OpenAPI 3.1 document of the mounted routes', async () => {
  const res = await service.request('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  const doc = (await res.json()) as {
    openapi: string;
    info: { version: string };
    paths: Record<string, Record<string, unknown>>;
  };
  const result = await new Validator().validate(doc);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(doc.openapi).toMatch(/^3\.1\./);
  expect(doc.info.version).toBe('1.0.0');
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining(['/v1/orgs', '/v1/users/me', '/v1/auth/token', '/healthz', '/readyz']),
  );
  expect(Object.keys(doc.paths['/v1/orgs']!)).toEqual(expect.arrayContaining(['get', 'post']));
  const docs = await service.request('GET', '/docs');
  expect(docs.status).toBe(200);
  // The reference page renders this very document (Swagger UI reads it in the browser).
  expect(await docs.text()).toContain('/docs/start.js');
  expect(await (await service.request('GET', '/docs/start.js')).text()).toContain('/v1/openapi.json');
});

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, unknown>;
}
type Document = { paths: Record<string, Record<string, Operation>> } & Record<string, unknown>;

async function document(): Promise<Document> {
  const res = await service.request('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
}

const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function operations(doc: Document): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => methods.has(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

/**
 * Endpoints the spec labels `Tool: <name>` (part 1, publishing; part 2 as built), as served: their operationId is the tool's name, so
 * an assistant-tool server and a client map one onto the other without a rule.
 */
const toolLabelled: Array<[string, string, string]> = [
  ['patch', '/v1/orgs/{orgId}/marketing/post-groups/{groupId}', 'update_post_group'],
  ['post', '/v1/orgs/{orgId}/marketing/post-groups/{groupId}/approve', 'approve_post_group'],
  ['post', '/v1/orgs/{orgId}/marketing/post-groups/{groupId}/reject', 'reject_post_group'],
  ['post', '/v1/orgs/{orgId}/marketing/post-groups/{groupId}/schedule', 'schedule_post_group'],
  ['post', '/v1/orgs/{orgId}/marketing/drafts', 'create_draft_post'],
  ['get', '/v1/orgs/{orgId}/marketing/posts', 'list_posts'],
  ['patch', '/v1/orgs/{orgId}/marketing/posts/{postId}', 'update_post'],
  ['post', '/v1/orgs/{orgId}/marketing/posts/{postId}/post-now', 'post_now'],
  ['get', '/v1/orgs/{orgId}/marketing/accounts', 'list_social_accounts'],
  ['get', '/v1/orgs/{orgId}/marketing/media', 'list_media'],
  ['post', '/v1/orgs/{orgId}/marketing/media/upload-url', 'create_media_upload'],
  ['post', '/v1/orgs/{orgId}/marketing/media/{assetId}/complete', 'complete_media_upload'],
  ['post', '/v1/orgs/{orgId}/marketing/media/import', 'import_media_from_url'],
  ['get', '/v1/orgs/{orgId}/brand/kit', 'get_brand_kit'],
  ['patch', '/v1/orgs/{orgId}/brand/kit', 'update_brand_kit'],
  ['get', '/v1/orgs/{orgId}/brand/kit/website', 'find_brand_kit_on_website'],
  ['post', '/v1/orgs/{orgId}/marketing/visuals/image', 'create_branded_image'],
  ['post', '/v1/orgs/{orgId}/marketing/visuals/carousel', 'create_carousel'],
  ['post', '/v1/orgs/{orgId}/marketing/visuals/screenshot', 'create_app_screenshot'],
  ['get', '/v1/orgs/{orgId}/marketing/visuals/options', 'list_visual_options'],
  ['post', '/v1/orgs/{orgId}/marketing/x-posts/delete', 'delete_x_post'],
  ['post', '/v1/orgs/{orgId}/marketing/x-posts/read', 'get_x_post'],
  ['post', '/v1/orgs/{orgId}/marketing/x-posts/thread', 'get_x_thread'],
  ['get', '/v1/orgs/{orgId}/marketing/analytics/x-account', 'get_x_account_analytics'],
  // Part 2.
  ['get', '/v1/orgs/{orgId}/strategy', 'get_strategy'],
  ['get', '/v1/orgs/{orgId}/thoughts', 'list_thoughts'],
  ['post', '/v1/orgs/{orgId}/thoughts', 'save_thought'],
  ['patch', '/v1/orgs/{orgId}/thoughts/{thoughtId}', 'update_thought'],
  ['post', '/v1/orgs/{orgId}/thoughts/{thoughtId}/drafts', 'draft_post_from_thought'],
  // Tools whose paths the spec does not show (issue 29; docs/decisions.md says where they are).
  ['post', '/v1/orgs/{orgId}/marketing/posts/{postId}/rewrite', 'rewrite_post'],
  ['post', '/v1/orgs/{orgId}/marketing/drafts/x-thread', 'create_x_thread'],
  ['get', '/v1/orgs/{orgId}/launch-kits', 'list_launch_kits'],
  ['post', '/v1/orgs/{orgId}/launch-kits', 'create_launch_kit'],
  ['get', '/v1/orgs/{orgId}/launch-kits/{kitId}', 'get_launch_kit'],
  ['patch', '/v1/orgs/{orgId}/launch-kits/{kitId}', 'update_launch_step'],
  ['get', '/v1/orgs/{orgId}/engagement/settings', 'get_engagement_settings'],
  ['get', '/v1/orgs/{orgId}/dms', 'list_dm_conversations'],
  ['post', '/v1/orgs/{orgId}/dms', 'add_dm_conversation'],
  ['patch', '/v1/orgs/{orgId}/dms/{conversationId}', 'update_dm_conversation'],
  ['post', '/v1/orgs/{orgId}/dms/{conversationId}/draft', 'draft_dm'],
  ['get', '/v1/orgs/{orgId}/engagement', 'list_reply_inbox'],
  ['patch', '/v1/orgs/{orgId}/engagement/{itemId}', 'update_reply_draft'],
  ['post', '/v1/orgs/{orgId}/engagement/{itemId}/draft', 'draft_reply'],
  ['post', '/v1/orgs/{orgId}/engagement/{itemId}/send', 'send_reply'],
  ['post', '/v1/orgs/{orgId}/engagement/reddit-suggestions', 'suggest_reddit_listening'],
  ['post', '/v1/orgs/{orgId}/engagement/refresh', 'refresh_reply_inbox'],
  // The research tools (issue 31, part 3; docs/decisions.md, "Research tools (issue 31)").
  ['get', '/v1/orgs/{orgId}/inspiration/trends', 'get_trending_topics'],
  ['post', '/v1/orgs/{orgId}/inspiration/trends/search', 'find_trending_topics'],
  ['get', '/v1/orgs/{orgId}/inspiration/news', 'get_niche_news'],
  ['get', '/v1/orgs/{orgId}/inspiration/formats', 'list_viral_post_formats'],
  ['get', '/v1/orgs/{orgId}/inspiration/algorithm-hints', 'get_platform_algorithm_hints'],
  ['post', '/v1/orgs/{orgId}/inspiration/x-accounts', 'suggest_x_accounts'],
  ['get', '/v1/orgs/{orgId}/inspiration/newsjacking-settings', 'get_newsjacking_settings'],
  ['patch', '/v1/orgs/{orgId}/inspiration/newsjacking-settings', 'update_newsjacking_settings'],
  // Issue 31 (docs/decisions.md, "Inspiration library (issue 31)").
  ['get', '/v1/orgs/{orgId}/inspiration/opportunities', 'list_inspiration_opportunities'],
];

test('every operation has a unique operationId: its tool name where it has a tool, camelCase otherwise', async () => {
  const doc = await document();
  const all = operations(doc);
  expect(all.length).toBeGreaterThan(50);
  const tools = new Set(declared.filter((op) => op.tool).map((op) => op.name));
  const ids = all.map(({ method, path, operation }) => {
    const id = operation.operationId ?? '';
    expect(id, `${method} ${path}`).toMatch(
      tools.has(id) ? /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/ : /^[a-z][a-zA-Z0-9]*$/,
    );
    return id;
  });
  expect(new Set(ids).size).toBe(ids.length);

  // Every declared operation is served where it says, under its name, behind the bearer scheme.
  expect(declared.length).toBeGreaterThan(80);
  for (const op of declared) {
    const served = doc.paths[op.path]?.[op.method];
    expect(served?.operationId, `${op.method} ${op.path}`).toBe(op.name);
    expect(served?.security, op.name).toEqual([{ bearerAuth: [] }]);
  }
  for (const [method, path, tool] of toolLabelled) {
    expect(doc.paths[path]?.[method]?.operationId, `${method} ${path} (Tool: ${tool})`).toBe(tool);
    expect(tools.has(tool), `${tool} is an operation's tool`).toBe(true);
  }
  // The per-platform OAuth operations, and a few by verb and noun.
  expect(doc.paths['/v1/marketing/oauth/linkedin-pages/callback']?.get?.operationId).toBe(
    'completeLinkedinPagesOAuth',
  );
  expect(doc.paths['/v1/marketing/oauth/x/begin']?.get?.operationId).toBe('beginXOAuth');
  expect(doc.paths['/v1/orgs']?.post?.operationId).toBe('createWorkspace');
  expect(doc.paths['/v1/orgs/{orgId}/marketing/accounts/{platform}/oauth/start']?.post?.operationId).toBe(
    'startOAuth',
  );
});

test('every operation declares its security: the bearer scheme, or none ([]) for the public ones', async () => {
  const doc = await document();
  const isPublic = (path: string) =>
    ['/healthz', '/readyz', '/v1/openapi.json', '/docs', '/.well-known/jwks.json'].includes(path) ||
    path.startsWith('/v1/marketing/oauth/') ||
    // Notion's OAuth callback (the context library, issue 31): the state names the starter.
    path === '/v1/context/oauth/notion/callback' ||
    // Payment providers sign their webhooks instead (api/billing/webhook-routes.ts); the sandbox provider's
    // invoice and payment pages carry an HMAC token in their link (api/billing/sandbox-routes.ts).
    path === '/v1/billing/webhooks/{provider}' ||
    path.startsWith('/v1/billing/sandbox/');
  for (const { method, path, operation } of operations(doc)) {
    expect(operation.security, `${method} ${path}`).toEqual(isPublic(path) ? [] : [{ bearerAuth: [] }]);
  }
  expect(doc.security).toBeUndefined();
});

test('openapi-typescript generates client types from the document that type-check', async () => {
  const doc = await document();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-openapi-ts-'));
  try {
    await writeFile(
      path.join(dir, 'api.ts'),
      astToString(await openapiTS(doc as unknown as OpenAPI3, { silent: true })),
    );
    // A tiny client of the generated types: an operation by its id, the same by its path, a callback answer.
    await writeFile(
      path.join(dir, 'client.ts'),
      `import type { components, operations, paths } from './api.js';
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type ListPosts = operations['list_posts'];
export const query: NonNullable<ListPosts['parameters']['query']> = { limit: 25, sortBy: 'createdAt' };
export const hasMore: Json<ListPosts['responses'][200]>['data']['hasMore'] = false;
export const samePath: paths['/v1/orgs/{orgId}/marketing/posts']['get'] = {} as ListPosts;
type Callback = Json<operations['completeXOAuth']['responses'][200]>['data'];
export const refused: Callback = {
  status: 'error', platform: 'x', error: 'invalid_state', errorDescription: 'gone', redirectUri: null,
};
export const problem: components['schemas']['Error'] = { error: 'Invalid request' };
`,
    );
    // And one that must not type-check, so a vacuous pass (everything \`any\`) cannot hide.
    await writeFile(
      path.join(dir, 'wrong.ts'),
      `import type { operations } from './api.js';
export const wrong: operations['post_now']['parameters']['path'] = { postId: 42 };
`,
    );
    // One program for both files (the generated file is checked once); each file's own diagnostics.
    const program = ts.createProgram(
      ['client.ts', 'wrong.ts'].map((file) => path.join(dir, file)),
      {
        strict: true,
        noEmit: true,
        noUncheckedIndexedAccess: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts'],
        types: [],
      },
    );
    const check = (file: string) =>
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(path.join(dir, file)))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(check('api.ts')).toEqual([]);
    expect(check('client.ts')).toEqual([]);
    expect(check('wrong.ts')).toEqual([
      expect.stringContaining("Type 'number' is not assignable to type 'string'"),
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('every authenticated operation declares 429, and every workspace write 402 (read-only or unpaid workspace)', async () => {
  const doc = await document();
  for (const { method, path, operation } of operations(doc)) {
    const responses = (operation as { responses: Record<string, unknown> }).responses;
    const bearer = JSON.stringify(operation.security) === JSON.stringify([{ bearerAuth: [] }]);
    expect('429' in responses, `${method} ${path} 429`).toBe(bearer);
    if (bearer && method !== 'get' && path.startsWith('/v1/orgs/{orgId}'))
      expect('402' in responses, `${method} ${path} 402`).toBe(true);
  }
});
