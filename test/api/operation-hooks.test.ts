// Two options of operation declarations (api/shared/operation.ts), shown on a probe slice that lives only in this
// test: a list query (defineListQuery) as an operation's query, which REST validates and parses and the tool takes
// as its whole input; and `runJson`, a read's REST answer written as JSON text, while its tool still calls `run`.
import { z } from '@hono/zod-openapi';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { defineListQuery } from '../../api/platform/paging.js';
import { slices } from '../../api/slices.js';
import { operationGroup, operationsWith } from '../../api/shared/operation.js';
import { toolInputOf } from '../../api/shared/operation-adapters.js';
import { orgParams } from '../../api/shared/params.js';
import type { Slice } from '../../api/shared/slice.js';
import { asJsonText } from '../../domain/shared/json-text.js';
import { connectAssistant, type TestAssistant } from '../support/assistant.js';
import { startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

const probeQuery = defineListQuery({
  filters: { name: ['eq', 'contains'] },
  sortBy: ['name'],
  defaultLimit: 2,
  maxLimit: 5,
});

const operation = operationsWith<null>();
const probe = operation({
  name: 'probe_list',
  kind: 'read',
  method: 'get',
  path: '/v1/orgs/{orgId}/probe',
  tags: ['test'],
  summary: 'A probe',
  params: orgParams,
  query: probeQuery.schema,
  output: z.object({
    via: z.string(),
    limit: z.number(),
    sortBy: z.string().nullable(),
    filters: z.number(),
  }),
  outputDescription: 'What the probe saw',
  errors: [400, 401, 403],
  access: { permission: 'posts:read', scope: 'mcp:read' },
  tool: { title: 'Probe', description: 'A probe', summary: (seen) => `via ${seen.via}` },
  run: (_deps, _call, query) =>
    Promise.resolve({
      via: 'run',
      limit: query.limit,
      sortBy: query.sortBy ?? null,
      filters: query.filters.length,
    }),
  runJson: (_deps, _call, query) =>
    Promise.resolve(
      asJsonText(
        JSON.stringify({
          data: {
            via: 'runJson',
            limit: query.limit,
            sortBy: query.sortBy ?? null,
            filters: query.filters.length,
          },
        }),
      ),
    ),
});
const probeSlice: Slice = { name: 'probe', operations: [operationGroup(() => null, [probe])] };

let service: TestService;
let ws: TestWorkspace;
let assistant: TestAssistant;
beforeAll(async () => {
  service = await startTestService({ slices: [...slices, probeSlice] });
  ws = await createTestWorkspace(service);
  assistant = await connectAssistant(service, {
    userId: ws.userIds.viewer,
    orgId: ws.orgId,
    scopes: ['mcp:read'],
  });
});
afterAll(async () => service.stop());

const get = (query: string) =>
  service.request('GET', `/v1/orgs/${ws.orgId}/probe?${query}`, { token: ws.tokens.viewer });

test('REST parses the list query and answers with the JSON runJson wrote', async () => {
  const res = await get('limit=3&sortBy=name&filter[name]=a');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await res.json()).toEqual({ data: { via: 'runJson', limit: 3, sortBy: 'name', filters: 1 } });
  expect(await (await get('')).json()).toEqual({
    data: { via: 'runJson', limit: 2, sortBy: null, filters: 0 },
  });
});

test('REST refuses what the list query refuses (400), before running anything', async () => {
  expect((await get('limit=6')).status).toBe(400);
  expect((await get('unknown=1')).status).toBe(400);
  expect((await get('filter[other]=x')).status).toBe(400);
});

test('the tool takes the list query as its input and calls run', async () => {
  expect(toolInputOf(probe)).toBe(probeQuery.schema);
  const result = (await assistant.client.callTool({
    name: 'probe_list',
    arguments: { limit: 4, sortBy: 'name' },
  })) as CallToolResult;
  expect(result.isError ?? false).toBe(false);
  expect(result.structuredContent).toEqual({ via: 'run', limit: 4, sortBy: 'name', filters: 0 });
  const refused = (await assistant.client.callTool({
    name: 'probe_list',
    arguments: { limit: 9 },
  })) as CallToolResult;
  expect(refused.isError).toBe(true);
});

test('a list query cannot go beside other tool arguments', () => {
  const withPath: typeof probe = {
    ...probe,
    path: '/v1/orgs/{orgId}/probe/{probeId}',
    params: orgParams.extend({ probeId: z.uuid() }),
  };
  expect(() => toolInputOf(withPath)).toThrow(/needs its own input/);
});
