// The model port on the AI SDK against a locally served OpenAI-compatible endpoint and an Anthropic-shaped one:
// a structured output with its token usage, and each failure classified (refusal, timeout, 429 with Retry-After,
// malformed JSON, output off the schema, bad credentials, an unreachable provider).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAiSdkModel, retryAfterMsOf } from '../../../infra/ai/ai-sdk-model.js';
import { ModelError, type LanguageModelPort } from '../../../infra/ai/port.js';
import { startModelServer, type ModelServer } from '../../support/model-server.js';
import { testJob, validPost } from '../../support/ai-jobs.js';

let server: ModelServer;
let compatible: LanguageModelPort;
let openai: LanguageModelPort;
let anthropic: LanguageModelPort;

beforeAll(async () => {
  server = await startModelServer();
  server.scenarios.set('ok', () => ({ content: validPost('ports'), usage: { input: 321, output: 54 } }));
  server.scenarios.set('refusal', () => ({ refusal: "I can't help with that." }));
  server.scenarios.set('slow', () => ({ delayMs: 3000, then: { content: validPost() } }));
  server.scenarios.set('busy', () => ({ status: 429, headers: { 'retry-after': '7' } }));
  server.scenarios.set('malformed', () => ({ content: '{"headline": "cut off' }));
  server.scenarios.set('off-schema', () => ({ content: JSON.stringify({ headline: 42 }) }));
  server.scenarios.set('denied', () => ({ status: 401, body: { error: { message: 'bad key' } } }));
  server.scenarios.set('broken', () => ({ status: 500 }));
  const common = { model: 'gpt-4o-mini', apiKey: 'sk-local', timeoutMs: 1000 };
  compatible = createAiSdkModel({ ...common, provider: 'openai-compatible', baseUrl: server.baseUrl });
  openai = createAiSdkModel({ ...common, provider: 'openai', baseUrl: server.baseUrl });
  anthropic = createAiSdkModel({
    ...common,
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    baseUrl: server.baseUrl,
  });
});
afterAll(async () => server.close());

const ask = (model: LanguageModelPort, scenario: string) =>
  model.generate({
    ...testJob.prompt({ topic: 'ports', scenario }),
    schema: testJob.output,
    schemaName: 'post',
  });

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe('the model port', () => {
  test.each([
    ['openai-compatible', () => compatible],
    ['openai', () => openai],
    ['anthropic', () => anthropic],
  ])(
    '%s: a structured output with its token usage, the schema sent with the request',
    async (name, model) => {
      const before = server.requests.length;
      const answer = await ask(model(), 'ok');
      expect(answer.output).toEqual(JSON.parse(validPost('ports')));
      expect(answer.usage).toMatchObject({ inputTokens: 321, outputTokens: 54, totalTokens: 375 });
      const sent = server.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.text).toContain('Write a post about ports');
      const body = JSON.stringify(sent[0]!.body);
      expect(body).toContain('headline'); // the output schema goes with the request
      if (name === 'anthropic') {
        expect(sent[0]!.path).toBe('/v1/messages');
        expect(sent[0]!.headers['x-api-key']).toBe('sk-local');
      } else {
        expect(sent[0]!.path).toBe('/v1/chat/completions');
        expect(sent[0]!.headers.authorization).toBe('Bearer sk-local');
      }
    },
  );

  test('a refusal is `refused`, from OpenAI-shaped and Anthropic-shaped providers', async () => {
    expect((await failure(ask(compatible, 'refusal'))).reason).toBe('refused');
    expect((await failure(ask(anthropic, 'refusal'))).reason).toBe('refused');
  });

  test('Anthropic-shaped: a 429 with Retry-After and a timeout are classified alike', async () => {
    const busy = await failure(ask(anthropic, 'busy'));
    expect(busy.reason).toBe('rate_limited');
    expect(busy.details.retryAfterMs).toBe(7000);
    expect((await failure(ask(anthropic, 'slow'))).reason).toBe('timeout');
    expect((await failure(ask(anthropic, 'malformed'))).reason).toBe('malformed');
  });

  test('no answer within the timeout is `timeout`', async () => {
    const started = Date.now();
    expect((await failure(ask(compatible, 'slow'))).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  test('a 429 is `rate_limited` with its Retry-After', async () => {
    const error = await failure(ask(compatible, 'busy'));
    expect(error.reason).toBe('rate_limited');
    expect(error.details.retryAfterMs).toBe(7000);
  });

  test('malformed JSON and output off the schema are `malformed`, with the tokens spent', async () => {
    for (const scenario of ['malformed', 'off-schema']) {
      const error = await failure(ask(compatible, scenario));
      expect(error.reason).toBe('malformed');
      expect(error.details.usage?.totalTokens).toBeGreaterThan(0);
    }
  });

  test('refused credentials, a failing and an unreachable provider are `unavailable`; the key is never in the message', async () => {
    for (const scenario of ['denied', 'broken']) {
      const error = await failure(ask(compatible, scenario));
      expect(error.reason).toBe('unavailable');
      expect(error.message).not.toContain('sk-local');
    }
    const nowhere = createAiSdkModel({
      provider: 'openai-compatible',
      model: 'm',
      baseUrl: 'http://127.0.0.1:9/v1',
      timeoutMs: 1000,
    });
    expect((await failure(ask(nowhere, 'ok'))).reason).toBe('unavailable');
  });

  test('Retry-After in seconds, as a date, or retry-after-ms', () => {
    expect(retryAfterMsOf({ 'Retry-After': '3' })).toBe(3000);
    expect(retryAfterMsOf({ 'retry-after-ms': '250' })).toBe(250);
    expect(retryAfterMsOf({ 'retry-after': new Date(10_000).toUTCString() }, 4000)).toBe(6000);
    expect(retryAfterMsOf({ 'retry-after': 'soon' })).toBeNull();
    expect(retryAfterMsOf({})).toBeNull();
  });

  test('the estimated cost follows the model list price', () => {
    expect(
      compatible.costMilliUsd({
        inputTokens: 1_000_000,
        outputTokens: 0,
        reasoningTokens: 0,
        totalTokens: 0,
      }),
    ).toBe(150);
  });
});
