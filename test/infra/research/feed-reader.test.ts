// Reading a news feed served locally (issue 31, part 3): through the safe fetcher, parsed only in the feed parser's
// thread (feedsmith throws on this thread), an oversized feed refused rather than cut, an error status, a timeout and
// a page that is not a feed answered in words, a private address refused before any request.
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { FeedParser } from '../../../infra/research/feed-parser.js';
import { fetchFeed, feedLimits } from '../../../infra/research/feed-reader.js';
import { startFakePlatform, type FakePlatform } from '../../connectors/support/fake-platform.js';

// Parsing on this thread would fail loudly: the reader hands every feed to the parser's thread (the worker loads
// the real module; vitest's mocks reach only this one).
vi.mock('feedsmith', () => ({
  parseFeed: () => {
    throw new Error('feedsmith ran on the request thread');
  },
}));

describe('reading a served feed', () => {
  let served: FakePlatform;
  let parser: FeedParser;
  const deps = () => ({ parser: () => parser, policy: { allowPrivate: [served.baseUrl] }, timeoutMs: 1_000 });

  beforeAll(async () => {
    served = await startFakePlatform();
    parser = new FeedParser();
  });
  afterAll(async () => {
    await parser.close();
    await served.close();
  });

  test('parsed in the parser thread, never on this one', async () => {
    served.on('GET', '/feed.xml', {
      headers: { 'content-type': 'application/rss+xml' },
      body: '<rss version="2.0"><channel><title>T</title><item><title>One</title><guid>1</guid></item></channel></rss>',
    });
    const before = parser.completed;
    const read = await fetchFeed(deps(), `${served.baseUrl}/feed.xml`);
    expect(read).toEqual({ ok: true, title: 'T', entries: [expect.objectContaining({ title: 'One' })] });
    expect(parser.completed).toBe(before + 1);
    expect(served.calls('GET', '/feed.xml')[0]!.headers.accept).toMatch(/application\/rss\+xml/);
  });

  test('an oversized feed is refused, not cut; an error status and a timeout are words', async () => {
    served.on('GET', '/big.xml', {
      body: `<rss version="2.0"><channel>${'x'.repeat(feedLimits.maxBytes + 10)}</channel></rss>`,
    });
    expect(await fetchFeed(deps(), `${served.baseUrl}/big.xml`)).toEqual({
      ok: false,
      error: `the feed is larger than ${feedLimits.maxBytes / 1024} KiB`,
    });
    served.on('GET', '/gone.xml', { status: 404, body: 'no' });
    expect(await fetchFeed(deps(), `${served.baseUrl}/gone.xml`)).toEqual({
      ok: false,
      error: 'the feed answered 404',
    });
    served.on('GET', '/slow.xml', { hang: true });
    expect(await fetchFeed(deps(), `${served.baseUrl}/slow.xml`)).toEqual({
      ok: false,
      error: 'the feed could not be fetched',
    });
    served.on('GET', '/page.html', {
      headers: { 'content-type': 'text/html' },
      body: '<html><body>hi</body></html>',
    });
    expect(await fetchFeed(deps(), `${served.baseUrl}/page.html`)).toEqual({
      ok: false,
      error: 'not an RSS, Atom, RDF or JSON feed',
    });
  });

  test('a private address is refused before any request', async () => {
    const read = await fetchFeed({ parser: () => parser, policy: {} }, 'http://127.0.0.1:9/feed.xml');
    expect(read).toMatchObject({ ok: false, error: expect.stringMatching(/^the feed cannot be read: /) });
  });
});
