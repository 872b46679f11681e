// News feeds (issue 31, part 3): feedsmith's parse of RSS 2.0, Atom, RDF and JSON Feed made into plain-text entries
// (markup dropped, dates as ISO, newest first, bounded, de-duplicated), a document that is not a feed and a broken one
// refused with their reason.
import { describe, expect, test } from 'vitest';
import { newsLimits } from '../../../domain/research/news.js';
import { FeedFormatError, parseNewsFeed, plainText } from '../../../infra/research/feed-parse.js';

describe('parsing (feedsmith) and normalising', () => {
  test('RSS 2.0: plain text, links, ISO dates, newest first, duplicates once', () => {
    const feed =
      parseNewsFeed(`<?xml version="1.0"?><rss version="2.0"><channel><title>Weekly &amp; Co</title>
      <item><title>Older</title><link>https://n.example/1</link><guid>g1</guid>
        <description>&lt;p&gt;Hello &lt;b&gt;world&lt;/b&gt; &amp;amp; more&lt;/p&gt;</description>
        <pubDate>Mon, 23 Nov 2026 10:00:00 GMT</pubDate></item>
      <item><title>Newer</title><link>https://n.example/2</link><guid>g2</guid>
        <pubDate>Tue, 24 Nov 2026 10:00:00 GMT</pubDate></item>
      <item><title>Older again</title><link>https://n.example/1</link><guid>g1</guid></item>
      <item><title>Script link</title><link>javascript:alert(1)</link><guid>g3</guid></item>
    </channel></rss>`);
    expect(feed.format).toBe('rss');
    expect(feed.title).toBe('Weekly & Co');
    expect(feed.entries).toEqual([
      {
        key: 'g2',
        title: 'Newer',
        url: 'https://n.example/2',
        summary: '',
        publishedAt: '2026-11-24T10:00:00.000Z',
      },
      {
        key: 'g1',
        title: 'Older',
        url: 'https://n.example/1',
        summary: 'Hello world & more',
        publishedAt: '2026-11-23T10:00:00.000Z',
      },
      { key: 'g3', title: 'Script link', url: null, summary: '', publishedAt: null },
    ]);
  });

  test('Atom: text constructs, the alternate link, published or updated', () => {
    const feed =
      parseNewsFeed(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>J</title>
      <id>urn:j</id><updated>2026-11-20T00:00:00Z</updated>
      <entry><title type="html">A &amp;amp; B</title><id>urn:1</id>
        <link rel="self" href="https://j.example/self/1"/><link rel="alternate" href="https://j.example/1"/>
        <published>2026-11-21T08:00:00Z</published><updated>2026-11-22T00:00:00Z</updated>
        <content type="html">&lt;p&gt;Body&lt;/p&gt;</content></entry>
    </feed>`);
    expect(feed.format).toBe('atom');
    expect(feed.entries).toEqual([
      {
        key: 'urn:1',
        title: 'A & B',
        url: 'https://j.example/1',
        summary: 'Body',
        publishedAt: '2026-11-21T08:00:00.000Z',
      },
    ]);
  });

  test('RDF (RSS 1.0) and JSON Feed', () => {
    const rdf =
      parseNewsFeed(`<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
      xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <channel rdf:about="https://r.example/"><title>R</title><link>https://r.example/</link><description>d</description></channel>
      <item rdf:about="https://r.example/1"><title>RDF item</title><link>https://r.example/1</link>
        <dc:date>2026-11-20T00:00:00Z</dc:date></item></rdf:RDF>`);
    expect(rdf.format).toBe('rdf');
    expect(rdf.entries[0]).toMatchObject({
      title: 'RDF item',
      url: 'https://r.example/1',
      publishedAt: '2026-11-20T00:00:00.000Z',
    });
    const json = parseNewsFeed(
      JSON.stringify({
        version: 'https://jsonfeed.org/version/1.1',
        title: 'JF',
        items: [
          {
            id: '1',
            url: 'https://jf.example/1',
            title: 'JSON item',
            content_html: '<p>Hi</p>',
            date_published: '2026-11-20T00:00:00Z',
          },
        ],
      }),
    );
    expect(json.format).toBe('json');
    expect(json.entries[0]).toMatchObject({ key: '1', title: 'JSON item', summary: 'Hi' });
  });

  test('bounded: titles and summaries cut, at most itemsPerFeed entries', () => {
    const items = Array.from(
      { length: newsLimits.itemsPerFeed + 10 },
      (_, i) =>
        `<item><title>${'t'.repeat(400)}</title><guid>g${i}</guid><description>${'s '.repeat(600)}</description></item>`,
    ).join('');
    const feed = parseNewsFeed(`<rss version="2.0"><channel><title>B</title>${items}</channel></rss>`);
    expect(feed.entries).toHaveLength(newsLimits.itemsPerFeed);
    expect(feed.entries[0]!.title.length).toBe(newsLimits.titleLength);
    expect(feed.entries[0]!.summary.length).toBeLessThanOrEqual(newsLimits.summaryLength);
    expect(plainText('<script>alert(1)</script><p>ok</p>', 50)).toBe('alert(1)ok');
  });

  test('not a feed, and a malformed feed, are refused with their reason', () => {
    expect(() => parseNewsFeed('<html><body>Hello</body></html>')).toThrow(FeedFormatError);
    expect(() => parseNewsFeed('<html><body>Hello</body></html>')).toThrow(
      /not an RSS, Atom, RDF or JSON feed/,
    );
    expect(() => parseNewsFeed('<rss version="2.0"><channel><item><title>x</ti')).toThrow(/malformed/);
  });
});
