// The platform through app.request(): request ids, logging without secrets, body limit, probes,
// the JSON 404 and the one error mapping (malformed JSON, validation details, 429, mapped and unknown errors).
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../api/app.js';
import { jsonRequest, orgA, sampleApp, testAuth, tokenFor, captureLogs } from './support.js';

const widgets = `/v1/orgs/${orgA}/widgets`;

describe('request id', () => {
  it('is generated and returned on every kind of response', async () => {
    const { app, auth } = await sampleApp();
    const token = await tokenFor(auth);
    const responses = await Promise.all([
      app.request('/healthz'),
      app.request('/nope'),
      app.request(widgets),
      app.request(widgets, jsonRequest('{', token)),
      app.request('/v1/test/boom'),
      app.request('/v1/test/raw'),
    ]);
    const ids = responses.map((r) => r.headers.get('X-Request-Id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('honours a sane incoming id and replaces an unsafe one', async () => {
    const { app } = await sampleApp();
    const kept = await app.request('/healthz', { headers: { 'X-Request-Id': 'edge-1234.abc' } });
    expect(kept.headers.get('X-Request-Id')).toBe('edge-1234.abc');
    const replaced = await app.request('/healthz', { headers: { 'X-Request-Id': 'a b\tc<script>' } });
    expect(replaced.headers.get('X-Request-Id')).not.toContain('script');
    expect(replaced.headers.get('X-Request-Id')).toMatch(/^[0-9a-f-]{36}$/);
    const tooLong = await app.request('/healthz', { headers: { 'X-Request-Id': 'x'.repeat(200) } });
    expect(tooLong.headers.get('X-Request-Id')).toHaveLength(36);
  });
});

describe('request logging', () => {
  it('logs each request with its id and never the bearer token', async () => {
    const { app, auth, logs } = await sampleApp();
    const token = await tokenFor(auth);
    const res = await app.request(
      widgets,
      jsonRequest({ name: 'w', count: 1 }, token, { 'X-Request-Id': 'req-42' }),
    );
    expect(res.status).toBe(201);
    await app.request('/v1/test/boom', {
      headers: { Authorization: `Bearer ${token}`, Cookie: `session=${token}` },
    });
    await app.request(`${widgets}?access=${token}`, { headers: { Authorization: `Bearer ${token}` } });

    const entries = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toContainEqual(
      expect.objectContaining({ reqId: 'req-42', method: 'POST', path: widgets, status: 201 }),
    );
    expect(logs.text()).not.toContain(token);
    // The token's signature part alone must not leak either (e.g. through a truncated header).
    expect(logs.text()).not.toContain(token.split('.')[2]!);
  });

  it('logs an unknown error with the request id and answers 500 without internals', async () => {
    const { app, logs } = await sampleApp();
    const res = await app.request('/v1/test/boom', { headers: { 'X-Request-Id': 'boom-1' } });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'Internal error' });
    const errorLine = logs.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e.msg === 'unhandled error');
    expect(errorLine).toMatchObject({ reqId: 'boom-1', level: 50 });
    expect(JSON.stringify(errorLine)).toContain('hunter2'); // the operator sees it, the client does not
  });
});

describe('probes and unknown routes', () => {
  it('healthz and readyz answer without a token', async () => {
    const { app } = await sampleApp();
    const health = await app.request('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ data: { status: 'ok' } });
    const ready = await app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ data: { ok: true, checks: { database: { ok: true } } } });
  });

  it('readyz answers 503 naming the failing checks, also when the check throws; their text goes to the log only', async () => {
    const internal = 'connect ECONNREFUSED 10.0.3.7:5432 (password authentication failed for user "svc")';
    const failing = await sampleApp({
      readiness: async () => ({
        ok: false,
        checks: { database: { ok: true }, eventStore: { ok: false, detail: internal } },
      }),
    });
    const res = await failing.app.request('/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: 'Service not ready',
      code: 'not_ready',
      details: [{ path: 'eventStore', message: 'not ready' }],
    });
    // The operator finds the reason in the log; an unauthenticated caller learns nothing about the internals.
    expect(failing.logs.text()).toContain('ECONNREFUSED 10.0.3.7:5432');

    const throwing = await sampleApp({
      readiness: async () => {
        throw new Error('pool closed at 10.0.3.7');
      },
    });
    const thrown = await throwing.app.request('/readyz');
    expect(thrown.status).toBe(503);
    expect(await thrown.text()).not.toContain('10.0.3.7');
    expect(throwing.logs.text()).toContain('pool closed at 10.0.3.7');
  });

  it('answers unknown routes with a JSON 404', async () => {
    const { app } = await sampleApp();
    const res = await app.request('/v1/does-not-exist');
    expect(res.status).toBe(404);
    expect(res.headers.get('Content-Type')).toContain('application/json');
    expect(await res.json()).toEqual({ error: 'Not found' });
  });

  it('works with no feature routes at all', async () => {
    const logs = captureLogs();
    const app = createApp({
      logger: logs.logger,
      config: { bodyLimitBytes: 1024 },
      auth: await testAuth(),
      readiness: async () => ({ ok: true, checks: {} }),
    });
    expect((await app.request('/healthz')).status).toBe(200);
    expect((await app.request('/v1/openapi.json')).status).toBe(200);
  });
});

