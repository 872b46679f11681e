// Issue 30 as a property: over random sequences of inbox operations by the workspace's owner (refresh, PATCH with a
// draft or a status, draft, list, Reddit suggestions, send), only `send` ever reaches the connector's send method;
// every platform send carries exactly the text the item's draft approved (or the text given with no draft); and no
// item is ever answered twice on the platform.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { candidate, installFakeEngagement, type FakeEngagement } from '../../support/fake-engagement.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { connectSandboxAccount } from '../../support/social-accounts.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
let fake: FakeEngagement;

beforeAll(async () => {
  service = await startTestService();
  fake = installFakeEngagement(service);
}, 120_000);
afterAll(async () => service?.stop());

type Op =
  | { op: 'refresh'; n: number }
  | { op: 'patch'; item: number; draftText?: string | null; status?: 'drafted' | 'dismissed' | 'sent' }
  | { op: 'draft'; item: number }
  | { op: 'list' }
  | { op: 'suggest' }
  | { op: 'send'; item: number; useDraft: boolean; text: string };

const text = fc.constantFrom('Thanks!', 'Happy to help', 'We do this natively', 'Great point');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('refresh' as const), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record(
    {
      op: fc.constant('patch' as const),
      item: fc.nat(5),
      draftText: fc.option(text, { nil: null }),
      status: fc.constantFrom('drafted' as const, 'dismissed' as const, 'sent' as const),
    },
    { requiredKeys: ['op', 'item'] },
  ),
  fc.record({ op: fc.constant('draft' as const), item: fc.nat(5) }),
  fc.constant({ op: 'list' as const }),
  fc.constant({ op: 'suggest' as const }),
  fc.record({ op: fc.constant('send' as const), item: fc.nat(5), useDraft: fc.boolean(), text }),
);

test('only send reaches the connector, with exactly the approved text, once per item', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 3, maxLength: 12 }), async (ops) => {
      const ws: TestWorkspace = await createTestWorkspace(service);
      await connectSandboxAccount(service, { orgId: ws.orgId, userId: ws.userIds.owner }, 'x');
      const base = `/v1/orgs/${ws.orgId}/engagement`;
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await service.request(method, `${base}${path}`, {
          token: ws.tokens.owner,
          ...(body !== undefined ? { body } : {}),
        });
        return { status: res.status, json: (await res.json()) as Loose };
      };
      const items: Loose[] = [];
      const sentBefore = fake.sends.length;
      const expected: { inReplyTo: string; text: string }[] = [];
      for (const op of ops) {
        const sendsBefore = fake.sends.length;
        const item = 'item' in op && items.length > 0 ? items[op.item % items.length] : undefined;
        switch (op.op) {
          case 'refresh': {
            fake.posts = { x_mentions: Array.from({ length: op.n }, () => candidate()) };
            const r = await call('POST', '/refresh', {});
            fake.posts = {};
            expect(r.status).toBe(200);
            items.push(...(r.json.data.items as Loose[]));
            break;
          }
          case 'patch':
            if (item)
              await call('PATCH', `/${item.id}`, {
                ...(op.draftText !== undefined ? { draftText: op.draftText } : {}),
                ...(op.status ? { status: op.status } : {}),
              });
            break;
          case 'draft':
            if (item) await call('POST', `/${item.id}/draft`, {});
            break;
          case 'list':
            expect((await call('GET', '?status=all')).status).toBe(200);
            break;
          case 'suggest':
            expect((await call('POST', '/reddit-suggestions')).status).toBe(200);
            break;
          case 'send': {
            if (!item) break;
            const now = (await call('GET', '?status=all&limit=100')).json.data.items as Loose[];
            const current = now.find((i) => i.id === item.id)!;
            const body = op.useDraft && current.draftText ? current.draftText : op.text;
            const r = await call('POST', `/${item.id}/send`, { text: body });
            const approved = current.draftText === null || current.draftText === body;
            const sendable = ['new', 'drafted', 'failed'].includes(current.status) && approved;
            if (sendable) {
              expect(r.status).toBe(200);
              expect(r.json.data.status).toBe('sent');
              expected.push({ inReplyTo: current.externalPostId, text: body });
            } else if (current.status !== 'sent') expect(r.status).toBe(409);
            break;
          }
        }
        // Only send reaches the connector's send method.
        if (op.op !== 'send') expect(fake.sends.length).toBe(sendsBefore);
      }
      const sends = fake.sends.slice(sentBefore).map((s) => s.reply);
      expect(sends).toEqual(expected);
      expect(new Set(sends.map((s) => s.inReplyTo)).size).toBe(sends.length);
    }),
    { numRuns: 12 },
  );
}, 300_000);
