// A reply send whose process is SIGKILLed right before or right after the X call (a child process of the service's
// runtime on the same database, test/api/engagement/fixtures/send-and-die.ts): the claim (`sending`, with the
// exact text) is recorded first, so the item is never lost nor sent twice. While the claim holds, another send is
// refused (409 reply_sending); once it runs out, the next send of the same text asks the platform first: a reply
// that went out before the kill is found and recorded (nothing posted again), one that did not is sent. Either way
// the sandbox holds exactly one reply with exactly the approved text.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { waitUntil } from '../../support/wait.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const root = path.resolve(import.meta.dirname, '../../..');
const leaseMs = 1500;
let service: TestService;
let ws: TestWorkspace;

beforeAll(async () => {
  service = await startTestService({ env: { INBOX_SEND_LEASE_MS: String(leaseMs) } });
  ws = await createTestWorkspace(service, 'Killed send');
  await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
}, 120_000);
afterAll(async () => service?.stop());

async function call(method: string, rest: string, body?: unknown): Promise<{ status: number; data: Loose }> {
  const res = await service.request(method, `/v1/orgs/${ws.orgId}/engagement${rest}`, {
    token: ws.tokens.owner,
    ...(body !== undefined ? { body } : {}),
  });
  const json = (await res.json()) as Loose;
  return { status: res.status, data: (json.data ?? json) as Loose };
}

async function repliesTo(externalPostId: string): Promise<string[]> {
  const { rows } = await service.runtime.database.pool.query<{ text: string }>(
    'select text from sandbox_publications where post_id = $1',
    [`engagement-reply:${externalPostId}`],
  );
  return rows.map((r) => r.text);
}

/** Runs the child until it kills itself (or answers); what it printed. */
function sendAndDie(itemId: string, text: string, where: 'before' | 'after'): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/api/engagement/fixtures/send-and-die.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: service.database.url,
      DATA_DIR: service.dataDir,
      PUBLIC_BASE_URL: 'http://localhost:3000',
      LOG_LEVEL: 'silent',
      INBOX_AUTO_REFRESH_INTERVAL_MS: '0',
      ORG_ID: ws.orgId,
      ITEM_ID: itemId,
      TOKEN: ws.tokens.owner,
      TEXT: text,
      CRASH_WHERE: where,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) =>
    child.on('exit', (_code, signal) => resolve(`${out}exit ${signal ?? _code}`)),
  );
}

test('killed right after or right before the X call: one reply with the approved text, never two', async () => {
  await call('PATCH', '/settings', { keywords: ['scheduling'] });
  const refreshed = await call('POST', '/refresh', {});
  expect(refreshed.status).toBe(200);
  const mentions = (refreshed.data.items as Loose[]).filter(
    (i) => i.kind === 'mention' && i.platform === 'x',
  );
  expect(mentions.length).toBeGreaterThanOrEqual(2);

  for (const [where, item] of [
    ['after', mentions[0]!],
    ['before', mentions[1]!],
  ] as const) {
    const text = `Thanks for asking (${where})! Threads go out in order.`;
    expect((await call('PATCH', `/${item.id}`, { draftText: text })).status).toBe(200);

    const printed = await sendAndDie(item.id as string, text, where);
    expect(printed).toContain(`CRASH ${where}`);
    expect(printed).toContain('exit SIGKILL');
    expect(printed).not.toContain('ANSWERED');
    expect(await repliesTo(item.externalPostId as string)).toEqual(where === 'after' ? [text] : []);

    // The claim is recorded: the item is being sent, and a send meanwhile calls nothing.
    await waitUntil(async () => (await call('GET', `/${item.id}`)).data.status === 'sending');
    const meanwhile = await call('POST', `/${item.id}/send`, { text });
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.data.code).toBe('reply_sending');

    // Once the claim runs out, the same text resumes it: the platform is asked first.
    await new Promise((r) => setTimeout(r, leaseMs + 200));
    const resumed = await call('POST', `/${item.id}/send`, { text });
    expect(resumed.status).toBe(200);
    expect(resumed.data).toMatchObject({ status: 'sent', sentUrl: expect.any(String) });
    expect(await repliesTo(item.externalPostId as string)).toEqual([text]);

    // Again: answered as sent, nothing posted.
    const again = await call('POST', `/${item.id}/send`, { text });
    expect(again.data.status).toBe('sent');
    expect(await repliesTo(item.externalPostId as string)).toEqual([text]);
  }
}, 120_000);
