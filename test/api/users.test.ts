// GET and PATCH /v1/users/me through the whole service.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventCount, startTestService, type TestService } from '../support/runtime.js';
import { billingSettled } from '../support/workspace.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

describe('/v1/users/me', () => {
  test('returns the signed-in user in the spec shape', async () => {
    const ada = await service.userToken('Ada@Example.org');
    const res = await service.request('GET', '/v1/users/me', { token: ada.token });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Record<string, unknown> };
    expect(data).toEqual({
      id: ada.userId,
      email: 'ada@example.org',
      emailVerified: null,
      name: null,
      avatarUrl: null,
      activeOrgId: null,
      featureFlags: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  test('PATCH changes what is sent, keeps what is omitted, clears with null, and is read back at once', async () => {
    const bob = await service.userToken('bob@example.org');
    const org = (await (
      await service.request('POST', '/v1/orgs', { token: bob.token, body: { name: 'Bob', slug: 'bob' } })
    ).json()) as {
      data: { id: string };
    };
    await billingSettled(service, org.data.id);
    const patched = await service.request('PATCH', '/v1/users/me', {
      token: bob.token,
      body: {
        name: 'Bob Builder',
        avatarUrl: 'https://cdn.example.org/bob.png',
        activeOrgId: org.data.id,
        timezone: 'Europe/Berlin',
        locale: 'en-GB',
      },
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { data: unknown }).data).toMatchObject({
      name: 'Bob Builder',
      avatarUrl: 'https://cdn.example.org/bob.png',
      activeOrgId: org.data.id,
    });
    const cleared = await service.request('PATCH', '/v1/users/me', {
      token: bob.token,
      body: { avatarUrl: null },
    });
    expect(((await cleared.json()) as { data: unknown }).data).toMatchObject({
      name: 'Bob Builder',
      avatarUrl: null,
    });
    const read = (await (await service.request('GET', '/v1/users/me', { token: bob.token })).json()) as {
      data: unknown;
    };
    expect(read.data).toMatchObject({ name: 'Bob Builder', avatarUrl: null, activeOrgId: org.data.id });
  });

  test('an unchanged PATCH appends nothing', async () => {
    const cat = await service.userToken('cat@example.org');
    await service.request('PATCH', '/v1/users/me', { token: cat.token, body: { name: 'Cat' } });
    const before = await eventCount(service);
    const res = await service.request('PATCH', '/v1/users/me', { token: cat.token, body: { name: 'Cat' } });
    expect(res.status).toBe(200);
    expect(await eventCount(service)).toBe(before);
  });

  test.each([
    [{ timezone: 'Mars/Olympus' }, 'body.timezone'],
    [{ locale: 'not a locale!' }, 'body.locale'],
    [{ avatarUrl: 'javascript:alert(1)' }, 'body.avatarUrl'],
    [{ activeOrgId: 'nope' }, 'body.activeOrgId'],
    [{ name: 7 }, 'body.name'],
    [{ email: 'x@example.org' }, 'body.email'],
  ])('refuses %j naming %s, and changes nothing', async (body, path) => {
    const dee = await service.userToken('dee@example.org');
    const before = await eventCount(service);
    const res = await service.request('PATCH', '/v1/users/me', { token: dee.token, body });
    expect(res.status).toBe(400);
    const error = (await res.json()) as { details: Array<{ path: string }> };
    expect(error.details.map((d) => d.path)).toContain(path);
    expect(await eventCount(service)).toBe(before);
  });

  test('without a token: 401', async () => {
    expect((await service.request('GET', '/v1/users/me')).status).toBe(401);
    expect((await service.request('PATCH', '/v1/users/me', { body: { name: 'x' } })).status).toBe(401);
  });
});
