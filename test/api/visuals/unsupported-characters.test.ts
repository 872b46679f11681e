// Text the visuals cannot draw (CJK, Hebrew…, an emoji Twemoji lacks) through the whole service: the image,
// carousel and screenshot endpoints, the preview and the assistant tools refuse it with 422
// `unsupported_characters`, one error per field, naming at most five of the characters and the supported
// scripts; nothing is stored, no event appended. Emoji Twemoji draws are accepted.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { dataOf, errorOf, mediaList } from './support.js';

let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService();
  ws = await createTestWorkspace(service, 'Visuals characters');
}, 120_000);
afterAll(async () => service?.stop());

async function refused(path: string, body: unknown) {
  const error = await errorOf(
    await service.request('POST', `${ws.base}${path}`, { token: ws.tokens.editor, body }),
    422,
  );
  expect(error.code, JSON.stringify(error)).toBe('unsupported_characters');
  return error;
}

describe('unsupported characters', () => {
  test('CJK in a title and in a carousel slide body: 422 per field, nothing stored', async () => {
    const before = await eventCount(service);
    const listed = (await mediaList(service, ws)).total;

    const image = await refused('/visuals/image', {
      content: { title: '新品発売 launch', body: 'All Latin here 🚀' },
      format: 'square',
    });
    expect(image.details).toEqual([{ path: 'body.content.title', message: expect.any(String) }]);
    const message = image.details![0]!.message;
    for (const char of ['新', '品', '発', '売']) expect(message).toContain(char);
    expect(message).toMatch(/Latin, Greek, Cyrillic and Vietnamese letters, and emoji/);
    expect(image.error).toMatch(/body\.content\.title/);

    // An AI background is asked for too: the text is refused before the provider or credits are involved.
    await refused('/visuals/image', {
      content: { title: '日本語のタイトル' },
      aiBackground: { prompt: 'a calm sea' },
    });

    const carousel = await refused('/visuals/carousel', {
      slides: [
        { title: 'Cover 🎉' },
        { title: 'Second', body: 'Plain words' },
        { title: 'Third', body: '这是一个很长的中文句子' },
        { title: 'שלום', bullets: ['ok', 'مرحبا'] },
      ],
    });
    expect(carousel.details!.map((d) => d.path).sort()).toEqual(
      ['body.slides.2.body', 'body.slides.3.bullets.1', 'body.slides.3.title'].sort(),
    );
    // At most five characters are named, the rest counted.
    const chinese = carousel.details!.find((d) => d.path === 'body.slides.2.body')!.message;
    expect(chinese.match(/"[^"]+"/g)).toHaveLength(5);
    expect(chinese).toMatch(/and \d+ more/);

    expect(await eventCount(service)).toBe(before);
    expect((await mediaList(service, ws)).total).toBe(listed);
  });

  test('an emoji Twemoji lacks is refused; emoji it draws are rendered', async () => {
    const error = await refused('/visuals/image', { content: { title: 'Brand new \u{1FAE9}' } });
    expect(error.details![0]!.message).toContain('\u{1FAE9}');

    const preview = await dataOf<{ image: string }>(
      await service.request('POST', `${ws.base}/visuals/preview`, {
        token: ws.tokens.editor,
        body: { kind: 'image', content: { content: { title: '🚀 Launch day ❤️ 🇺🇸 👨‍💻' } } },
      }),
    );
    expect(preview.image).toMatch(/^data:image\/png;base64,/);
  });

  test('the preview and the assistant tools refuse alike', async () => {
    const before = await eventCount(service);
    const preview = await refused('/visuals/preview', {
      kind: 'carousel',
      content: { slides: [{ title: 'One' }, { title: 'Two', body: '한국어 본문' }] },
    });
    expect(preview.details!.map((d) => d.path)).toEqual(['body.content.slides.1.body']);

    const writer = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const tool = (await writer.client.callTool({
      name: 'create_branded_image',
      arguments: { content: { title: 'Hello', eyebrow: '中文' } },
    })) as CallToolResult;
    expect(tool.isError).toBe(true);
    expect(tool.structuredContent).toMatchObject({ status: 422 });
    expect(JSON.stringify(tool.content)).toMatch(/content\.eyebrow/);
    expect(await eventCount(service)).toBe(before);
  });
});
