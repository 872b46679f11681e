// Invitations through the whole service: invite → the mail in the local mailbox (read with the CLI) → accept as
// the invitee → a member with the invited role; every invalid acceptance refused and changing nothing; roles,
// conflicts, bad input, another workspace's ids, filters and sorts, Idempotency-Key; and the acceptance page
// as a brand-new person meets it (no account, signs in by e-mail link, joins with the button).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mailCommand } from '../../api/cli/sign-in.js';
import { createInvitationsSlice } from '../../api/invitations/slice.js';
import { slices } from '../../api/slices.js';
import { LocalMailbox } from '../../infra/mail/local-mailbox.js';
import { runInvitationCommand } from '../../commands/invitations/invitation-commands.js';
import { memberIdOf } from '../../domain/workspaces/views.js';
import { secretDigest } from '../../infra/crypto/digests.js';
import {
  continueSignIn,
  formField,
  mergeCookies,
  postForm,
  signInBrowser,
} from '../support/browser-sign-in.js';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../support/workspace.js';

let service: TestService;
/** The invitations' clock runs this far ahead of the real one: tests move it past an expiry. */
let clockAheadMs = 0;
/** Sending fails this many more times (an SMTP server that is down). */
let mailFailures = 0;

beforeAll(async () => {
  const invitations = createInvitationsSlice({
    now: () => new Date(Date.now() + clockAheadMs),
    mailer: (real) => ({
      async send(message) {
        if (mailFailures > 0) {
          mailFailures -= 1;
          throw new Error('SMTP server unreachable');
        }
        return real.send(message);
      },
    }),
  });
  service = await startTestService({
    slices: slices.map((s) => (s.name === 'invitations' ? invitations : s)),
  });
});
afterAll(async () => service?.stop());

interface Invitation {
  id: string;
  email: string;
  roleKey: string;
  roleName?: string;
  status: string;
  expiresAt: string;
  createdAt: string;
}
interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}

const db = () => service.runtime.database.db as Kysely<unknown>;
const address = (name = 'guest') => `${name}-${randomUUID().slice(0, 8)}@example.org`;
const invitationsPath = (orgId: string) => `/v1/orgs/${orgId}/invitations`;

function invite(
  ws: TestWorkspace,
  body: unknown,
  token = ws.tokens.owner,
  headers: Record<string, string> = {},
) {
  return service.request('POST', invitationsPath(ws.orgId), { token, body, headers });
}

async function invited(ws: TestWorkspace, email: string, roleKey = 'editor'): Promise<Invitation> {
  const res = await invite(ws, { email, roleKey });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: Invitation }).data;
}

async function list(ws: TestWorkspace, query = '', token = ws.tokens.admin): Promise<Invitation[]> {
  const res = await service.request('GET', `${invitationsPath(ws.orgId)}${query}`, { token });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: Invitation[] }).data;
}

/** What `npm run -s cli -- mail last --to <email>` prints; the acceptance link is its last line. */
async function cliMail(email: string): Promise<string[]> {
  const lines: string[] = [];
  const code = await mailCommand(['last', '--to', email], {
    db: db(),
    publicBaseUrl: 'http://localhost:3000',
    smtpConfigured: false,
    out: (line) => lines.push(...line.split('\n')),
  });
  expect(code).toBe(0);
  return lines;
}

async function mailedToken(email: string): Promise<{ token: string; link: string }> {
  const lines = await cliMail(email);
  const link = lines[lines.length - 1]!;
  expect(link).toMatch(/^http:\/\/localhost:3000\/invitations\/accept\?token=spi_[A-Za-z0-9_-]{43}$/);
  return { token: new URL(link).searchParams.get('token')!, link };
}

function accept(token: string, userToken: string, headers: Record<string, string> = {}) {
  return service.request('POST', '/v1/invitations/accept', { token: userToken, body: { token }, headers });
}

