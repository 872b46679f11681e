// POST/GET /v1/orgs through the whole service: happy path, the bad-input battery (each answer and nothing
// changed), filters and sort, idempotency, and token exchange between workspaces.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAuthService } from '../../api/auth/auth-service.js';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { billingSettled } from '../support/workspace.js';

let service: TestService;
let ada: { userId: string; token: string };

beforeAll(async () => {
  service = await startTestService();
  ada = await service.userToken('ada@example.org');
});
afterAll(async () => service.stop());

/**
 * POST /v1/orgs; a created workspace's trial and credit period (opened in the background at once) are waited for,
 * so a test that counts events next does not see them arrive.
 */
async function createOrg(token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await service.request('POST', '/v1/orgs', { token, body, headers });
  if (res.status === 201) {
    const { data } = (await res.clone().json()) as { data: { id: string } };
    await billingSettled(service, data.id);
  }
  return res;
}

describe('POST /v1/orgs and GET /v1/orgs', () => {
  test('creates a workspace with the caller as owner, listed at once with role and roleName', async () => {
    const res = await createOrg(ada.token, { name: 'Acme', slug: 'acme' });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    expect(data).toMatchObject({
      slug: 'acme',
      name: 'Acme',
      status: 'active',
      avatarUrl: null,
      ownerId: ada.userId,
    });
    expect(typeof data.id).toBe('string');
    expect(res.headers.get('x-request-id')).toBeTruthy();

    const list = await service.request('GET', '/v1/orgs', { token: ada.token });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { data: unknown[] };
    expect(body.data).toEqual([
      {
        id: data.id,
        slug: 'acme',
        name: 'Acme',
        status: 'active',
        avatarUrl: null,
        role: 'owner',
        roleName: 'Owner',
      },
    ]);
  });

  test('a duplicate slug is a 409 and changes nothing', async () => {
    const bob = await service.userToken('bob@example.org');
    const before = await eventCount(service);
    const res = await createOrg(bob.token, { name: 'Other Acme', slug: 'acme' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: expect.stringContaining('acme'), code: 'slug_taken' });
    expect(await eventCount(service)).toBe(before);
    const list = (await (await service.request('GET', '/v1/orgs', { token: bob.token })).json()) as {
      data: unknown[];
    };
    expect(list.data).toEqual([]);
  });

  test('another user does not see the workspace', async () => {
    const eve = await service.userToken('eve@example.org');
    const list = (await (await service.request('GET', '/v1/orgs', { token: eve.token })).json()) as {
      data: unknown[];
    };
    expect(list.data).toEqual([]);
  });
});

