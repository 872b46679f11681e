// Secrets never reach the log: keys that name a secret are redacted at any depth and in any spelling
// (camelCase, snake_case, kebab-case, any case), and values that look like bearer tokens, JWTs or
// `access_token=…` pairs are redacted wherever they appear (messages, nested fields, errors, child bindings).
import { describe, expect, test } from 'vitest';
import { createLogger } from '../../infra/logging/logger.js';

const jwt =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1c2VyLTEiLCJleHAiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLXBhcnQtb2YtdGhlLWp3dA';
const opaque = 'ya29.a0AfH6SMBx-opaque-platform-token-value';

function capture() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  return {
    logger,
    text: () => lines.join(''),
    entries: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('logger redaction', () => {
  test('secret keys at any depth and in snake_case, kebab-case and other spellings', () => {
    const { logger, text, entries } = capture();
    logger.info(
      {
        postId: 'post-1',
        idempotencyKey: 'publish:post-1:1',
        tokenType: 'Bearer',
        deep: {
          platform: {
            response: {
              access_token: opaque,
              refresh_token: `${opaque}-refresh`,
              id_token: `${opaque}-id`,
              client_secret: `${opaque}-client-secret`,
              code_verifier: `${opaque}-verifier`,
              Authorization: `${opaque}-auth-header`,
              'x-api-key': `${opaque}-api-key`,
              PASSWORD: `${opaque}-password`,
              list: [{ accessToken: `${opaque}-in-array` }],
            },
          },
        },
      },
      'platform answered',
    );
    expect(text()).not.toContain(opaque);
    const entry = entries()[0]!;
    const response = (entry.deep as { platform: { response: Record<string, unknown> } }).platform.response;
    expect(response.access_token).toBe('[redacted]');
    expect(response.code_verifier).toBe('[redacted]');
    expect(response.list).toEqual([{ accessToken: '[redacted]' }]);
    // What is not a secret stays readable.
    expect(entry).toMatchObject({
      postId: 'post-1',
      idempotencyKey: 'publish:post-1:1',
      tokenType: 'Bearer',
    });
  });

  test('token-looking values: bearer headers, JWTs and key=value pairs, in fields and in the message', () => {
    const { logger, text, entries } = capture();
    logger.warn(
      {
        error: `HTTP 401 from https://api.example.com/me?access_token=${opaque}&fields=id`,
        body: `{"error":"invalid","refresh_token":"${opaque}"}`,
        header: `Bearer ${opaque}`,
        nested: { note: `the token was ${jwt}` },
      },
      `retrying with Bearer ${opaque} and ${jwt}`,
    );
    expect(text()).not.toContain(opaque);
    expect(text()).not.toContain(jwt.split('.')[1]!);
    const entry = entries()[0]!;
    expect(entry.error).toBe('HTTP 401 from https://api.example.com/me?access_token=[redacted]&fields=id');
    expect(entry.msg).toContain('Bearer [redacted]');
  });

  test('errors keep their type and stack, with secrets redacted from the message', () => {
    const { logger, text, entries } = capture();
    class PlatformError extends Error {
      readonly details = { access_token: opaque };
    }
    logger.error({ err: new PlatformError(`refused token ${jwt}`) }, 'failed');
    expect(text()).not.toContain(jwt.split('.')[1]!);
    expect(text()).not.toContain(opaque);
    const err = entries()[0]!.err as { type: string; message: string; stack: string };
    expect(err.type).toBe('PlatformError');
    expect(err.message).toMatch(/^refused token \[redacted/);
    expect(err.stack).toContain('logger.test.ts');
  });

  test('child bindings and interpolated arguments', () => {
    const { logger, text } = capture();
    logger.child({ session: { refresh_token: opaque } }).info('hello %s', `Bearer ${opaque}`);
    expect(text()).not.toContain(opaque);
  });

  test('cycles and deep objects do not break logging', () => {
    const { logger, entries } = capture();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { password: opaque };
    for (let i = 0; i < 40; i++) deep = { next: deep };
    logger.info({ cyclic, deep }, 'odd shapes');
    expect(JSON.stringify(entries()[0])).not.toContain(opaque);
  });
});
