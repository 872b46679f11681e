// Audit finding 13: an outbound fetch that fails once its link has passed the URL checks answers the same whatever
// the network said (a name behind a private address, a name that does not resolve, an error status), so the
// service is no oracle for internal DNS; what the link says by itself (a private address literal) stays a plain 400.
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSite, type LocalSite } from '../brand/support.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;
let site: LocalSite;
let ws: TestWorkspace;

const resolve = async (host: string): Promise<LookupAddress[]> => {
  if (host === 'internal.example') return [{ address: '10.1.2.3', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  site = await startSite();
  service = await startTestService({ outbound: { allowPrivate: [site.origin], resolve } });
  ws = await createTestWorkspace(service);
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await site?.close();
});

const failing = () => [
  'http://internal.example/a.png',
  'http://nowhere.example/a.png',
  `${site.origin}/missing.png`,
];

async function answerOf(res: Response) {
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('one answer for every failed fetch', () => {
  test('a visual background link', async () => {
    const before = await eventCount(service);
    const answers = [];
    for (const url of failing())
      answers.push(
        await answerOf(
          await service.request('POST', `${ws.base}/visuals/image`, {
            token: ws.tokens.editor,
            body: { content: { title: 'A' }, backgroundImage: { url } },
          }),
        ),
      );
    expect(answers[0]!.status).toBe(422);
    expect(answers[0]!.body.code).toBe('url_not_fetched');
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(JSON.stringify(answers[0])).not.toMatch(/private|ENOTFOUND|404|10\.1\.2\.3/);

    const literal = await service.request('POST', `${ws.base}/visuals/image`, {
      token: ws.tokens.editor,
      body: { content: { title: 'A' }, backgroundImage: { url: 'http://10.1.2.3/a.png' } },
    });
    expect(literal.status).toBe(400);
    expect(await eventCount(service)).toBe(before);
  });

  test('a media import link', async () => {
    const before = await eventCount(service);
    const answers = [];
    for (const url of [
      'https://internal.example/a.png',
      'https://nowhere.example/a.png',
      `${site.origin}/missing.png`,
    ])
      answers.push(
        await answerOf(
          await service.request('POST', `${ws.base}/media/import`, {
            token: ws.tokens.editor,
            body: { url },
          }),
        ),
      );
    expect(answers[0]!.status).toBe(400);
    expect(answers[0]!.body.code).toBe('fetch_failed');
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(JSON.stringify(answers[0])).not.toMatch(/private|ENOTFOUND|404|10\.1\.2\.3/);
    expect(await eventCount(service)).toBe(before);
  });
});