async function workspacesOf(userToken: string) {
  const res = await service.request('GET', '/v1/orgs', { token: userToken });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ id: string; role: string }> }).data;
}

async function expectError(res: Response, status: number, code?: string): Promise<ErrorBody> {
  const body = (await res.json()) as ErrorBody;
  expect(res.status, JSON.stringify(body)).toBe(status);
  if (code !== undefined) expect(body.code).toBe(code);
  return body;
}

describe('the invitation flow end to end', () => {
  test('invite, read the mail, accept as the invitee, and the invitee is a member with the invited role', async () => {
    const ws = await createTestWorkspace(service, 'Northwind');
    const email = address('sam');
    const before = Date.now();
    const invitation = await invited(ws, email.toUpperCase(), 'editor');
    expect(invitation).toMatchObject({ email, roleKey: 'editor', status: 'pending' });
    expect(Object.keys(invitation).sort()).toEqual(
      ['createdAt', 'email', 'expiresAt', 'id', 'roleKey', 'status'].sort(),
    );
    const lifetime = Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt);
    expect(lifetime).toBe(7 * 24 * 3600 * 1000);
    expect(Date.parse(invitation.createdAt)).toBeGreaterThanOrEqual(before - 1000);

    const lines = await cliMail(email);
    expect(lines).toContain('Subject: Join Northwind as Editor');
    const { token } = await mailedToken(email);
    // Only the token's hash is kept: the raw token appears in no event.
    const { rows } = await service.runtime.database.pool.query<{ n: string }>(
      `select count(*) as n from es_events where data::text like $1`,
      [`%${token}%`],
    );
    expect(Number(rows[0]!.n)).toBe(0);

    // The invitee has an account without any workspace: a user-only token accepts.
    const invitee = await service.userToken(email);
    expect(await workspacesOf(invitee.token)).toEqual([]);
    const res = await accept(token, invitee.token);
    expect(res.status, await res.clone().text()).toBe(200);
    const { data } = (await res.json()) as { data: { orgId: string; orgSlug: string; orgName: string } };
    expect(data).toEqual({ orgId: ws.orgId, orgSlug: expect.stringMatching(/^ws-/), orgName: 'Northwind' });

    expect(await workspacesOf(invitee.token)).toEqual([
      expect.objectContaining({ id: ws.orgId, role: 'editor', roleName: 'Editor' }),
    ]);
    const exchanged = await service.request('POST', '/v1/auth/token', {
      token: invitee.token,
      body: { orgId: ws.orgId },
    });
    expect(exchanged.status).toBe(200);
    const scoped = ((await exchanged.json()) as { data: { accessToken: string; role: string } }).data;
    expect(scoped.role).toBe('editor');
    const tags = await service.request('GET', `${ws.base}/tags`, { token: scoped.accessToken });
    expect(tags.status).toBe(200);

    const members = await service.request('GET', `/v1/orgs/${ws.orgId}/members`, { token: ws.tokens.owner });
    expect(members.status).toBe(200);
    const listed = (
      (await members.json()) as { data: Array<{ userId: string; email: string; roleKey: string }> }
    ).data;
    expect(listed).toContainEqual(
      expect.objectContaining({ userId: invitee.userId, email, roleKey: 'editor' }),
    );

    expect(await list(ws, `?filter[email]=${encodeURIComponent(email)}`)).toEqual([
      expect.objectContaining({ id: invitation.id, status: 'accepted', roleName: 'Editor' }),
    ]);
  });

  test('every invalid acceptance is refused with its own answer and changes nothing', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('ines');
    await invited(ws, email, 'viewer');
    const { token } = await mailedToken(email);
    const invitee = await service.userToken(email);
    const stranger = await service.userToken(address('stranger'));

    const refusals: Array<[string, () => Promise<Response>, number, string]> = [
      ['an unknown token', () => accept(`spi_${'x'.repeat(43)}`, invitee.token), 404, 'invitation_not_found'],
      ['a user with another address', () => accept(token, stranger.token), 403, 'invitation_email_mismatch'],
    ];
    for (const [name, run, status, code] of refusals) {
      const events = await eventCount(service);
      const res = await run();
      expect(res.status, name).toBe(status);
      expect(((await res.json()) as ErrorBody).code, name).toBe(code);
      expect(await eventCount(service), name).toBe(events);
    }
    expect(await workspacesOf(stranger.token)).toEqual([]);

    // Accepted once; the second time is a 409 and changes nothing.
    expect((await accept(token, invitee.token)).status).toBe(200);
    const events = await eventCount(service);
    await expectError(await accept(token, invitee.token), 409, 'invitation_already_accepted');
    expect(await eventCount(service)).toBe(events);
    expect(await workspacesOf(invitee.token)).toEqual([
      expect.objectContaining({ id: ws.orgId, role: 'viewer' }),
    ]);

    // Assistants and malformed bodies.
    await expectError(await service.request('POST', '/v1/invitations/accept', { body: { token } }), 401);
    const bad = await expectError(
      await service.request('POST', '/v1/invitations/accept', { token: invitee.token, body: {} }),
      400,
    );
    expect(bad.details?.[0]?.path).toBe('body.token');
  });

  test('stopped between using up the invitation and adding the member: accepting again completes it, once', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('kai');
    const invitation = await invited(ws, email, 'reviewer');
    const { token } = await mailedToken(email);
    const invitee = await service.userToken(email);
    // The first of the two appends of an acceptance, alone: what a process stopped between them leaves.
    await runInvitationCommand(
      service.runtime.commands,
      invitation.id,
      ws.orgId,
      {
        type: 'AcceptInvitation',
        tokenHash: secretDigest(token),
        userId: invitee.userId,
        userEmail: email,
        now: new Date().toISOString(),
      },
      { orgId: ws.orgId, actor: invitee.userId, correlationId: randomUUID(), now: new Date().toISOString() },
    );
    expect(await workspacesOf(invitee.token)).toEqual([]);

    expect((await accept(token, invitee.token)).status).toBe(200);
    expect(await workspacesOf(invitee.token)).toEqual([
      expect.objectContaining({ id: ws.orgId, role: 'reviewer' }),
    ]);
    await expectError(await accept(token, invitee.token), 409, 'invitation_already_accepted');

    // Removed afterwards, the old invitation does not bring them back.
    const removed = await service.request(
      'DELETE',
      `/v1/orgs/${ws.orgId}/members/${memberIdOf(ws.orgId, invitee.userId)}`,
      {
        token: ws.tokens.owner,
      },
    );
    expect(removed.status).toBe(200);
    const events = await eventCount(service);
    await expectError(await accept(token, invitee.token), 409, 'invitation_already_accepted');
    expect(await eventCount(service)).toBe(events);
    expect(await workspacesOf(invitee.token)).toEqual([]);
  });

  test('a revoked invitation cannot be accepted (410), and its revoking is answered', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('rita');
    const invitation = await invited(ws, email);
    const { token } = await mailedToken(email);
    const revoke = await service.request('DELETE', `${invitationsPath(ws.orgId)}/${invitation.id}`, {
      token: ws.tokens.admin,
    });
    expect(revoke.status).toBe(200);
    expect(await revoke.json()).toEqual({ data: { id: invitation.id, status: 'revoked' } });

    const invitee = await service.userToken(email);
    const events = await eventCount(service);
    await expectError(await accept(token, invitee.token), 410, 'invitation_revoked');
    expect(await eventCount(service)).toBe(events);
    expect(await workspacesOf(invitee.token)).toEqual([]);

    // Revoking again answers the same and appends nothing; after a revoke the address can be invited again.
    const again = await service.request('DELETE', `${invitationsPath(ws.orgId)}/${invitation.id}`, {
      token: ws.tokens.admin,
    });
    expect(await again.json()).toEqual({ data: { id: invitation.id, status: 'revoked' } });
    expect(await eventCount(service)).toBe(events);
    await invited(ws, email);
  });

  test('an expired invitation cannot be accepted (410); it reads as expired and can be replaced', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('eve');
    const invitation = await invited(ws, email);
    const { token } = await mailedToken(email);
    const invitee = await service.userToken(email);
    clockAheadMs = 7 * 24 * 3600 * 1000 + 1000;
    try {
      const events = await eventCount(service);
      await expectError(await accept(token, invitee.token), 410, 'invitation_expired');
      expect(await eventCount(service)).toBe(events);
      expect(await workspacesOf(invitee.token)).toEqual([]);
      expect(await list(ws)).toEqual([expect.objectContaining({ id: invitation.id, status: 'expired' })]);
      expect(await list(ws, '?filter[status]=expired')).toHaveLength(1);
      expect(await list(ws, '?filter[status]=pending')).toHaveLength(0);
      // An expired invitation does not block a new one to the same address.
      const renewed = await invited(ws, email);
      expect(renewed.status).toBe('pending');
    } finally {
      clockAheadMs = 0;
    }
  });
});

