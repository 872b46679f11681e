// The contract other slices' pages (the consent page) use: ctx.use(browserSessions).current / csrfToken /
// verifyCsrf / signInPath, one instance per runtime; and the cookies behind https (`__Host-`, Secure).
import type { OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppEnv } from '../../../api/platform/app-env.js';
import type { Slice } from '../../../api/shared/slice.js';
import { browserSessions } from '../../../api/sign-in/slice.js';
import { slices } from '../../../api/slices.js';
import { formField, mergeCookies, postForm, signInBrowser } from '../../support/browser-sign-in.js';
import { startTestService, type TestService } from '../../support/runtime.js';

/** A page of another slice behind the browser session, like the consent page. */
const consentLike: Slice = {
  name: 'consent-like',
  requires: [browserSessions],
  routes: (ctx) => [
    (app: OpenAPIHono<AppEnv>) => {
      const sessions = ctx.use(browserSessions);
      expect(ctx.use(browserSessions)).toBe(sessions);
      app.get('/consent-like', async (c) => {
        const user = await sessions.current(c);
        if (!user) return c.redirect(sessions.signInPath('/consent-like?x=1'), 302);
        return c.json({ ...user, csrf: sessions.csrfToken(user) });
      });
      app.post('/consent-like', async (c) => {
        const user = await sessions.current(c);
        const form = await c.req.parseBody();
        if (!user) return c.text('no', 401);
        if (!sessions.verifyCsrf(user, typeof form.csrf === 'string' ? form.csrf : undefined))
          return c.text('forbidden', 403);
        return c.text('ok', 200);
      });
    },
  ],
};

describe('over http', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ slices: [...slices, consentLike] });
  });
  afterAll(async () => service?.stop());

  test('not signed in: sent to the sign-in page with the way back', async () => {
    const res = await service.request('GET', '/consent-like');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/sign-in?return_to=%2Fconsent-like%3Fx%3D1');
  });

  test('signed in: the user, and a CSRF token bound to the session', async () => {
    const email = `consent-${Date.now()}@example.org`;
    const { cookie, userId } = await signInBrowser(service, email);
    const res = await service.request('GET', '/consent-like', { headers: { cookie } });
    const body = (await res.json()) as { userId: string; email: string; sessionId: string; csrf: string };
    expect(body).toMatchObject({ userId, email });
    expect((await postForm(service, '/consent-like', { csrf: body.csrf }, cookie)).status).toBe(200);
    expect((await postForm(service, '/consent-like', { csrf: `${body.csrf}x` }, cookie)).status).toBe(403);
    expect((await postForm(service, '/consent-like', {}, cookie)).status).toBe(403);

    // Another session of the same user has another token.
    const other = await signInBrowser(service, email);
    const otherBody = (await (
      await service.request('GET', '/consent-like', { headers: { cookie: other.cookie } })
    ).json()) as { csrf: string };
    expect(otherBody.csrf).not.toBe(body.csrf);
    expect((await postForm(service, '/consent-like', { csrf: otherBody.csrf }, cookie)).status).toBe(403);
  });

  test('a CSRF token of one instance is accepted by another sharing the key (derived, not per process)', async () => {
    const second = await startTestService({
      slices: [...slices, consentLike],
      database: service.database,
      dataDir: service.dataDir,
    });
    try {
      const { cookie } = await signInBrowser(service, `shared-${Date.now()}@example.org`);
      const { csrf } = (await (
        await service.request('GET', '/consent-like', { headers: { cookie } })
      ).json()) as { csrf: string };
      expect((await postForm(second, '/consent-like', { csrf }, cookie)).status).toBe(200);
    } finally {
      await second.runtime.stop();
    }
  });
});

describe('behind https', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { PUBLIC_BASE_URL: 'https://api.example.org' } });
  });
  afterAll(async () => service?.stop());

  test('the cookies are Secure with the __Host- prefix, and the flow completes', async () => {
    const form = await service.request('GET', '/sign-in');
    expect(form.headers.getSetCookie()).toEqual([
      expect.stringMatching(
        /^__Host-sign_in_csrf=[^;]+; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
      ),
    ]);
    const { cookie } = await signInBrowser(service, `secure-${Date.now()}@example.org`);
    expect(cookie).toMatch(/__Host-sign_in_session=/);
    const page = await service.request('GET', '/sign-in/done', { headers: { cookie } });
    const html = await page.text();
    expect(html).toContain('You are signed in');
    const out = await postForm(service, '/sign-out', { csrf: formField(html, 'csrf') }, cookie);
    expect(out.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^__Host-sign_in_session=; Max-Age=0; Path=\/; HttpOnly; Secure; SameSite=Lax$/),
    ]);
    expect(mergeCookies(cookie, out)).not.toMatch(/sign_in_session/);
  });
});
