// The suggest_slots tool (mcp:read) answers what GET …/scheduler/slots answers, on the same use case; bad input is
// a tool error carrying the 400; it schedules nothing.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { data } from '../post-groups/support.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service);
});
afterAll(async () => service.stop());

describe('suggest_slots', () => {
  test('lists for a connection with only mcp:read and answers as the route does, changing nothing', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: [],
    });
    const { tools } = await assistant.client.listTools();
    const tool = tools.find((t) => t.name === 'suggest_slots');
    expect(tool?.annotations?.readOnlyHint).toBe(true);
    expect(Object.keys(tool!.inputSchema.properties ?? {}).sort()).toEqual([
      'contentType',
      'count',
      'days',
      'platform',
    ]);

    const before = await eventCount(service);
    const result = (await assistant.client.callTool({
      name: 'suggest_slots',
      arguments: { platform: 'linkedin', count: 3 },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const viaRoute = await data<unknown>(
      await service.request('GET', `${ws.base}/scheduler/slots?platform=linkedin&count=3`, {
        token: ws.tokens.viewer,
      }),
    );
    expect(result.structuredContent).toEqual(viaRoute);
    expect((result.content[0] as { text: string }).text).toMatch(/3 slots in UTC \(basis: defaults/);
    expect(await eventCount(service)).toBe(before);
  });

  test('bad input is a tool error with the 400 and the field', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: [],
    });
    const result = (await assistant.client.callTool({
      name: 'suggest_slots',
      arguments: { platform: 'myspace', days: 0 },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/400/);
    expect(JSON.stringify(result.content)).toMatch(/platform/);
  });
});