describe('inviting', () => {
  test('owners and admins manage invitations; the other roles get 403', async () => {
    const ws = await createTestWorkspace(service);
    const invitation = await invited(ws, address());
    for (const role of ['reviewer', 'editor', 'viewer'] as const) {
      const token = ws.tokens[role];
      await expectError(await invite(ws, { email: address(), roleKey: 'viewer' }, token), 403);
      await expectError(await service.request('GET', invitationsPath(ws.orgId), { token }), 403);
      await expectError(
        await service.request('DELETE', `${invitationsPath(ws.orgId)}/${invitation.id}`, { token }),
        403,
      );
    }
    const byAdmin = await invite(ws, { email: address(), roleKey: 'admin' }, ws.tokens.admin);
    expect(byAdmin.status).toBe(201);
  });

  test('only an owner invites an owner, or revokes an owner invitation', async () => {
    const ws = await createTestWorkspace(service);
    const events = await eventCount(service);
    const email = address('boss');
    await expectError(await invite(ws, { email, roleKey: 'owner' }, ws.tokens.admin), 403, 'owner_only');
    expect(await eventCount(service)).toBe(events);
    expect(await new LocalMailbox(db()).lastTo(email)).toBeNull();

    const invitation = await invited(ws, email, 'owner');
    const path = `${invitationsPath(ws.orgId)}/${invitation.id}`;
    await expectError(await service.request('DELETE', path, { token: ws.tokens.admin }), 403, 'owner_only');
    const byOwner = await service.request('DELETE', path, { token: ws.tokens.owner });
    expect(byOwner.status).toBe(200);

    // An owner invitation accepted makes an owner.
    const second = address('boss2');
    await invited(ws, second, 'owner');
    const invitee = await service.userToken(second);
    expect((await accept((await mailedToken(second)).token, invitee.token)).status).toBe(200);
    expect(await workspacesOf(invitee.token)).toEqual([expect.objectContaining({ role: 'owner' })]);
  });

  test('an active member, or an address with a pending invitation, is a 409 and sends nothing', async () => {
    const ws = await createTestWorkspace(service);
    const member = await service.userToken(address('member'), { orgId: ws.orgId, role: 'viewer' });
    const events = await eventCount(service);
    await expectError(
      await invite(ws, { email: member.email.toUpperCase(), roleKey: 'editor' }),
      409,
      'already_member',
    );
    expect(await new LocalMailbox(db()).lastTo(member.email)).toBeNull();

    const email = address('twice');
    const first = await invited(ws, email);
    const mails = await service.runtime.database.pool.query<{ n: string }>(
      'select count(*) as n from local_mailbox where lower(recipient) = $1',
      [email],
    );
    const afterFirst = await eventCount(service);
    expect(afterFirst).toBe(events + 1);
    const body = await expectError(await invite(ws, { email, roleKey: 'viewer' }), 409, 'invitation_pending');
    expect(body.error).toContain(first.id);
    expect(await eventCount(service)).toBe(afterFirst);
    const mailsAfter = await service.runtime.database.pool.query<{ n: string }>(
      'select count(*) as n from local_mailbox where lower(recipient) = $1',
      [email],
    );
    expect(mailsAfter.rows[0]!.n).toBe(mails.rows[0]!.n);
  });

  test('bad input is a 400 naming the field, with nothing recorded or mailed', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('bad');
    const events = await eventCount(service);
    const cases: Array<[unknown, string]> = [
      [{ email, roleKey: 'superuser' }, 'body.roleKey'],
      [{ email: 'not-an-address', roleKey: 'editor' }, 'body.email'],
      [{ roleKey: 'editor' }, 'body.email'],
      [{ email }, 'body.roleKey'],
      [{ email, roleKey: 'editor', extra: 1 }, 'body.extra'],
    ];
    for (const [body, path] of cases) {
      const error = await expectError(await invite(ws, body), 400);
      expect(
        error.details?.map((d) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect(await eventCount(service)).toBe(events);
    expect(await new LocalMailbox(db()).lastTo(email)).toBeNull();
  });

  test("another workspace's invitation is a 404; its path with another workspace's id is a 403", async () => {
    const ours = await createTestWorkspace(service);
    const theirs = await createTestWorkspace(service);
    const theirInvitation = await invited(theirs, address());
    const events = await eventCount(service);
    await expectError(
      await service.request('DELETE', `${invitationsPath(ours.orgId)}/${theirInvitation.id}`, {
        token: ours.tokens.owner,
      }),
      404,
      'invitation_not_found',
    );
    await expectError(
      await service.request('DELETE', `${invitationsPath(ours.orgId)}/${randomUUID()}`, {
        token: ours.tokens.owner,
      }),
      404,
    );
    await expectError(
      await service.request('DELETE', `${invitationsPath(theirs.orgId)}/${theirInvitation.id}`, {
        token: ours.tokens.owner,
      }),
      403,
    );
    const notAnId = await expectError(
      await service.request('DELETE', `${invitationsPath(ours.orgId)}/nope`, { token: ours.tokens.owner }),
      400,
    );
    expect(notAnId.details?.[0]?.path).toBe('param.invitationId');
    expect(await eventCount(service)).toBe(events);
    expect(await list(ours)).toEqual([]);
  });

  test('mail that cannot be sent: retried, then a 503 mail_not_sent with nothing recorded', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('unlucky');
    const events = await eventCount(service);
    mailFailures = 3;
    try {
      await expectError(await invite(ws, { email, roleKey: 'editor' }), 503, 'mail_not_sent');
    } finally {
      mailFailures = 0;
    }
    expect(await eventCount(service)).toBe(events);
    expect(await list(ws)).toEqual([]);
    // A server that fails twice and then takes the mail: the retries get it through, once.
    mailFailures = 2;
    try {
      const invitation = await invited(ws, email);
      expect(invitation.status).toBe('pending');
    } finally {
      mailFailures = 0;
    }
    const { token } = await mailedToken(email);
    const invitee = await service.userToken(email);
    expect((await accept(token, invitee.token)).status).toBe(200);
  });

  test('an active member accepting keeps their role; the invitation is used up', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('early');
    const invitation = await invited(ws, email, 'admin');
    const { token } = await mailedToken(email);
    // They joined meanwhile (another way in) as a viewer.
    const member = await service.userToken(email, { orgId: ws.orgId, role: 'viewer' });
    const res = await accept(token, member.token);
    expect(res.status).toBe(200);
    expect(await workspacesOf(member.token)).toEqual([
      expect.objectContaining({ id: ws.orgId, role: 'viewer' }),
    ]);
    expect(await list(ws)).toEqual([expect.objectContaining({ id: invitation.id, status: 'accepted' })]);
  });

  test('a suspended member is not invited (409), nor can an earlier invitation reactivate them (403)', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('suspended');
    await invited(ws, email, 'editor');
    const { token } = await mailedToken(email);
    // Meanwhile they joined another way, and were suspended.
    const member = await service.userToken(email, { orgId: ws.orgId, role: 'viewer' });
    const members = await service.request('GET', `/v1/orgs/${ws.orgId}/members`, { token: ws.tokens.owner });
    const memberId = ((await members.json()) as { data: Array<{ id: string; userId: string }> }).data.find(
      (m) => m.userId === member.userId,
    )!.id;
    const suspend = await service.request('PATCH', `/v1/orgs/${ws.orgId}/members/${memberId}`, {
      token: ws.tokens.owner,
      body: { status: 'suspended' },
    });
    expect(suspend.status, await suspend.clone().text()).toBe(200);

    const userOnly = await service.userToken(email);
    const events = await eventCount(service);
    await expectError(await accept(token, userOnly.token), 403, 'membership_suspended');
    await expectError(await invite(ws, { email, roleKey: 'viewer' }), 409, 'already_member');
    expect(await eventCount(service)).toBe(events);
    expect(await workspacesOf(userOnly.token)).toEqual([]);
  });

  test("a deleted workspace's invitation is refused (410 workspace_deleted) and stays unused", async () => {
    const ws = await createTestWorkspace(service, 'Gone Ltd');
    const email = address('late');
    await invited(ws, email);
    const { token, link } = await mailedToken(email);
    const deleted = await service.request('DELETE', `/v1/orgs/${ws.orgId}`, { token: ws.tokens.owner });
    expect(deleted.status, await deleted.clone().text()).toBeLessThan(300);
    const invitee = await service.userToken(email);
    const events = await eventCount(service);
    await expectError(await accept(token, invitee.token), 410, 'workspace_deleted');
    expect(await eventCount(service)).toBe(events);
    expect(await workspacesOf(invitee.token)).toEqual([]);
    const page = await service.request('GET', `${new URL(link).pathname}${new URL(link).search}`);
    expect(page.status).toBe(410);
  });

  test('an Idempotency-Key replays the first answer and invites once', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('keyed');
    const key = randomUUID();
    const first = await invite(ws, { email, roleKey: 'editor' }, ws.tokens.owner, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    const events = await eventCount(service);
    const second = await invite(ws, { email, roleKey: 'editor' }, ws.tokens.owner, {
      'Idempotency-Key': key,
    });
    expect(second.status).toBe(201);
    expect(second.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    expect(await eventCount(service)).toBe(events);
    expect(await list(ws)).toHaveLength(1);
    await expectError(
      await invite(ws, { email, roleKey: 'viewer' }, ws.tokens.owner, { 'Idempotency-Key': key }),
      422,
      'idempotency_key_reused',
    );
  });
});

