// Reading a hostile website: a 2 MB page with thousands of candidates and five 1 MB stylesheets, served from
// 127.0.0.1 (the fetcher's test-only allowPrivate). HTML and CSS are parsed in the parser pool's threads (in
// this file cheerio and postcss throw on the test's own thread), the page is cut at maxPageBytes, stylesheets
// share one byte budget, the answer is bounded whatever the page, and a parse past its deadline is ended.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  maxAnswerBytes,
  maxColors,
  maxFetchedBytes,
  maxFonts,
  maxImages,
  maxLogos,
  maxPageBytes,
  maxStylesheetBytes,
  maxStylesheets,
  maxUrlLength,
  readWebsite,
  WebsiteRefused,
} from '../../infra/brand/website-reader.js';
import { WebsiteParser } from '../../infra/brand/website-parser.js';

// Parsing on this thread would fail loudly: the reader must hand every byte of markup and CSS to its threads
// (worker threads load the real modules; vitest's mocks reach only this one).
vi.mock('cheerio', () => ({
  load: () => {
    throw new Error('cheerio ran on the request thread');
  },
}));
vi.mock('postcss', () => ({
  default: {
    parse: () => {
      throw new Error('postcss ran on the request thread');
    },
  },
}));

const kib = 1024;
const hex = (i: number) => `#${(0x100000 + i * 37).toString(16).slice(-6)}`;

/** A page of `size` bytes: candidates of every kind by the thousand, then, past the cut, a marker colour. */
function hugePage(size: number): string {
  const head = [
    '<!doctype html><html><head><title>',
    'Acme '.repeat(500),
    '</title>',
    `<meta name="description" content="${'Rockets that land. '.repeat(200)}">`,
    '<link rel="stylesheet" href="/big-1.css"><link rel="stylesheet" href="/big-2.css">',
    '<link rel="stylesheet" href="/big-3.css"><link rel="stylesheet" href="/small.css">',
    '<link rel="stylesheet" href="/big-4.css">',
    `<link rel="icon" href="/${'i'.repeat(maxUrlLength + 10)}.png">`,
  ];
  const body: string[] = [];
  for (let i = 0; i < 3000; i++) {
    body.push(
      `<meta property="og:image" content="/share-${i}.png"><img src="/logo-${i}.png">`,
      `<p style="color:${hex(i)}; --brand-${i}-${'x'.repeat(100)}: ${hex(i + 1)}; font-family: Family${i}">x</p>`,
    );
  }
  const text = `${head.join('')}</head><body>${body.join('')}`;
  const filler = `<p>${'lorem ipsum '.repeat(1000)}</p>`;
  let page = text;
  while (page.length < size - 200) page += filler;
  return `${page.slice(0, size - 200)}<meta name="theme-color" content="#abcdef"></body></html>`;
}

function bigSheet(size: number, color: string): string {
  const rule = `.a { color: ${color}; background: #102030; font-family: "Sheet Font" }\n`;
  return rule.repeat(Math.floor(size / rule.length));
}

let server: http.Server;
let origin: string;
const requested: string[] = [];
const pages = new Map<string, { type: string; body: string }>();

