// /metrics over a real socket: Prometheus text with request latency by route pattern, command outcomes,
// projection lag per projection, outbox depth and publish outcomes per platform. Who may scrape: a loopback
// caller without forwarding headers, or, with METRICS_TOKEN, only a caller bearing it.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connectAssistant } from '../../support/assistant.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

interface Served {
  service: TestService;
  origin: string;
  close(): Promise<void>;
}

async function served(env: Record<string, string> = {}): Promise<Served> {
  const service = await startTestService({ env: { POST_NOW_WAIT_MS: '20000', ...env } });
  const http = serve({ fetch: service.runtime.app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await new Promise((resolve) => http.once('listening', resolve));
  return {
    service,
    origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      await new Promise((resolve) => http.close(resolve));
      await service.stop();
    },
  };
}

/** The value of one sample line, e.g. `commands_total{command="ApprovePostGroup",outcome="appended"}`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('on loopback without METRICS_TOKEN', () => {
  let s: Served;
  let ws: TestWorkspace;
  let text: string;

  beforeAll(async () => {
    s = await served();
    ws = await createTestWorkspace(s.service);
    await connectSandboxAccount(s.service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
    const auth = { authorization: `Bearer ${ws.tokens.owner}`, 'content-type': 'application/json' };
    const created = await fetch(`${s.origin}${ws.base}/post-groups`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ title: 'Metrics', posts: [{ platform: 'x', contentText: 'Counted' }] }),
    });
    expect(created.status).toBe(200);
    const { group, posts } = (
      (await created.json()) as {
        data: { group: { id: string }; posts: Array<{ id: string }> };
      }
    ).data;
    const approved = await fetch(`${s.origin}${ws.base}/post-groups/${group.id}/approve`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ autoSchedule: false }),
    });
    expect(approved.status).toBe(200);
    // Approving again changes nothing; a reject of an approved group is refused by the domain.
    await fetch(`${s.origin}${ws.base}/post-groups/${group.id}/approve`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ autoSchedule: false }),
    });
    const published = await fetch(`${s.origin}${ws.base}/posts/${posts[0]!.id}/post-now`, {
      method: 'POST',
      headers: auth,
    });
    expect(((await published.json()) as { data: { status: string } }).data.status).toBe('published');
    await fetch(`${s.origin}/no/such/route`);
    const preview = await fetch(`${s.origin}${ws.base}/visuals/preview`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ kind: 'image', content: { title: 'Timed' } }),
    });
    expect(preview.status).toBe(200);
    // Tool calls through the tool server: one that answers, one refused for its input.
    const assistant = await connectAssistant(s.service, {
      userId: ws.userIds.owner,
      orgId: ws.orgId,
      scopes: [],
    });
    expect(
      (await assistant.client.callTool({ name: 'list_social_accounts', arguments: {} })).isError,
    ).toBeFalsy();
    expect((await assistant.client.callTool({ name: 'get_usage', arguments: { limit: 500 } })).isError).toBe(
      true,
    );
    const res = await fetch(`${s.origin}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    text = await res.text();
  });
  afterAll(async () => s.close());

  test('request latency by method, route pattern and status', () => {
    expect(text).toMatch(/# TYPE http_request_duration_seconds histogram/);
    const approve = {
      method: 'POST',
      route: '/v1/orgs/:orgId/marketing/post-groups/:groupId/approve',
      status: '200',
    };
    expect(sample(text, 'http_request_duration_seconds_count', approve)).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).toBe(
      1,
    );
    // The tool server has a route of its own, apart from the 404s.
    expect(
      sample(text, 'http_request_duration_seconds_count', { method: 'POST', route: '/mcp' }),
    ).toBeGreaterThanOrEqual(2);
    // Ids never become labels.
    expect(text).not.toContain(ws.orgId);
  });

  test('command outcomes by command type', () => {
    expect(sample(text, 'commands_total', { command: 'ApprovePostGroup', outcome: 'appended' })).toBe(1);
    expect(sample(text, 'commands_total', { command: 'ApprovePostGroup', outcome: 'unchanged' })).toBe(1);
    expect(
      sample(text, 'commands_total', { command: 'CreatePostGroup', outcome: 'appended' }),
    ).toBeGreaterThanOrEqual(1);
  });

  test('render time by kind', () => {
    expect(text).toMatch(/# TYPE visual_render_duration_seconds histogram/);
    expect(sample(text, 'visual_render_duration_seconds_count', { kind: 'image', outcome: 'ok' })).toBe(1);
  });

  test('tool calls by tool and outcome', () => {
    expect(sample(text, 'mcp_tool_calls_total', { tool: 'list_social_accounts', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'mcp_tool_calls_total', { tool: 'get_usage', outcome: 'invalid_input' })).toBe(1);
  });

  test('publish outcomes per platform', () => {
    expect(sample(text, 'publish_outcomes_total', { platform: 'x', outcome: 'published' })).toBe(1);
  });

  test('the delay from the time scheduled for to publication, and platform call latency', () => {
    expect(text).toMatch(/# TYPE publish_delay_seconds histogram/);
    expect(sample(text, 'publish_delay_seconds_count', { platform: 'x' })).toBe(1);
    // Post now schedules for now: published within the minute.
    expect(sample(text, 'publish_delay_seconds_bucket', { platform: 'x', le: '60' })).toBe(1);
    expect(text).toMatch(/# TYPE platform_call_duration_seconds histogram/);
    expect(
      sample(text, 'platform_call_duration_seconds_count', {
        platform: 'x',
        operation: 'publish',
        outcome: 'ok',
      }),
    ).toBe(1);
  });

  test('projection lag per projection, and the outbox', () => {
    for (const projection of ['workspaces', 'users', 'tags', 'post_groups', 'social_accounts']) {
      expect(sample(text, 'projection_lag_events', { projection })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'projection_lag_seconds', { projection })).toBeGreaterThanOrEqual(0);
    }
    expect(sample(text, 'outbox_depth')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'outbox_oldest_seconds')).toBeGreaterThanOrEqual(0);
  });

  test('a forwarded request (a proxy on this host) is not served', async () => {
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const res = await fetch(`${s.origin}/metrics`, { headers: { [header]: '203.0.113.9' } });
      expect(res.status).toBe(404);
    }
  });

  test('not part of the API document', async () => {
    const doc = (await (await fetch(`${s.origin}/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(doc.paths['/metrics']).toBeUndefined();
  });
});

describe('with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789';
  let s: Served;
  beforeAll(async () => {
    s = await served({ METRICS_TOKEN: token });
  });
  afterAll(async () => s.close());

  test('only a caller bearing the token may scrape, loopback or not', async () => {
    expect((await fetch(`${s.origin}/metrics`)).status).toBe(404);
    expect(
      (await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${token}x` } })).status,
    ).toBe(404);
    const res = await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/process_cpu_user_seconds_total/);
  });

  test('in-process requests (no socket) are refused without the token', async () => {
    expect((await s.service.request('GET', '/metrics')).status).toBe(404);
  });
});
