// The site reader: pages are parsed in the page-text pool's threads (never on this one), the about and pricing
// pages are found among the home page's links (same site only, not an article that mentions pricing), a page
// that cannot be read is left out while the home page is required, and a slow page meets its deadline.
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PageTextParser } from '../../infra/brand-profile/page-text-parser.js';
import { linkedPages, readSite, SiteUnreachable } from '../../infra/brand-profile/site-reader.js';
import { startSite, type LocalSite } from '../api/brand/support.js';

let site: LocalSite;
let parser: PageTextParser;

beforeAll(async () => {
  site = await startSite();
  parser = new PageTextParser({ threads: 1 });
  site.routes.set('/', {
    type: 'text/html',
    body: '<title>Home</title><a href="/about">About</a> <a href="/plans">Plans</a> <a href="/blog/pricing">Pricing essay</a>',
  });
  site.routes.set('/about', {
    type: 'text/html',
    body: '<title>About</title><p>We are a small team of careful people.</p>',
  });
  site.routes.set('/plans', { status: 500, type: 'text/html', body: 'oops' });
  site.routes.set('/slow', { type: 'text/html', trickleMs: 200 });
});
afterAll(async () => {
  await parser.close();
  await site.close();
});

const policy = () => ({ allowPrivate: [site.origin] });

describe('readSite', () => {
  test('parses every page in the pool; a page that fails is left out', async () => {
    const before = parser.completed;
    site.hits.length = 0;
    const read = await readSite(`${site.origin}/`, { policy: policy(), parser });
    expect(read.pages.map((p) => [p.kind, p.title])).toEqual([
      ['home', 'Home'],
      ['about', 'About'],
    ]);
    expect(site.hits).toEqual(['/', '/about', '/plans']);
    // Two pages parsed by the pool's thread (the failed one never reached it), none on this one.
    expect(parser.completed - before).toBe(2);
    const result = await parser.run({
      body: new TextEncoder().encode('<p>x</p>'),
      contentType: 'text/html',
      url: 'http://x.test/',
      kind: 'home',
    });
    expect(result.threadId).not.toBe(threadId);
  });

  test('the home page is required; a slow one meets its deadline', async () => {
    await expect(readSite(`${site.origin}/missing`, { policy: policy(), parser })).rejects.toThrow(
      SiteUnreachable,
    );
    const started = Date.now();
    await expect(
      readSite(`${site.origin}/slow`, { policy: policy(), parser, timeoutMs: 500 }),
    ).rejects.toThrow(SiteUnreachable);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('linkedPages', () => {
  const links = (...urls: [string, string][]) => urls.map(([url, text]) => ({ url, text }));
  test('site pages on the same site, first of each kind', () => {
    expect(
      linkedPages(
        'https://www.acme.example/',
        links(
          ['https://evil.example/about', 'About'],
          ['https://acme.example/blog/pricing', 'Our pricing story'],
          ['https://acme.example/en/pricing?ref=nav', 'Pricing'],
          ['https://www.acme.example/company/about', 'Company'],
          ['https://acme.example/about-us', 'About us'],
          ['http://acme.example/pricing', 'Pricing (http)'],
        ),
      ),
    ).toEqual([
      { kind: 'pricing', url: 'https://acme.example/en/pricing' },
      { kind: 'about', url: 'https://www.acme.example/company/about' },
    ]);
  });
});
