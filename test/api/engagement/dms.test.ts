// ORG/dms through the whole service: adding a person (201) and adding them again continuing their conversation,
// the status read off the log, followUpAt in the workspace's time zone, the list's order (your turn, follow-ups
// due, the rest) and filters, PATCH (a message, notes, the draft, closed sticking until reopened), DELETE
// forgetting the log (a later add starts afresh), drafting with the offline writer (an agent run, no credits),
// bad input as 400 naming the field and appending nothing, roles, other workspaces, an Idempotency-Key, the
// tools; and that no path calls a connector: nothing is ever sent on X.
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { addDmConversation, type DmDeps } from '../../../commands/engagement/dm-conversations.js';
import type { Caller } from '../../../domain/shared/caller.js';
import { permissionsOf } from '../../../domain/workspaces/roles.js';
import { connectAssistant } from '../../support/assistant.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

/** An answer as JSON, read loosely: each test checks the fields it is about. */
type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.stop());

const dms = (ws: TestWorkspace, rest = '') => `/v1/orgs/${ws.orgId}/dms${rest}`;

async function call(
  ws: TestWorkspace,
  method: string,
  rest: string,
  body?: unknown,
  role: keyof TestWorkspace['tokens'] = 'owner',
  headers?: Record<string, string>,
) {
  const res = await service.request(method, dms(ws, rest), {
    token: ws.tokens[role],
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Loose };
}
const data = (res: { status: number; json: Loose }, status = 200) => {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json.data as Loose;
};
const list = async (ws: TestWorkspace, query = '') =>
  (data(await call(ws, 'GET', query, undefined, 'viewer')).items as Loose[]).map((c) =>
    String(c.person.handle),
  );

/** A write made at another instant (the service's clock is the real one): the use case with its own `now`. */
async function addAt(
  ws: TestWorkspace,
  now: string,
  input: { handle: string; messages?: Loose[]; status?: string },
) {
  const deps: DmDeps = {
    commands: service.runtime.commands,
    idempotency: service.runtime.idempotency,
    readModels: service.runtime.readModels,
    aiJobs: { run: () => Promise.reject(new Error('no drafting here')) },
    brandContext: { forOrg: async () => null },
  };
  const caller: Caller = {
    kind: 'user',
    userId: ws.userIds.owner,
    orgId: ws.orgId,
    role: 'owner',
    permissions: permissionsOf('owner'),
  };
  const messages = (input.messages ?? []) as { from: 'them' | 'me'; text: string }[];
  return (
    await addDmConversation(
      deps,
      caller,
      { orgId: ws.orgId, handle: input.handle, messages },
      {
        correlationId: randomUUID(),
        now,
      },
    )
  ).output;
}

describe('adding and continuing', () => {
  test('POST answers 201 with the conversation; adding the person again continues it', async () => {
    const ws = await createTestWorkspace(service);
    expect(
      (
        await service.request('PATCH', `/v1/orgs/${ws.orgId}/timezone`, {
          token: ws.tokens.owner,
          body: { timezone: 'America/New_York' },
        })
      ).status,
    ).toBe(200);
    const first = data(
      await call(ws, 'POST', '', {
        handle: '@Alex_Dev',
        messages: [{ from: 'them', text: 'Hey! Loved your post on pricing.' }],
        notes: 'Met at SaaStr',
      }),
      201,
    );
    expect(first).toMatchObject({
      platform: 'x',
      status: 'your_turn',
      person: {
        handle: 'Alex_Dev',
        name: null,
        bio: null,
        followers: null,
        profileUrl: 'https://x.com/Alex_Dev',
      },
      notes: 'Met at SaaStr',
      draftText: null,
      draftReason: null,
      draftedAt: null,
      followUpAt: null,
      followUpDue: false,
      sendOnXUrl: 'https://x.com/Alex_Dev',
    });
    expect(first.messages).toEqual([
      { id: expect.any(String), from: 'them', text: 'Hey! Loved your post on pricing.', at: first.createdAt },
    ]);
    expect(first.lastMessageAt).toBe(first.createdAt);

    const again = data(
      await call(ws, 'POST', '', {
        handle: 'https://x.com/alex_dev',
        messages: [{ from: 'me', text: 'Thank you!' }],
      }),
      201,
    );
    expect(again.id).toBe(first.id);
    expect(again.person.handle).toBe('Alex_Dev');
    expect(again.notes).toBe('Met at SaaStr');
    expect((again.messages as Loose[]).map((m): unknown[] => [m.from, m.text])).toEqual([
      ['them', 'Hey! Loved your post on pricing.'],
      ['me', 'Thank you!'],
    ]);
    expect(again.status).toBe('waiting');
    // 09:00 in the workspace's zone, three local days after the day of my message.
    const local = DateTime.fromISO(again.followUpAt, { zone: 'America/New_York' });
    expect(local.toFormat('HH:mm')).toBe('09:00');
    expect(local.toISODate()).toBe(
      DateTime.fromISO(again.lastMessageAt, { zone: 'America/New_York' }).plus({ days: 3 }).toISODate(),
    );
    expect(again.followUpDue).toBe(false);
    expect(await list(ws)).toEqual(['Alex_Dev']);
  });

  test('an Idempotency-Key replays the add; its messages are logged once', async () => {
    const ws = await createTestWorkspace(service);
    const headers = { 'idempotency-key': 'dm-add-1' };
    const body = { handle: 'jack', messages: [{ from: 'them', text: 'hi' }] };
    const first = data(await call(ws, 'POST', '', body, 'owner', headers), 201);
    const again = await call(ws, 'POST', '', body, 'owner', headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data).toEqual(first);
    expect(data(await call(ws, 'GET', '')).items[0].messages).toHaveLength(1);
  });
});

describe('the list', () => {
  test('your turn first, then follow-ups due, then the rest; each filter', async () => {
    const ws = await createTestWorkspace(service);
    const now = Date.now();
    const daysAgo = (n: number) => new Date(now - n * 86_400_000).toISOString();
    await addAt(ws, daysAgo(6), { handle: 'waiting_due', messages: [{ from: 'me', text: 'Any thoughts?' }] });
    await addAt(ws, daysAgo(1), { handle: 'waiting_fresh', messages: [{ from: 'me', text: 'Hello' }] });
    await addAt(ws, daysAgo(2), { handle: 'their_turn_old', messages: [{ from: 'them', text: 'Hi?' }] });
    await addAt(ws, daysAgo(0.5), { handle: 'their_turn_new', messages: [{ from: 'them', text: 'Hi!' }] });
    const closed = await addAt(ws, daysAgo(9), {
      handle: 'done_deal',
      messages: [{ from: 'me', text: 'Bye' }],
    });
    data(await call(ws, 'PATCH', `/${closed.id}`, { status: 'closed' }));

    expect(await list(ws)).toEqual(['their_turn_new', 'their_turn_old', 'waiting_due', 'waiting_fresh']);
    expect(await list(ws, '?status=open')).toEqual(await list(ws));
    expect(await list(ws, '?status=your_turn')).toEqual(['their_turn_new', 'their_turn_old']);
    expect(await list(ws, '?status=follow_up_due')).toEqual(['waiting_due']);
    expect(await list(ws, '?status=waiting')).toEqual(['waiting_due', 'waiting_fresh']);
    expect(await list(ws, '?status=closed')).toEqual(['done_deal']);
    expect(await list(ws, '?status=all')).toEqual([
      'their_turn_new',
      'their_turn_old',
      'waiting_due',
      'waiting_fresh',
      'done_deal',
    ]);
    const due = data(await call(ws, 'GET', '?status=follow_up_due')).items[0];
    expect(due).toMatchObject({ status: 'waiting', followUpDue: true });
    expect(Date.parse(due.followUpAt)).toBeLessThan(now);
    // A closed conversation waits for nothing: no follow-up, however old.
    expect(data(await call(ws, 'GET', '?status=closed')).items[0]).toMatchObject({
      followUpAt: null,
      followUpDue: false,
    });
    expect((await call(ws, 'GET', '?status=late')).status).toBe(400);
  });
});

describe('PATCH, DELETE and drafting', () => {
  test('a message, notes, my own draft; closed sticks until reopened; my message spends the draft', async () => {
    const ws = await createTestWorkspace(service);
    const c = data(await call(ws, 'POST', '', { handle: 'sam' }), 201);
    expect(c).toMatchObject({ status: 'your_turn', messages: [], lastMessageAt: null });

    const withDraft = data(
      await call(ws, 'PATCH', `/${c.id}`, { notes: 'CTO at Initech', draftText: 'Hi Sam!' }),
    );
    expect(withDraft).toMatchObject({ notes: 'CTO at Initech', draftText: 'Hi Sam!', draftReason: null });
    expect(withDraft.draftedAt).toEqual(expect.any(String));

    const sent = data(await call(ws, 'PATCH', `/${c.id}`, { addMessage: { from: 'me', text: 'Hi Sam!' } }));
    expect(sent).toMatchObject({ status: 'waiting', draftText: null, draftedAt: null });

    const closed = data(await call(ws, 'PATCH', `/${c.id}`, { status: 'closed' }));
    expect(closed.status).toBe('closed');
    const stillClosed = data(
      await call(ws, 'PATCH', `/${c.id}`, { addMessage: { from: 'them', text: 'Oh hi' } }),
    );
    expect(stillClosed).toMatchObject({ status: 'closed', followUpAt: null });
    expect(data(await call(ws, 'POST', '', { handle: 'SAM' }), 201).status).toBe('closed');
    expect(data(await call(ws, 'PATCH', `/${c.id}`, { status: 'open' })).status).toBe('your_turn');

    const bad = await call(ws, 'PATCH', `/${c.id}`, { draft: true, draftText: 'both' });
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual([{ path: 'body.draft', message: expect.any(String) }]);
  });

  test('DELETE answers the conversation as it was and forgets the log; adding the person again starts afresh', async () => {
    const ws = await createTestWorkspace(service);
    const c = data(
      await call(ws, 'POST', '', { handle: 'kim', messages: [{ from: 'them', text: 'hi' }], notes: 'n' }),
      201,
    );
    const gone = data(await call(ws, 'DELETE', `/${c.id}`));
    expect(gone).toMatchObject({ id: c.id, status: 'your_turn', notes: 'n' });
    expect(gone.messages).toHaveLength(1);
    expect(await list(ws, '?status=all')).toEqual([]);
    expect((await call(ws, 'PATCH', `/${c.id}`, { notes: 'x' })).json.code).toBe('dm_conversation_not_found');
    expect((await call(ws, 'DELETE', `/${c.id}`)).status).toBe(404);
    expect((await call(ws, 'POST', `/${c.id}/draft`, {})).status).toBe(404);

    const fresh = data(await call(ws, 'POST', '', { handle: 'KIM' }), 201);
    expect(fresh).toMatchObject({ id: c.id, person: { handle: 'KIM' }, notes: null, messages: [] });
    expect(await list(ws)).toEqual(['KIM']);
  });

  test('drafting with the offline writer: a reply to their last message, an agent run, no credits', async () => {
    const ws = await createTestWorkspace(service);
    const c = data(
      await call(ws, 'POST', '', {
        handle: 'pat',
        messages: [{ from: 'them', text: 'Does it work with LinkedIn pages?' }],
        draft: true,
        guidance: 'keep it short',
      }),
      201,
    );
    expect(c.draftText).toMatch(
      /^Thanks for reaching out, pat! Good question on "Does it work with LinkedIn pages\?"/,
    );
    expect(c.draftReason).toMatch(/\(a question\)\. Guidance to work in by hand: keep it short$/);
    expect(c.draftedAt).toEqual(expect.any(String));

    const nudged = data(
      await call(ws, 'PATCH', `/${c.id}`, { addMessage: { from: 'me', text: 'Yes it does!' }, draft: true }),
    );
    expect(nudged.draftText).toMatch(/^Hi pat, just following up on my message about "Yes it does!"/);
    const redrafted = data(await call(ws, 'POST', `/${c.id}/draft`));
    expect(redrafted.draftText).toBe(nudged.draftText);
    expect(redrafted.draftedAt >= nudged.draftedAt).toBe(true);

    const runs = await service.request('GET', `/v1/orgs/${ws.orgId}/agent-runs?jobType=engagement.dm_draft`, {
      token: ws.tokens.owner,
    });
    const items = ((await runs.json()) as Loose).data.items as Loose[];
    expect(items).toHaveLength(3);
    expect(items.every((r) => r.status === 'succeeded' && (r.costCredits ?? 0) === 0)).toBe(true);
  });
});

describe('refusals', () => {
  test('bad input is a 400 naming the field; nothing is appended', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    const handle = await call(ws, 'POST', '', { handle: 'not a handle!' });
    expect(handle.status).toBe(400);
    expect(handle.json.details).toEqual([
      { path: 'body.handle', message: expect.stringMatching(/X handle/) },
    ]);
    const text = await call(ws, 'POST', '', {
      handle: 'ok',
      messages: [
        { from: 'them', text: 'hi' },
        { from: 'me', text: '  ' },
      ],
    });
    expect((text.json.details as Loose[]).map((d) => String(d.path))).toEqual(['body.messages.1.text']);
    expect(
      (await call(ws, 'POST', '', { handle: 'ok', messages: [{ from: 'bot', text: 'x' }] })).status,
    ).toBe(400);
    expect((await call(ws, 'POST', '', {})).status).toBe(400);
    const c = data(await call(ws, 'POST', '', { handle: 'ok' }), 201);
    const afterAdd = await eventCount(service);
    const long = await call(ws, 'PATCH', `/${c.id}`, { draftText: 'x'.repeat(10_001) });
    expect((long.json.details as Loose[]).map((d) => String(d.path))).toEqual(['body.draftText']);
    expect((await call(ws, 'PATCH', `/${c.id}`, { status: 'archived' })).status).toBe(400);
    expect((await call(ws, 'PATCH', '/not-a-uuid', { notes: 'x' })).status).toBe(400);
    expect((await call(ws, 'PATCH', `/${randomUUID()}`, { notes: 'x' })).status).toBe(404);
    expect(await eventCount(service)).toBe(afterAdd);
    expect(afterAdd).toBe(before + 1);
  });

  test('those who draft write (owner, admin, editor); reviewers and viewers read; other workspaces see nothing', async () => {
    const ws = await createTestWorkspace(service);
    const other = await createTestWorkspace(service, 'Other');
    const c = data(await call(ws, 'POST', '', { handle: 'lee' }, 'editor'), 201);
    for (const role of ['reviewer', 'viewer'] as const) {
      expect((await call(ws, 'POST', '', { handle: 'lee' }, role)).status).toBe(403);
      expect((await call(ws, 'PATCH', `/${c.id}`, { notes: 'x' }, role)).status).toBe(403);
      expect((await call(ws, 'POST', `/${c.id}/draft`, {}, role)).status).toBe(403);
      expect((await call(ws, 'DELETE', `/${c.id}`, undefined, role)).status).toBe(403);
      expect((await call(ws, 'GET', '', undefined, role)).status).toBe(200);
    }
    // Another workspace's conversation id is not found in this one (its own token, its own path).
    expect((await call(other, 'PATCH', `/${c.id}`, { notes: 'x' })).status).toBe(404);
    expect((await call(other, 'DELETE', `/${c.id}`)).status).toBe(404);
    expect(await list(other, '?status=all')).toEqual([]);
    expect(data(await call(ws, 'DELETE', `/${c.id}`, undefined, 'admin')).id).toBe(c.id);
  });
});