beforeAll(async () => {
  pages.set('/', { type: 'text/html; charset=utf-8', body: hugePage(2 * 1024 * kib) });
  for (let i = 1; i <= 4; i++)
    pages.set(`/big-${i}.css`, { type: 'text/css', body: bigSheet(1024 * kib, '#ff0000') });
  pages.set('/small.css', { type: 'text/css', body: bigSheet(100 * kib, '#00ff00') });
  pages.set('/simple', {
    type: 'text/html',
    body: '<html><head><title>Simple</title><style>:root { --brand: #e4572e }</style></head></html>',
  });
  server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requested.push(path);
    const page = pages.get(path);
    res.writeHead(page ? 200 : 404, { 'content-type': page?.type ?? 'text/plain' });
    res.end(page?.body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const policy = () => ({ allowPrivate: [origin] });

describe('parsing runs off the request thread', () => {
  test('both parses (page, then stylesheets) run in the parser pool; none on this thread', async () => {
    const parser = new WebsiteParser({ threads: 1 });
    try {
      const found = await readWebsite(`${origin}/simple`, { policy: policy(), parser });
      expect(found.siteName).toBe('Simple');
      expect(found.colors).toEqual([
        { hex: '#e4572e', source: 'css-variable', detail: '--brand', uses: 1, neutral: false },
      ]);
      expect(parser.completed).toBe(2);
    } finally {
      await parser.close();
    }
  });

  test('a parse past its deadline ends its thread and is refused with a clear message', async () => {
    const parser = new WebsiteParser({ threads: 1, deadlineMs: 1 });
    try {
      const error = await readWebsite(`${origin}/`, { policy: policy(), parser }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WebsiteRefused);
      expect((error as Error).message).toMatch(
        /could not be read within 0.001 s; it is too large or too complex/,
      );
    } finally {
      await parser.close();
    }
  });

  test('a thread out of heap ends, not the process; the read is refused', async () => {
    const lost: unknown[] = [];
    const parser = new WebsiteParser({
      threads: 1,
      heapMb: 4,
      deadlineMs: 3_000,
      onThreadError: (error) => lost.push(error),
    });
    try {
      const error = await readWebsite(`${origin}/`, { policy: policy(), parser }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WebsiteRefused);
      expect((error as Error).message).toMatch(/too large or too complex/);
      expect(lost.length).toBeGreaterThan(0);
      expect((lost[0] as { code?: string }).code).toBe('ERR_WORKER_OUT_OF_MEMORY');
    } finally {
      await parser.close();
    }
  });
});

describe('a 2 MB page with five 1 MB stylesheets', () => {
  test('the page is cut, the stylesheets share the budget, the answer stays small', async () => {
    requested.length = 0;
    // A generous deadline: this test is about bytes and counts, not time (the machine may be busy).
    const parser = new WebsiteParser({ deadlineMs: 60_000 });
    const found = await readWebsite(`${origin}/`, { policy: policy(), parser }).finally(() => parser.close());
    expect(found.reachable).toBe(true);

    // Only the first maxPageBytes of the page are read: the theme colour at its end is never seen.
    expect(maxPageBytes).toBe(512 * kib);
    expect(found.colors.some((c) => c.hex === '#abcdef')).toBe(false);
    // The first four stylesheets are fetched, the fifth is not; each may take its share of what the page
    // left of the budget (here 128 KiB): the 1 MB ones are skipped, the 100 KB one is read.
    expect(maxStylesheets).toBe(4);
    expect(requested.filter((p) => p.endsWith('.css')).sort()).toEqual([
      '/big-1.css',
      '/big-2.css',
      '/big-3.css',
      '/small.css',
    ]);
    expect(Math.min(maxStylesheetBytes, (maxFetchedBytes - maxPageBytes) / maxStylesheets)).toBe(128 * kib);
    expect(found.colors.some((c) => c.hex === '#00ff00' && c.source === 'stylesheet')).toBe(true);
    expect(found.colors.some((c) => c.hex === '#ff0000')).toBe(false);

    // Bounded whatever the page: counts, lengths, and the whole answer.
    expect(found.colors).toHaveLength(maxColors);
    expect(found.logos).toHaveLength(maxLogos);
    expect(found.images).toHaveLength(maxImages);
    expect(found.fonts).toHaveLength(maxFonts);
    expect(found.siteName!.length).toBeLessThanOrEqual(100);
    expect(found.tagline!.length).toBeLessThanOrEqual(200);
    for (const url of [...found.logos, ...found.images].map((l) => l.url))
      expect(url.length).toBeLessThanOrEqual(maxUrlLength);
    expect(found.colors.every((c) => c.detail === null || c.detail.length <= 64)).toBe(true);
    expect(JSON.stringify(found).length).toBeLessThan(maxAnswerBytes);
    expect(JSON.stringify(found).length).toBeLessThan(8 * kib);
  });
});