describe('listing invitations', () => {
  test('filters, sorts and pages', async () => {
    const ws = await createTestWorkspace(service);
    const a = await invited(ws, `a-${randomUUID().slice(0, 6)}@alpha.example`, 'viewer');
    const b = await invited(ws, `b-${randomUUID().slice(0, 6)}@beta.example`, 'admin');
    const c = await invited(ws, `c-${randomUUID().slice(0, 6)}@alpha.example`, 'editor');
    await service.request('DELETE', `${invitationsPath(ws.orgId)}/${b.id}`, { token: ws.tokens.owner });
    const ids = (items: Invitation[]) => items.map((i) => i.id);

    // Default: newest first.
    expect(ids(await list(ws))).toEqual([c.id, b.id, a.id]);
    expect(ids(await list(ws, '?sortBy=createdAt&sortDir=asc'))).toEqual([a.id, b.id, c.id]);
    expect(ids(await list(ws, '?sortBy=email&sortDir=desc'))).toEqual([c.id, b.id, a.id]);
    // Roles sort by rank: ascending is owner, admin, reviewer, editor, viewer.
    expect(ids(await list(ws, '?sortBy=roleKey&sortDir=asc'))).toEqual([b.id, c.id, a.id]);
    expect(ids(await list(ws, '?sortBy=roleKey'))).toEqual([a.id, c.id, b.id]);
    expect(ids(await list(ws, '?sortBy=status&sortDir=asc'))).toEqual(expect.arrayContaining([a.id, c.id]));
    expect((await list(ws, '?sortBy=status&sortDir=asc'))[2]!.id).toBe(b.id);
    expect(ids(await list(ws, '?sortBy=expiresAt&sortDir=asc'))).toEqual([a.id, b.id, c.id]);

    expect(ids(await list(ws, '?filter[status]=revoked'))).toEqual([b.id]);
    expect(ids(await list(ws, '?filter[status]=pending,revoked&filterOp[status]=in'))).toHaveLength(3);
    expect(ids(await list(ws, '?filter[email]=ALPHA.example&filterOp[email]=contains'))).toEqual([
      c.id,
      a.id,
    ]);
    expect(ids(await list(ws, `?filter[email]=${encodeURIComponent(a.email.toUpperCase())}`))).toEqual([
      a.id,
    ]);
    expect(ids(await list(ws, '?filter[roleKey]=admin,editor&filterOp[roleKey]=in'))).toEqual([c.id, b.id]);
    expect(ids(await list(ws, '?filter[roleKey]=viewer'))).toEqual([a.id]);
    const from = encodeURIComponent(b.createdAt);
    expect(ids(await list(ws, `?filter[createdAtFrom]=${from}&filterOp[createdAtFrom]=gte`))).toEqual([
      c.id,
      b.id,
    ]);
    expect(ids(await list(ws, `?filter[createdAtTo]=${from}`))).toEqual([b.id, a.id]);

    expect(ids(await list(ws, '?limit=1&page=2'))).toEqual([b.id]);
    expect(ids(await list(ws, '?limit=2&page=2'))).toEqual([a.id]);
    expect((await list(ws))[0]).toEqual({
      id: c.id,
      email: c.email,
      roleKey: 'editor',
      roleName: 'Editor',
      status: 'pending',
      expiresAt: c.expiresAt,
      createdAt: c.createdAt,
    });
  });

  test('an unknown filter, operator, value or sort is a 400 naming it', async () => {
    const ws = await createTestWorkspace(service);
    const cases: Array<[string, string]> = [
      ['?filter[nope]=1', 'query.filter[nope]'],
      ['?filter[email]=a&filterOp[email]=in', 'query.filterOp[email]'],
      ['?filter[status]=lost', 'query.filter[status]'],
      ['?filter[roleKey]=boss', 'query.filter[roleKey]'],
      ['?filter[createdAtFrom]=yesterday', 'query.filter[createdAtFrom]'],
      ['?sortBy=name', 'query.sortBy'],
      ['?limit=101', 'query.limit'],
    ];
    for (const [query, path] of cases) {
      const res = await service.request('GET', `${invitationsPath(ws.orgId)}${query}`, {
        token: ws.tokens.owner,
      });
      const body = await expectError(res, 400);
      expect(
        body.details?.map((d) => d.path),
        query,
      ).toContain(path);
    }
  });
});