describe('bad input battery: right status and error body, nothing changes', () => {
  const cases: Array<{
    name: string;
    run: () => Promise<Response>;
    status: number;
    check?: (body: { error: string; details: Array<{ path: string; message: string }> }) => void;
  }> = [
    {
      name: 'malformed JSON',
      run: () => createOrg(ada.token, '{"name": "x", "slug": '),
      status: 400,
      check: (b) => expect(b.error).toMatch(/Malformed JSON/i),
    },
    {
      name: 'wrong types',
      run: () => createOrg(ada.token, { name: 42, slug: ['x'] }),
      status: 400,
      check: (b) => expect(b.details.map((d) => d.path).sort()).toEqual(['body.name', 'body.slug']),
    },
    {
      name: 'missing fields',
      run: () => createOrg(ada.token, {}),
      status: 400,
      check: (b) => {
        expect(b.details).toEqual(
          expect.arrayContaining([
            { path: 'body.name', message: 'Required' },
            { path: 'body.slug', message: 'Required' },
          ]),
        );
      },
    },
    {
      name: 'an unknown field',
      run: () => createOrg(ada.token, { name: 'A', slug: 'a-1', owner: 'me' }),
      status: 400,
      check: (b) => expect(b.details).toEqual([{ path: 'body.owner', message: 'Unknown field' }]),
    },
    {
      name: 'a bad slug',
      run: () => createOrg(ada.token, { name: 'A', slug: 'Not A Slug' }),
      status: 400,
      check: (b) => expect(b.details[0]!.path).toBe('body.slug'),
    },
    {
      name: 'an oversized body',
      run: () => createOrg(ada.token, { name: 'x'.repeat(2 * 1024 * 1024), slug: 'big' }),
      status: 413,
    },
    {
      name: 'no token',
      run: () => service.request('POST', '/v1/orgs', { body: { name: 'A', slug: 'a' } }),
      status: 401,
    },
    {
      name: 'a malformed token',
      run: () => createOrg('not-a-jwt', { name: 'A', slug: 'a' }),
      status: 401,
    },
    {
      name: 'an expired token',
      run: async () => {
        const past = await createAuthService({
          mode: 'local',
          dataDir: service.dataDir,
          accessTokenTtlSeconds: 60,
          issuer: 'http://localhost:3000',
          now: () => new Date(Date.now() - 2 * 3600_000),
        });
        const { token } = await past.issueAccessToken({ userId: ada.userId, orgId: null, role: null });
        return createOrg(token, { name: 'A', slug: 'a' });
      },
      status: 401,
    },
    {
      name: 'a token signed with another key',
      run: async () => {
        const other = await createAuthService({
          mode: 'local',
          dataDir: await mkdtemp(path.join(os.tmpdir(), 'other-key-')),
          accessTokenTtlSeconds: 600,
          issuer: 'http://localhost:3000',
        });
        const { token } = await other.issueAccessToken({ userId: ada.userId, orgId: null, role: null });
        return createOrg(token, { name: 'A', slug: 'a' });
      },
      status: 401,
    },
    {
      name: "another workspace's id (token exchange)",
      run: async () => {
        const bob = await service.userToken('bob2@example.org');
        const res = await createOrg(bob.token, { name: 'Bobs', slug: 'bobs' });
        const { data } = (await res.json()) as { data: { id: string } };
        return service.request('POST', '/v1/auth/token', { token: ada.token, body: { orgId: data.id } });
      },
      status: 404,
    },
    {
      name: "another workspace's id (activeOrgId)",
      run: async () => {
        const bob = await service.userToken('bob3@example.org');
        const res = await createOrg(bob.token, { name: 'Bobs 3', slug: 'bobs-3' });
        const { data } = (await res.json()) as { data: { id: string } };
        return service.request('PATCH', '/v1/users/me', { token: ada.token, body: { activeOrgId: data.id } });
      },
      status: 404,
    },
    {
      name: 'an unknown filter field',
      run: () => service.request('GET', '/v1/orgs?filter[owner]=x', { token: ada.token }),
      status: 400,
    },
    {
      name: 'an operator the field does not allow',
      run: () =>
        service.request('GET', '/v1/orgs?filter[status]=active&filterOp[status]=contains', {
          token: ada.token,
        }),
      status: 400,
    },
    {
      name: 'a limit above the maximum',
      run: () => service.request('GET', '/v1/orgs?limit=101', { token: ada.token }),
      status: 400,
    },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      // Setup writes of a case (another user's workspace) happen inside run(); count around the request alone.
      const adaOrgsBefore = await (await service.request('GET', '/v1/orgs', { token: ada.token })).text();
      const res = await c.run();
      expect(res.status).toBe(c.status);
      const body = (await res.json()) as { error: string; details: Array<{ path: string; message: string }> };
      expect(typeof body.error).toBe('string');
      c.check?.(body);
      const adaOrgsAfter = await (await service.request('GET', '/v1/orgs', { token: ada.token })).text();
      expect(adaOrgsAfter).toBe(adaOrgsBefore);
    });
  }

  test('a refused write appends no event', async () => {
    const before = await eventCount(service);
    for (const body of ['{bad', { name: 1 }, { name: 'A', slug: 'acme' }, { name: 'A', slug: '-' }]) {
      const res = await createOrg(ada.token, body);
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
    expect(await eventCount(service)).toBe(before);
  });
});

