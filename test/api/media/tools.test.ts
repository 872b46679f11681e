// The media tools on the routes' use cases: list_media (mcp:read), create_media_upload, complete_media_upload
// and import_media_from_url (posts:write); the write tools are absent without posts:write.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { sampleBombMp4 } from './mp4-bytes.js';
import { dataOf, fixture, pngOf, put, type Slot } from './support.js';

let service: TestService;
let ws: TestWorkspace;
let server: Server;
let origin = '';
const png = pngOf(16, 9);

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/banner.png')
      return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from(png));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service = await startTestService({ outbound: { allowPrivate: [origin] } });
  ws = await createTestWorkspace(service);
}, 60_000);
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await service?.stop();
});

const writeTools = ['create_media_upload', 'complete_media_upload', 'import_media_from_url'];

describe('media tools', () => {
  test('upload, complete, import and list through an assistant with posts:write', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const names = (await assistant.client.listTools()).tools.map((t) => t.name);
    for (const name of ['list_media', ...writeTools]) expect(names).toContain(name);

    const slotResult = (await assistant.client.callTool({
      name: 'create_media_upload',
      arguments: { kind: 'video', contentType: 'video/mp4' },
    })) as CallToolResult;
    expect(slotResult.isError).toBeFalsy();
    const slot = slotResult.structuredContent as unknown as Slot;
    expect(slot.key).toBe(`uploads/media/${ws.orgId}/${slot.assetId}.mp4`);
    await put(service, slot, fixture('clip.mp4'));

    const completed = (await assistant.client.callTool({
      name: 'complete_media_upload',
      arguments: { assetId: slot.assetId, key: slot.key, kind: 'video', contentType: 'video/mp4' },
    })) as CallToolResult;
    expect(completed.isError).toBeFalsy();
    expect((completed.structuredContent as { asset: unknown }).asset).toMatchObject({
      kind: 'video',
      assetId: slot.assetId,
      durationSeconds: 2.5,
      width: 320,
      height: 240,
    });

    const imported = (await assistant.client.callTool({
      name: 'import_media_from_url',
      arguments: { url: `${origin}/banner.png`, altText: 'Banner' },
    })) as CallToolResult;
    expect(imported.isError).toBeFalsy();
    const importedAsset = (imported.structuredContent as { asset: { assetId: string } }).asset;
    expect(importedAsset).toMatchObject({ kind: 'image', width: 16, height: 9, altText: 'Banner' });

    const listed = (await assistant.client.callTool({
      name: 'list_media',
      arguments: { collection: 'uploads' },
    })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    const viaRoute = await dataOf(
      await service.request('GET', `${ws.base}/media?collection=uploads`, { token: ws.tokens.viewer }),
    );
    expect(listed.structuredContent).toEqual(viaRoute);
    expect((listed.content[0] as { text: string }).text).toMatch(/2 of 2 media items/);
  });

  test('list_media with only mcp:read; the write tools are absent and refused without posts:write', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.viewer,
      orgId: ws.orgId,
      scopes: [],
    });
    const names = (await assistant.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_media');
    for (const name of writeTools) expect(names).not.toContain(name);
    const list = (await assistant.client.callTool({ name: 'list_media', arguments: {} })) as CallToolResult;
    expect(list.isError).toBeFalsy();
    const before = await eventCount(service);
    const refused = (await assistant.client.callTool({
      name: 'import_media_from_url',
      arguments: { url: `${origin}/banner.png` },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(await eventCount(service)).toBe(before);
  });

  test('a refused import is a tool error with the 400 and its reason', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const before = await eventCount(service);
    const result = (await assistant.client.callTool({
      name: 'import_media_from_url',
      arguments: { url: 'https://169.254.169.254/latest/meta-data/' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/400/);
    expect(JSON.stringify(result.content)).toMatch(/private address/);
    expect(await eventCount(service)).toBe(before);
  });

  test('complete_media_upload of a sample-table bomb MP4 is a tool error with the 422 and its code', async () => {
    const assistant = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const slot = (
      (await assistant.client.callTool({
        name: 'create_media_upload',
        arguments: { kind: 'video', contentType: 'video/mp4' },
      })) as CallToolResult
    ).structuredContent as unknown as Slot;
    await put(service, slot, sampleBombMp4());
    const before = await eventCount(service);
    const result = (await assistant.client.callTool({
      name: 'complete_media_upload',
      arguments: { assetId: slot.assetId, key: slot.key, kind: 'video', contentType: 'video/mp4' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/implausible_sample_table/);
    expect(await eventCount(service)).toBe(before);
  });
});
