// POST ORG/brand/profile/from-website against a locally served small site: the home page (odd markup: upper-case
// tags, unclosed paragraphs, links in comments and scripts), its about page behind a redirect and its pricing page;
// the profile inferred by the offline writer and saved unconfirmed with provenance; fields a person set kept; a
// huge page cut at the byte limit; private addresses refused (literal: 400; behind a name or a redirect: 422, the
// same answer as any unreadable site); roles; an idempotent retry.
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { maxSitePageBytes } from '../../../infra/brand-profile/site-reader.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import { pngOf, startSite, type ErrorBody, type LocalSite } from '../brand/support.js';

let service: TestService;
let site: LocalSite;

const resolve = async (host: string): Promise<LookupAddress[]> => {
  if (host === 'internal.example') return [{ address: '192.168.10.20', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

const home = `<!DOCTYPE html>
<HTML><HEAD><TITLE>Home | Acme Analytics</TITLE>
<META NAME="description" CONTENT="Product analytics for B2B SaaS teams. Know which features your customers use.">
<meta property="og:site_name" content="Acme Analytics">
</HEAD><BODY>
<NAV><A HREF="/about-us">About us</A> <a href="/pricing#plans">Pricing</a> <a href="http://10.0.0.1/pricing">Pricing (mirror)</a></NAV>
<!-- <a href="/secret-about">About (old)</a> -->
<script>document.write('<a href="/script-pricing">Pricing</a>')</script>
<H1>See which features your customers actually use</H1>
<P>We help product teams understand feature adoption, account by account.
<P>Acme Analytics connects to your product in five minutes. Our customers ship what matters.
<h2>Dashboards without SQL</h2><p>Every chart your product team needs, ready on day one.
<h2>Privacy-first analytics with no cookies</h2><p>Analytics that respect your customers.
<footer><p>© 2026 Acme Analytics Inc. All rights reserved.</p></footer>
</BODY></HTML>`;

const about = `<html><head><title>About Acme Analytics</title></head><body><main>
<h1>About us</h1>
<p>Acme Analytics was founded in 2019 by two product managers tired of guessing. Our mission is to make product decisions boring and right.</p>
<p>We are a team of twelve in Lisbon serving more than 400 SaaS companies.</p>
</main></body></html>`;

const pricing = `<html><head><title>Pricing | Acme Analytics</title></head><body>
<h1>Pricing</h1>
<div class="plan"><h3>Starter</h3><p><strong>$29</strong>/month</p><ul><li>3 dashboards</li></ul></div>
<div class="plan"><h3>Team</h3><p>$99/month</p></div>
<div class="plan"><h3>Enterprise</h3><p>Talk to us</p></div>
<h2>Frequently asked questions</h2><p>Can I cancel anytime? Yes.</p>
</body></html>`;

beforeAll(async () => {
  site = await startSite();
  service = await startTestService({ outbound: { allowPrivate: [site.origin], resolve } });
  site.routes.set('/', { type: 'text/html; charset=utf-8', body: home });
  site.routes.set('/about-us', { status: 301, headers: { location: '/company/about' } });
  site.routes.set('/company/about', { type: 'text/html', body: about });
  site.routes.set('/pricing', { type: 'text/html', body: pricing });
  site.routes.set('/big', {
    type: 'text/html',
    body: `<html><head><title>Big Site</title><meta name="description" content="A very long page."></head><body>
      <h1>Big Site</h1><p>${'Words about rockets and landing. '.repeat(30_000)}</p><p>TAIL-MARKER past the limit</p></body></html>`,
  });
  site.routes.set('/to-metadata', { status: 302, headers: { location: 'http://169.254.169.254/' } });
  site.routes.set('/json', { type: 'application/json', body: '{}' });
  site.routes.set('/logo.png', { type: 'image/png', body: pngOf(400, 200) });
});
afterAll(async () => {
  await service.stop();
  await site.close();
});

const fromWebsite = (
  ws: TestWorkspace,
  websiteUrl: unknown,
  role: keyof TestWorkspace['tokens'] = 'owner',
  headers?: Record<string, string>,
) =>
  service.request('POST', `/v1/orgs/${ws.orgId}/brand/profile/from-website`, {
    token: ws.tokens[role],
    body: { websiteUrl },
    ...(headers ? { headers } : {}),
  });

interface Result {
  profile: {
    websiteUrl: string;
    tagline: string | null;
    identity: string | null;
    mission: string | null;
    brandType: string;
    businessOutline: {
      overview: string;
      productsOrServices: string[];
      targetAudience: string[];
      valueProposition: string;
      differentiators: string[];
    };
    knowledgeItems: Array<{
      kind: string;
      text: string;
      provenance: Record<string, unknown>;
      disclosure: string;
      confirmed: boolean;
    }>;
    meta: { confirmedAt: string | null; lastInferredAt: string | null };
  };
  source: string;
  providerModel: string;
  runId: string;
  creditsUsed: number;
  pages: Array<{ url: string; kind: string; title: string | null }>;
}

describe('POST ORG/brand/profile/from-website', () => {
  test('reads home, about (behind a redirect) and pricing; infers and saves unconfirmed, with provenance', async () => {
    const ws = await createTestWorkspace(service);
    site.hits.length = 0;
    const res = await fromWebsite(ws, `${site.origin}/`);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Result };
    expect(data).toMatchObject({
      source: 'heuristic',
      providerModel: 'offline',
      creditsUsed: 0,
      runId: expect.any(String),
    });
    expect(data.pages).toEqual([
      { url: `${site.origin}/`, kind: 'home', title: 'Home | Acme Analytics' },
      { url: `${site.origin}/company/about`, kind: 'about', title: 'About Acme Analytics' },
      { url: `${site.origin}/pricing`, kind: 'pricing', title: 'Pricing | Acme Analytics' },
    ]);
    // Links in comments and scripts are not links; the off-site mirror is not followed.
    expect(site.hits).not.toContain('/secret-about');
    expect(site.hits).not.toContain('/script-pricing');

    const p = data.profile;
    expect(p).toMatchObject({
      websiteUrl: `${site.origin}/`,
      identity: 'Acme Analytics',
      tagline: 'Product analytics for B2B SaaS teams.',
      brandType: 'business',
      mission: 'Our mission is to make product decisions boring and right.',
      meta: { confirmedAt: null, lastInferredAt: expect.any(String) },
    });
    expect(p.businessOutline.overview).toContain('founded in 2019');
    expect(p.businessOutline.productsOrServices).toEqual([
      'Starter plan ($29/month)',
      'Team plan ($99/month)',
    ]);
    expect(p.businessOutline.targetAudience).toContain('B2B SaaS teams');
    expect(p.businessOutline.valueProposition).toBe('See which features your customers actually use');
    expect(p.businessOutline.differentiators).toEqual([
      'Dashboards without SQL',
      'Privacy-first analytics with no cookies',
    ]);
    const plans = p.knowledgeItems.find((k) => k.text.startsWith('Plans:'));
    expect(plans).toMatchObject({
      kind: 'fact',
      text: 'Plans: Starter ($29/month), Team ($99/month)',
      disclosure: 'public',
      confirmed: false,
      provenance: {
        origin: 'inferred',
        sourceType: 'website',
        sourceUrl: `${site.origin}/pricing`,
        confidence: 'high',
      },
    });
    for (const item of p.knowledgeItems) expect(item.provenance.origin).toBe('inferred');

    // Read back as saved.
    const read = await service.request('GET', `/v1/orgs/${ws.orgId}/brand/profile`, {
      token: ws.tokens.viewer,
    });
    expect(((await read.json()) as { data: unknown }).data).toEqual(data.profile);
  });

  test('fields a person set stay; a confirmed profile the inference changed is no longer confirmed', async () => {
    const ws = await createTestWorkspace(service);
    await service.request('PATCH', `/v1/orgs/${ws.orgId}/brand/profile`, {
      token: ws.tokens.owner,
      body: {
        tagline: 'Our own words',
        knowledgeItems: [{ kind: 'fact', text: 'We never sell data', disclosure: 'public' }],
        confirmBrandContext: true,
      },
    });
    const res = await fromWebsite(ws, `${site.origin}/`);
    const { profile } = ((await res.json()) as { data: Result }).data;
    expect(profile.tagline).toBe('Our own words');
    expect(profile.identity).toBe('Acme Analytics');
    expect(profile.knowledgeItems[0]).toMatchObject({
      text: 'We never sell data',
      provenance: { origin: 'user' },
    });
    expect(profile.meta.confirmedAt).toBeNull();

    // Inferring again replaces the last inference's items rather than piling them up.
    const again = ((await (await fromWebsite(ws, `${site.origin}/`)).json()) as { data: Result }).data;
    expect(again.profile.knowledgeItems.length).toBe(profile.knowledgeItems.length);
  });

  test("the kit's logo is the profile's logoUrl and logoAsset", async () => {
    const ws = await createTestWorkspace(service);
    const kit = await service.request('PATCH', `/v1/orgs/${ws.orgId}/brand/kit`, {
      token: ws.tokens.owner,
      body: { logo: { url: `${site.origin}/logo.png` } },
    });
    expect(kit.status).toBe(200);
    const logo = ((await kit.json()) as { data: { kit: { logo: { assetId: string; url: string } } } }).data
      .kit.logo;
    const { profile } = (
      (await (await fromWebsite(ws, `${site.origin}/`)).json()) as {
        data: { profile: Record<string, unknown> };
      }
    ).data;
    expect(profile).toMatchObject({
      logoUrl: logo.url,
      logoAsset: { assetId: logo.assetId, contentType: 'image/png', width: 400, height: 200 },
      kitUpdatedAt: expect.any(String),
    });
  });

  test('a huge page is read up to the byte limit', async () => {
    const ws = await createTestWorkspace(service);
    const res = await fromWebsite(ws, `${site.origin}/big`);
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: Result };
    expect(data.pages).toEqual([{ url: `${site.origin}/big`, kind: 'home', title: 'Big Site' }]);
    expect(data.profile.tagline).toBe('A very long page.');
    expect(JSON.stringify(data)).not.toContain('TAIL-MARKER');
    expect(maxSitePageBytes).toBeLessThan(30_000 * 33);
  });

  test('/healthz keeps answering while a huge page is parsed (in the pool, off the request thread)', async () => {
    const ws = await createTestWorkspace(service);
    let done = false;
    const reading = fromWebsite(ws, `${site.origin}/big`).finally(() => (done = true));
    let answeredMeanwhile = 0;
    while (!done) {
      const health = await service.request('GET', '/healthz');
      expect(health.status).toBe(200);
      if (!done) answeredMeanwhile += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect((await reading).status).toBe(200);
    expect(answeredMeanwhile).toBeGreaterThan(0);
  });

  test('private addresses: a literal is refused (400); behind a name or a redirect, unreadable (422); nothing saved', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    for (const url of [
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/',
      'http://localhost/',
      'ftp://acme.example/',
      'not a url',
    ]) {
      const res = await fromWebsite(ws, url);
      expect(res.status, url).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.code, url).toBe('website_refused');
      expect(body.details?.[0]?.path).toBe('body.websiteUrl');
    }
    for (const url of [
      'http://internal.example/',
      `${site.origin}/to-metadata`,
      `${site.origin}/json`,
      `${site.origin}/missing`,
      'http://no-such-host.example/',
    ]) {
      const res = await fromWebsite(ws, url);
      expect(res.status, url).toBe(422);
      const body = (await res.json()) as ErrorBody;
      expect(body.code).toBe('website_unreachable');
      // The same answer whatever the network said.
      expect(body.error).not.toMatch(/192\.168|169\.254|ENOTFOUND|private/i);
    }
    expect(await eventCount(service)).toBe(before);
  });

  test('roles and an idempotent retry', async () => {
    const ws = await createTestWorkspace(service);
    expect((await fromWebsite(ws, `${site.origin}/`, 'viewer')).status).toBe(403);
    expect((await fromWebsite(ws, `${site.origin}/`, 'reviewer')).status).toBe(403);
    const key = { 'Idempotency-Key': 'from-website-1' };
    const first = await fromWebsite(ws, `${site.origin}/`, 'editor', key);
    expect(first.status).toBe(200);
    const before = await eventCount(service);
    const replay = await fromWebsite(ws, `${site.origin}/`, 'editor', key);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await replay.json()).toEqual(await first.json());
    expect(await eventCount(service)).toBe(before);
  });
});