describe('list query', () => {
  test('filters, operators and sort of the spec', async () => {
    const carol = await service.userToken('carol@example.org');
    for (const [name, slug] of [
      ['Zeta Labs', 'zeta'],
      ['Alpha Works', 'alpha'],
      ['Beta Studio', 'beta-studio'],
    ]) {
      expect((await createOrg(carol.token, { name, slug })).status).toBe(201);
    }
    const get = async (q: string) =>
      (
        (await (await service.request('GET', `/v1/orgs${q}`, { token: carol.token })).json()) as {
          data: Array<{ slug: string }>;
        }
      ).data.map((w) => w.slug);
    expect(await get('')).toEqual(['alpha', 'beta-studio', 'zeta']);
    expect(await get('?sortBy=slug&sortDir=desc')).toEqual(['zeta', 'beta-studio', 'alpha']);
    expect(await get('?filter[name]=studio&filterOp[name]=contains')).toEqual(['beta-studio']);
    expect(await get('?filter[slug]=zeta')).toEqual(['zeta']);
    expect(await get('?filter[status]=active&filterOp[status]=in')).toHaveLength(3);
    expect(await get('?limit=2&page=2')).toEqual(['zeta']);
  });
});

describe('Idempotency-Key', () => {
  test('the same key and body returns the first response; another body is refused; one workspace exists', async () => {
    const dan = await service.userToken('dan@example.org');
    const key = 'create-dan-1';
    const first = await createOrg(dan.token, { name: 'Dan', slug: 'dan' }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const firstBody = await first.json();
    const again = await createOrg(dan.token, { name: 'Dan', slug: 'dan' }, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);
    // Its trial starts right after it (api/billing): counted before the refused request.
    await billingSettled(service, (firstBody as { data: { id: string } }).data.id);
    const before = await eventCount(service);
    const other = await createOrg(dan.token, { name: 'Dan 2', slug: 'dan-2' }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await eventCount(service)).toBe(before);

    const list = (await (await service.request('GET', '/v1/orgs', { token: dan.token })).json()) as {
      data: unknown[];
    };
    expect(list.data).toHaveLength(1);
  });

  test('concurrent requests with one key create one workspace and answer alike', async () => {
    const erin = await service.userToken('erin@example.org');
    const responses = await Promise.all(
      Array.from({ length: 8 }, () =>
        createOrg(erin.token, { name: 'Erin', slug: 'erin' }, { 'idempotency-key': 'erin-key' }),
      ),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    const list = (await (await service.request('GET', '/v1/orgs', { token: erin.token })).json()) as {
      data: unknown[];
    };
    expect(list.data).toHaveLength(1);
  });

  test('a bad key is a 400', async () => {
    const res = await createOrg(ada.token, { name: 'K', slug: 'k' }, { 'idempotency-key': 'x'.repeat(300) });
    expect(res.status).toBe(400);
  });
});

describe('workspace tokens', () => {
  test('a member exchanges their token for one scoped to their workspace', async () => {
    const fred = await service.userToken('fred@example.org');
    const created = (await (await createOrg(fred.token, { name: 'Fred', slug: 'fred' })).json()) as {
      data: { id: string };
    };
    const res = await service.request('POST', '/v1/auth/token', {
      token: fred.token,
      body: { orgId: created.data.id },
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { accessToken: string; orgId: string; role: string } };
    expect(data).toMatchObject({ orgId: created.data.id, role: 'owner' });
    const principal = await service.runtime.auth.verify(data.accessToken);
    expect(principal).toMatchObject({ userId: fred.userId, orgId: created.data.id, role: 'owner' });
    expect(principal.permissions).toContain('posts:approve');
  });
});
