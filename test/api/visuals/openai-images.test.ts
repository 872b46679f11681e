// The OpenAI-compatible image-generation adapter against a local server answering the documented shapes:
// `POST /images/generations` → `{ created, data: [{ b64_json }] }`, errors as `{ error: { message, type, code } }`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createOpenAiImagesProvider, nearestSize } from '../../../infra/image-generation/openai-images.js';
import { ImageGenerationError } from '../../../infra/image-generation/port.js';
import { imageGenerationFromEnv } from '../../../infra/image-generation/from-env.js';
import { loadEnv } from '../../../api/env.js';

function png(width: number, height: number): Buffer {
  const image = new PNG({ width, height });
  image.data.fill(200);
  return PNG.sync.write(image);
}

interface Seen {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

let server: http.Server;
let baseUrl: string;
let seen: Seen[] = [];
let answer: (req: Seen) => { status: number; body: unknown; delayMs?: number };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const entry: Seen = {
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body: JSON.parse(raw || '{}') as Record<string, unknown>,
      };
      seen.push(entry);
      const { status, body, delayMs } = answer(entry);
      setTimeout(() => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      }, delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
});

const ok = (image: Buffer) => () => ({
  status: 200,
  body: { created: 1_700_000_000, data: [{ b64_json: image.toString('base64'), revised_prompt: 'x' }] },
});

describe('generate', () => {
  test('posts the model, prompt, nearest size and n to /images/generations with the key, and decodes the PNG', async () => {
    answer = ok(png(1536, 1024));
    const provider = createOpenAiImagesProvider({ baseUrl: `${baseUrl}/`, apiKey: 'sk-test' });
    const image = await provider.generate({
      prompt: 'calm sea',
      model: 'gpt-image-1',
      width: 1600,
      height: 900,
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe('/v1/images/generations');
    expect(seen[0]!.authorization).toBe('Bearer sk-test');
    // gpt-image models always answer base64 and refuse response_format.
    expect(seen[0]!.body).toEqual({
      model: 'gpt-image-1',
      prompt: 'calm sea',
      size: '1536x1024',
      n: 1,
      quality: 'medium',
    });
    expect(image).toMatchObject({
      contentType: 'image/png',
      width: 1536,
      height: 1024,
      model: 'gpt-image-1',
      estimatedCostMilliUsd: 63,
    });
    expect(Buffer.from(image.data).subarray(1, 4).toString()).toBe('PNG');
  });

  test('dall-e models are asked for b64_json; a compatible provider’s own model is used at 1024×1024', async () => {
    answer = ok(png(1024, 1792));
    const provider = createOpenAiImagesProvider({ baseUrl, apiKey: 'k', model: 'local-diffusion' });
    expect(provider.defaultModel).toBe('local-diffusion');
    expect(provider.models).toContain('local-diffusion');
    expect(provider.models).toContain('dall-e-3');
    await provider.generate({ prompt: 'p', model: 'dall-e-3', width: 1080, height: 1920 });
    expect(seen[0]!.body).toMatchObject({ size: '1024x1792', response_format: 'b64_json', n: 1 });
    answer = ok(png(1024, 1024));
    const own = await provider.generate({ prompt: 'p', model: 'local-diffusion', width: 1080, height: 1350 });
    expect(seen[1]!.body).toMatchObject({
      model: 'local-diffusion',
      size: '1024x1024',
      response_format: 'b64_json',
    });
    expect(own.estimatedCostMilliUsd).toBe(40);
  });

  const failures: Array<[string, number, unknown, ImageGenerationError['reason'], RegExp]> = [
    [
      'a content-policy refusal',
      400,
      {
        error: {
          message: 'Your request was rejected by the safety system.',
          type: 'invalid_request_error',
          code: 'content_policy_violation',
        },
      },
      'refused',
      /refused the prompt: Your request was rejected by the safety system/,
    ],
    [
      'a bad key',
      401,
      {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
      'unavailable',
      /credentials \(HTTP 401\)/,
    ],
    [
      'a rate limit',
      429,
      { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
      'busy',
      /rate-limiting/,
    ],
    [
      'no quota',
      429,
      {
        error: {
          message: 'You exceeded your current quota',
          type: 'insufficient_quota',
          code: 'insufficient_quota',
        },
      },
      'unavailable',
      /no quota left/,
    ],
    ['a server error without a body', 502, 'Bad gateway', 'failed', /failed \(HTTP 502\): HTTP 502/],
    ['an answer without an image', 200, { created: 1, data: [] }, 'failed', /without an image/],
    [
      'an answer that is not an image',
      200,
      { created: 1, data: [{ b64_json: Buffer.from('GIF89a....').toString('base64') }] },
      'failed',
      /other than a PNG or JPEG/,
    ],
  ];
  test.each(failures)(
    '%s is an ImageGenerationError with its reason and the provider’s words',
    async (_what, status, body, reason, message) => {
      answer = () => ({ status, body });
      const provider = createOpenAiImagesProvider({ baseUrl, apiKey: 'sk-secret-key' });
      const error = await provider
        .generate({ prompt: 'p', model: 'gpt-image-1', width: 1080, height: 1080 })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(ImageGenerationError);
      expect((error as ImageGenerationError).reason).toBe(reason);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('sk-secret-key');
    },
  );

  test('a provider slower than the timeout fails with a clear message', async () => {
    answer = () => ({ status: 200, body: { data: [] }, delayMs: 1_000 });
    const provider = createOpenAiImagesProvider({ baseUrl, apiKey: 'k', timeoutMs: 100 });
    await expect(
      provider.generate({ prompt: 'p', model: 'gpt-image-1', width: 1, height: 1 }),
    ).rejects.toThrow(/did not answer within 0.1 s/);
  });

  test('an unreachable provider fails', async () => {
    const provider = createOpenAiImagesProvider({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' });
    const error = await provider
      .generate({ prompt: 'p', model: 'gpt-image-1', width: 1, height: 1 })
      .catch((e: unknown) => e);
    expect((error as ImageGenerationError).reason).toBe('failed');
    expect((error as Error).message).toMatch(/could not be reached/);
  });
});

test('nearestSize picks the supported size closest in aspect ratio', () => {
  const sizes = ['1024x1024', '1536x1024', '1024x1536'];
  expect(nearestSize(sizes, 1080, 1080)).toBe('1024x1024');
  expect(nearestSize(sizes, 1500, 500)).toBe('1536x1024');
  expect(nearestSize(sizes, 1080, 1350)).toBe('1024x1536');
  expect(nearestSize(sizes, 1000, 1500)).toBe('1024x1536');
});

describe('settings', () => {
  test('no URL and key: no provider; both: the adapter; one without the other stops the start', () => {
    expect(imageGenerationFromEnv(loadEnv({}))).toBeNull();
    const provider = imageGenerationFromEnv(
      loadEnv({
        IMAGE_GENERATION_URL: baseUrl,
        IMAGE_GENERATION_API_KEY: 'k',
        IMAGE_GENERATION_MODEL: 'dall-e-3',
      }),
    );
    expect(provider?.defaultModel).toBe('dall-e-3');
    expect(() => loadEnv({ IMAGE_GENERATION_URL: baseUrl })).toThrow(/IMAGE_GENERATION_API_KEY: is required/);
    expect(() => loadEnv({ IMAGE_GENERATION_API_KEY: 'k' })).toThrow(/IMAGE_GENERATION_URL: is required/);
    expect(() => loadEnv({ IMAGE_GENERATION_URL: 'not a url', IMAGE_GENERATION_API_KEY: 'k' })).toThrow(
      /IMAGE_GENERATION_URL/,
    );
  });
});