describe('the acceptance page', () => {
  test('a brand-new address signs in by e-mail link from the invitation and joins with the button', async () => {
    const ws = await createTestWorkspace(service, 'Contoso');
    const email = address('newcomer');
    await invited(ws, email, 'reviewer');
    const { link } = await mailedToken(email);
    const invitationPath = `${new URL(link).pathname}${new URL(link).search}`;

    // No session: off to the sign-in page, the address prefilled, back to the invitation afterwards.
    let cookie = '';
    const opened = await service.request('GET', invitationPath);
    expect(opened.status).toBe(303);
    const signInUrl = opened.headers.get('location')!;
    expect(signInUrl).toBe(`/sign-in?return_to=%2Finvitations%2Faccept&email=${encodeURIComponent(email)}`);
    cookie = mergeCookies(cookie, opened);
    expect(cookie).toContain('invitation_token=');

    const form = await service.request('GET', signInUrl, { headers: { cookie } });
    cookie = mergeCookies(cookie, form);
    const formHtml = await form.text();
    expect(formField(formHtml, 'return_to')).toBe('/invitations/accept');
    expect(formHtml).toContain(`value="${email}"`);
    const asked = await postForm(
      service,
      '/sign-in',
      { email, csrf: formField(formHtml, 'csrf'), return_to: formField(formHtml, 'return_to') },
      cookie,
    );
    expect(asked.status).toBe(200);
    // The sign-in link does not carry the invitation token (it waits in the browser's cookie).
    const { rows } = await service.runtime.database.pool.query<{ return_to: string }>(
      'select return_to from sign_in_links where email = $1',
      [email],
    );
    expect(rows.map((r) => r.return_to)).toEqual(['/invitations/accept']);

    const signedIn = await continueSignIn(service, email, cookie);
    expect(signedIn.done.status).toBe(303);
    expect(signedIn.done.headers.get('location')).toBe('/invitations/accept');
    cookie = signedIn.cookie;

    const join = await service.request('GET', '/invitations/accept', { headers: { cookie } });
    expect(join.status).toBe(200);
    const joinHtml = await join.text();
    expect(joinHtml).toContain('Join Contoso as Reviewer');
    expect(join.headers.get('content-security-policy')).toContain("default-src 'none'");

    // A POST without this session's CSRF token changes nothing.
    const events = await eventCount(service);
    const forged = await postForm(
      service,
      '/invitations/accept',
      { token: formField(joinHtml, 'token'), csrf: 'forged' },
      cookie,
    );
    expect(forged.status).toBe(403);
    expect(await eventCount(service)).toBe(events);

    const joined = await postForm(
      service,
      '/invitations/accept',
      { token: formField(joinHtml, 'token'), csrf: formField(joinHtml, 'csrf') },
      cookie,
    );
    expect(joined.status).toBe(200);
    expect(await joined.text()).toContain('You joined Contoso');
    cookie = mergeCookies(cookie, joined);
    expect(cookie).not.toContain('invitation_token=');

    const newcomer = await service.userToken(email);
    expect(await workspacesOf(newcomer.token)).toEqual([
      expect.objectContaining({ id: ws.orgId, role: 'reviewer' }),
    ]);
    const me = await service.request('GET', '/v1/users/me', { token: newcomer.token });
    expect(((await me.json()) as { data: { emailVerified: boolean | null } }).data.emailVerified).toBe(true);

    // The link used once more: the page says so.
    const reused = await service.request('GET', invitationPath, { headers: { cookie } });
    expect(reused.status).toBe(409);
    expect(await reused.text()).toContain('accepted already');
  });

  test('signed in as someone else, the page says whose invitation it is; unknown links say so', async () => {
    const ws = await createTestWorkspace(service);
    const email = address('invited');
    await invited(ws, email);
    const { link } = await mailedToken(email);
    const other = address('other');
    const { cookie } = await signInBrowser(service, other);

    const wrong = await service.request('GET', `${new URL(link).pathname}${new URL(link).search}`, {
      headers: { cookie },
    });
    expect(wrong.status).toBe(403);
    const text = await wrong.text();
    expect(text).toContain(email);
    expect(text).toContain(other);

    const unknown = await service.request('GET', `/invitations/accept?token=spi_${'y'.repeat(43)}`);
    expect(unknown.status).toBe(404);
  });
});
