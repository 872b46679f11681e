// One spelling per id. An upper-case spelling of a workspace id used to be a second workspace to every rule
// keyed by the id (a tag name already taken was accepted again through it); ids are now lower-cased at the
// edge (paths, the token exchange) and a token naming an id in any other spelling is refused.
import { randomUUID } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadSigningKey } from '../../../api/auth/signing-key.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { billingSettled } from '../../support/workspace.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.stop());

/** A workspace whose id has letters (so upper case is another spelling) and its owner's user-only token. */
async function workspace(): Promise<{ orgId: string; owner: { userId: string; token: string } }> {
  const owner = await service.userToken();
  for (;;) {
    const slug = `ws-${randomUUID().slice(0, 8)}`;
    const res = await service.request('POST', '/v1/orgs', { token: owner.token, body: { name: slug, slug } });
    expect(res.status).toBe(201);
    const orgId = ((await res.json()) as { data: { id: string } }).data.id;
    await billingSettled(service, orgId);
    if (/[a-f]/.test(orgId)) return { orgId, owner };
  }
}

async function exchange(token: string, orgId: string): Promise<string> {
  const res = await service.request('POST', '/v1/auth/token', { token, body: { orgId } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { accessToken: string } }).data.accessToken;
}

const tags = (orgId: string) => `/v1/orgs/${orgId}/marketing/tags`;

describe('ids in one spelling', () => {
  test('a tag name taken in a workspace is refused through an upper-case spelling of its id (409)', async () => {
    const { orgId, owner } = await workspace();
    const token = await exchange(owner.token, orgId);
    const first = await service.request('POST', tags(orgId), { token, body: { name: 'Sales' } });
    expect(first.status).toBe(200);
    const tag = ((await first.json()) as { data: { id: string } }).data;

    // A token exchanged for the upper-case spelling, used on that spelling's path.
    const upper = orgId.toUpperCase();
    const shouting = await exchange(owner.token, upper);
    const before = await eventCount(service);
    for (const t of [shouting, token]) {
      const again = await service.request('POST', tags(upper), { token: t, body: { name: 'Sales' } });
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: 'tag_name_taken' });
    }
    expect(await eventCount(service)).toBe(before);
    // That token is for the workspace as it is spelt.
    expect(decodeJwt(shouting).org).toBe(orgId);

    // Every id in the path is canonical, not only the workspace's.
    const renamed = await service.request('PATCH', `${tags(upper)}/${tag.id.toUpperCase()}`, {
      token,
      body: { name: 'Sales EMEA' },
    });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({ data: { id: tag.id, orgId, name: 'Sales EMEA' } });
    const list = await service.request('GET', tags(upper), { token });
    expect(((await list.json()) as { data: Array<{ id: string }> }).data.map((t) => t.id)).toEqual([tag.id]);
  });

  test('a token naming a workspace or user id in upper case is refused (401), though signed with our key', async () => {
    const { orgId, owner } = await workspace();
    const key = await loadSigningKey({ dataDir: service.dataDir });
    const sign = (sub: string, org: string) =>
      new SignJWT({ org, role: 'owner' })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
        .setSubject(sub)
        .setIssuer('http://localhost:3000')
        .setAudience('urn:social-publishing:api')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key.privateKey);
    // Control: the canonical spelling is accepted.
    expect(
      (await service.request('GET', tags(orgId), { token: await sign(owner.userId, orgId) })).status,
    ).toBe(200);
    for (const token of [
      await sign(owner.userId, orgId.toUpperCase()),
      await sign(owner.userId.toUpperCase(), orgId),
    ]) {
      for (const path of [tags(orgId), tags(orgId.toUpperCase())]) {
        const res = await service.request('GET', path, { token });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'Invalid access token' });
      }
    }
  });
});

describe('ids in request bodies and queries are canonical too', () => {
  test('PATCH /v1/users/me stores an upper-case activeOrgId in its one spelling', async () => {
    const { orgId, owner } = await workspace();
    const res = await service.request('PATCH', '/v1/users/me', {
      token: owner.token,
      body: { activeOrgId: orgId.toUpperCase() },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: { activeOrgId: orgId } });
    const me = await service.request('GET', '/v1/users/me', { token: owner.token });
    expect(await me.json()).toMatchObject({ data: { activeOrgId: orgId } });
  });

  test('a list filter naming a tag in upper case finds its posts', async () => {
    const { orgId, owner } = await workspace();
    const token = await exchange(owner.token, orgId);
    const tag = (
      (await (await service.request('POST', tags(orgId), { token, body: { name: 'Launch' } })).json()) as {
        data: { id: string };
      }
    ).data;
    const created = await service.request('POST', `/v1/orgs/${orgId}/marketing/post-groups`, {
      token,
      body: { title: 'Tagged', tagIds: [tag.id], posts: [{ platform: 'x', contentText: 'Tagged post' }] },
    });
    expect(created.status, await created.clone().text()).toBe(200);
    for (const id of [tag.id, tag.id.toUpperCase()]) {
      const res = await service.request(
        'GET',
        `/v1/orgs/${orgId}/marketing/posts?filter[tagId]=${encodeURIComponent(id)}`,
        { token },
      );
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { total: number } }).data.total, id).toBe(1);
    }
  });
});