describe('bad input battery on a body route', () => {
  async function post(body: unknown, init: Record<string, string> = {}) {
    const { app, auth } = await sampleApp();
    const token = await tokenFor(auth);
    const res = await app.request(widgets, jsonRequest(body, token, init));
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('accepts a valid body', async () => {
    const { status, body } = await post({ name: 'First', count: 3 });
    expect(status).toBe(201);
    expect(body).toEqual({ data: { id: expect.any(String), name: 'First', count: 3 } });
  });

  it('malformed JSON → 400 "Malformed JSON body"', async () => {
    expect(await post('{"name": "x",')).toEqual({ status: 400, body: { error: 'Malformed JSON body' } });
  });

  it('wrong types → 400 with one detail per bad field', async () => {
    const { status, body } = await post({ name: 12, count: 'three' });
    expect(status).toBe(400);
    expect(body.error).toBe('Invalid request');
    expect(body.details).toEqual(
      expect.arrayContaining([
        { path: 'body.name', message: expect.stringContaining('string') },
        { path: 'body.count', message: expect.stringContaining('number') },
      ]),
    );
    expect(body.details).toHaveLength(2);
  });

  it('missing fields → 400 "Required" per field', async () => {
    const { status, body } = await post({});
    expect(status).toBe(400);
    expect(body.details).toEqual([
      { path: 'body.name', message: 'Required' },
      { path: 'body.count', message: 'Required' },
    ]);
  });

  it('nested and unknown fields name their full path', async () => {
    const { body } = await post({ name: 'x', count: 1, tags: ['ok', 5], colour: 'red' });
    expect(body.details).toEqual(
      expect.arrayContaining([
        { path: 'body.tags.1', message: expect.any(String) },
        { path: 'body.colour', message: 'Unknown field' },
      ]),
    );
  });

  it('a body that is not an object → 400 on `body`', async () => {
    const { status, body } = await post([1, 2]);
    expect(status).toBe(400);
    expect(body.details).toEqual([{ path: 'body', message: expect.any(String) }]);
  });

  it('a bad path parameter → 400 on `param.orgId`', async () => {
    const { app, auth } = await sampleApp();
    // Tokens name workspaces by lower-case UUIDs only; this one has the shape but not the version and variant
    // bits of a UUID, so it passes the workspace check and fails validation.
    const notAUuid = '11111111-1111-1111-1111-111111111111';
    const token = await tokenFor(auth, { orgId: notAUuid });
    const res = await app.request(
      `/v1/orgs/${notAUuid}/widgets`,
      jsonRequest({ name: 'x', count: 1 }, token),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { details: unknown[] }).details).toEqual([
      { path: 'param.orgId', message: expect.any(String) },
    ]);
  });

  it('oversized body → 413 with the error body, before parsing', async () => {
    const big = { name: 'x', count: 1, tags: ['y'.repeat(5000)] };
    const { status, body } = await post(big);
    expect(status).toBe(413);
    expect(body).toEqual({ error: expect.stringContaining('2048 bytes') });
  });

  it('oversized body without Content-Length (streamed) → 413', async () => {
    const { app, auth } = await sampleApp();
    const token = await tokenFor(auth);
    const chunk = new TextEncoder().encode('x'.repeat(1000));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await app.request(widgets, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: stream,
      duplex: 'half',
    });
    expect(res.status).toBe(413);
  });

  it('a non-JSON content type → 415 with the error body', async () => {
    const { app, auth } = await sampleApp();
    const token = await tokenFor(auth);
    const res = await app.request(widgets, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', Authorization: `Bearer ${token}` },
      body: 'name=x',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({ error: expect.any(String) });
  });
});

describe('typed errors', () => {
  it('429 carries retryAfterSeconds in the body and a Retry-After header', async () => {
    const { app } = await sampleApp();
    const res = await app.request('/v1/test/limited');
    expect(res.status).toBe(429);
    expect(res.headers.get('Retry-After')).toBe('42');
    expect(await res.json()).toEqual({
      error: 'Too many requests',
      code: 'rate_limit_exceeded',
      retryAfterSeconds: 42,
    });
  });

  it('errors of other layers go through the registered mappers', async () => {
    const { app } = await sampleApp();
    const res = await app.request('/v1/test/conflict');
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: 'Changed meanwhile, retry' });
  });
});