describe('nothing is sent on X', () => {
  test('no DM path reaches a connector', async () => {
    const ws = await createTestWorkspace(service);
    const spy = vi.spyOn(service.runtime.connectors, 'get');
    try {
      const c = data(
        await call(ws, 'POST', '', { handle: 'nora', messages: [{ from: 'them', text: 'hi' }], draft: true }),
        201,
      );
      data(
        await call(ws, 'PATCH', `/${c.id}`, { addMessage: { from: 'me', text: 'hello' }, status: 'closed' }),
      );
      data(await call(ws, 'PATCH', `/${c.id}`, { status: 'open', draft: true }));
      data(await call(ws, 'POST', `/${c.id}/draft`, { guidance: 'mention the webinar' }));
      data(await call(ws, 'GET', '?status=all'));
      data(await call(ws, 'DELETE', `/${c.id}`));
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});

describe('the tools', () => {
  test('list with mcp:read; add, update and draft with posts:write; DELETE has no tool', async () => {
    const ws = await createTestWorkspace(service);
    const reader = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: [],
    });
    const readable = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(readable).toContain('list_dm_conversations');
    for (const name of ['add_dm_conversation', 'update_dm_conversation', 'draft_dm'])
      expect(readable).not.toContain(name);

    const writer = await connectAssistant(service, {
      userId: ws.userIds.editor,
      orgId: ws.orgId,
      scopes: ['posts:write'],
    });
    const names = (await writer.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['add_dm_conversation', 'update_dm_conversation', 'draft_dm']),
    );
    expect(names.some((n) => /delete.*dm/i.test(n))).toBe(false);

    const added = (await writer.client.callTool({
      name: 'add_dm_conversation',
      arguments: { handle: '@ria', messages: [{ from: 'them', text: 'Are you hiring?' }] },
    })) as CallToolResult;
    expect(added.isError).toBeFalsy();
    const conversation = added.structuredContent as Loose;
    expect(conversation).toMatchObject({ status: 'your_turn', person: { handle: 'ria' } });
    expect((added.content[0] as { text: string }).text).toMatch(
      /@ria: your turn, 1 message\(s\)\. Nothing was sent on X\./,
    );

    const drafted = (await writer.client.callTool({
      name: 'draft_dm',
      arguments: { conversationId: conversation.id },
    })) as CallToolResult;
    expect((drafted.structuredContent as Loose).draftText).toMatch(/Are you hiring\?/);

    const updated = (await writer.client.callTool({
      name: 'update_dm_conversation',
      arguments: { conversationId: conversation.id, addMessage: { from: 'me', text: 'Not right now' } },
    })) as CallToolResult;
    expect(updated.structuredContent).toMatchObject({ status: 'waiting', draftText: null });

    const listed = (await reader.client.callTool({
      name: 'list_dm_conversations',
      arguments: { status: 'waiting' },
    })) as CallToolResult;
    expect(((listed.structuredContent as Loose).items as Loose[]).map((c) => String(c.id))).toEqual([
      conversation.id,
    ]);

    const refused = (await writer.client.callTool({
      name: 'add_dm_conversation',
      arguments: { handle: 'has spaces' },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.structuredContent)).toContain('arguments.handle');
  });
});
