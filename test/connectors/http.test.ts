// Platform error text reaches logs, API answers and a post's lastError through ConnectorError: it is capped,
// stripped of control characters and cleared of anything that looks like a token, whatever the platform sent.
import { describe, expect, test } from 'vitest';
import { platformCall } from '../../infra/connectors/http.js';
import { ConnectorError } from '../../infra/connectors/port.js';

const secret = 'EAAGm0PX4ZCpsBAKZCZBtoken-value-from-the-platform';
const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLWJ5dGVz';

async function failureFor(status: number, body: string, contentType: string): Promise<ConnectorError> {
  const fetch = (() =>
    Promise.resolve(
      new Response(body, { status, headers: { 'content-type': contentType } }),
    )) as typeof globalThis.fetch;
  try {
    await platformCall('facebook', { url: 'https://graph.example/me', effect: 'read' }, { fetch });
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectorError);
    return error as ConnectorError;
  }
  throw new Error('expected a ConnectorError');
}

describe('platform error text', () => {
  test('a JSON error field: capped, one line, tokens redacted', async () => {
    const description = `Invalid token access_token=${secret}\r\nsent as Bearer ${secret}\u001b[2J ${jwt} ${'x'.repeat(5000)}`;
    const error = await failureFor(
      400,
      JSON.stringify({ error_description: description }),
      'application/json',
    );
    expect(error.kind).toBe('permanent');
    expect(error.message.length).toBeLessThanOrEqual(500);
    expect(error.message).toMatch(
      /^facebook: Invalid token access_token=\[redacted\] sent as Bearer \[redacted\]/,
    );
    expect(error.message).toMatch(/\(HTTP 400\)$/);
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain(jwt);
    // eslint-disable-next-line no-control-regex
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  test('an HTML or text error page: capped and one line', async () => {
    const page = `<html>\n<body>\n<h1>Bad gateway</h1>\n<p>token=${secret}</p>${'<p>filler</p>\n'.repeat(500)}</body></html>`;
    const error = await failureFor(502, page, 'text/html');
    expect(error.kind).toBe('retryable');
    expect(error.message.length).toBeLessThanOrEqual(500);
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain(secret);
  });

  test('ConnectorError itself sanitises what any connector builds', () => {
    const error = new ConnectorError('permanent', `refused: ${jwt}\n${'y'.repeat(3000)}`);
    expect(error.message.length).toBeLessThanOrEqual(500);
    expect(error.message).not.toContain(jwt);
    expect(error.message).not.toContain('\n');
  });
});
