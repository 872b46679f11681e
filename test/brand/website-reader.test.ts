// Reading a website for brand-kit candidates, against a local server serving a page and its stylesheet: each
// source kind is found (theme-color, CSS variables, stylesheet, inline; structured data, og:logo, logo images,
// touch icon, icons; og/twitter images; Google Fonts and CSS fonts), markup in comments and scripts is not
// mistaken for elements (a parser, not patterns), the suggestion is sensible, and what cannot be read says so.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { maxStylesheets, readWebsite, WebsiteRefused } from '../../infra/brand/website-reader.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

let server: http.Server;
let origin: string;
let stylesheetRequests = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(fixture('site.html'));
    } else if (req.url?.split('?')[0] === '/css/site.css') {
      stylesheetRequests += 1;
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end(fixture('site.css'));
    } else if (req.url === '/latin1') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        Buffer.from(
          '<html><head><meta charset="iso-8859-1"><title>Caf\u00e9 Cr\u00e8me</title>' +
            '<link rel="stylesheet" href="http://169.254.169.254/latest/site.css">' +
            '<link rel="stylesheet" href="http://10.0.0.1/site.css"></head></html>',
          'latin1',
        ),
      );
    } else if (req.url === '/json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    } else if (req.url === '/many') {
      const links = Array.from({ length: 8 }, (_, i) => `<link rel="stylesheet" href="/css/site.css?${i}">`);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><head>${links.join('')}</head><body></body></html>`);
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not found</h1>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

const policy = () => ({ allowPrivate: [origin] });

describe('a page with its stylesheet', () => {
  test('site name, tagline, and every source kind', async () => {
    const found = await readWebsite(`${origin}/`, { policy: policy() });
    expect(found.reachable).toBe(true);
    expect(found.websiteUrl).toBe(`${origin}/`);
    expect(found.siteName).toBe('Acme Rockets');
    expect(found.tagline).toBe('Rockets that land where you point them.');

    const color = (hex: string, source: string) =>
      found.colors.filter((c) => c.hex === hex && c.source === source);
    expect(color('#e4572e', 'theme-color')).toEqual([
      { hex: '#e4572e', source: 'theme-color', detail: null, uses: 1, neutral: false },
    ]);
    expect(color('#e4572e', 'css-variable')).toEqual([
      { hex: '#e4572e', source: 'css-variable', detail: '--brand-orange', uses: 1, neutral: false },
    ]);
    expect(color('#172a58', 'css-variable')[0]).toMatchObject({ detail: '--brand-navy' });
    expect(color('#f2c14e', 'css-variable')[0]).toMatchObject({ detail: '--accent-gold' });
    // <style> and style attributes are `inline`; case and spelling do not split a colour.
    expect(color('#e4572e', 'inline')[0]).toMatchObject({ uses: 2 });
    expect(color('#17a398', 'inline')[0]).toMatchObject({ uses: 2, neutral: false });
    expect(color('#ffffff', 'inline')[0]).toMatchObject({ neutral: true });
    expect(color('#fafafa', 'inline')[0]).toMatchObject({ neutral: true });
    expect(color('#f2c14e', 'stylesheet')[0]).toMatchObject({ uses: 3 });
    expect(color('#17a398', 'stylesheet')[0]).toMatchObject({ uses: 1 });
    // Transparent colours are no brand colours; a comment is not markup.
    expect(found.colors.some((c) => c.hex === '#000000' && c.source === 'css-variable')).toBe(false);
    expect(found.colors.some((c) => c.hex === '#00ff00')).toBe(false);
    // Most used first.
    expect(found.colors[0]!.uses).toBeGreaterThanOrEqual(found.colors.at(-1)!.uses);

    expect(found.logos).toEqual([
      { url: 'https://acme.example/brand/logo.svg', source: 'structured-data' },
      { url: `${origin}/brand/og-logo.png`, source: 'og:logo' },
      { url: `${origin}/brand/header-logo.png`, source: 'img' },
      { url: `${origin}/apple-touch-icon.png`, source: 'apple-touch-icon' },
      { url: `${origin}/favicon.svg`, source: 'icon' },
      { url: `${origin}/favicon.ico`, source: 'icon' },
    ]);
    expect(found.images).toEqual([
      { url: `${origin}/images/share.png`, source: 'og:image' },
      { url: 'https://cdn.acme.example/twitter-card.jpg', source: 'twitter:image' },
    ]);
    expect(found.fonts).toEqual([
      { family: 'Montserrat', source: 'google-fonts' },
      { family: 'Open Sans', source: 'google-fonts' },
      { family: 'Lato', source: 'google-fonts' },
      { family: 'Open Sans', source: 'css' },
      { family: 'Arial', source: 'css' },
      { family: 'Montserrat', source: 'css' },
      { family: 'Lato', source: 'css' },
      { family: 'Helvetica', source: 'css' },
    ]);
  });

  test('the suggestion: the theme colour first, distinct brand colours, a light background, installed fonts, the structured-data logo', async () => {
    const { suggestion } = await readWebsite(`${origin}/`, { policy: policy() });
    expect(suggestion).toEqual({
      website: `${origin}/`,
      colors: { primary: '#e4572e', secondary: '#f2c14e', accent: '#17a398', background: '#ffffff' },
      headingFont: 'Montserrat',
      bodyFont: 'Open Sans',
      logo: { url: 'https://acme.example/brand/logo.svg' },
    });
  });

  test('at most maxStylesheets stylesheets are read', async () => {
    stylesheetRequests = 0;
    const found = await readWebsite(`${origin}/many`, { policy: policy() });
    expect(found.reachable).toBe(true);
    expect(maxStylesheets).toBe(4);
    expect(stylesheetRequests).toBe(maxStylesheets);
  });
});

describe('reading with care', () => {
  test('the charset the page declares; stylesheets at private addresses are left out, not fetched', async () => {
    const found = await readWebsite(`${origin}/latin1`, { policy: policy() });
    expect(found.reachable).toBe(true);
    expect(found.siteName).toBe('Caf\u00e9 Cr\u00e8me');
    expect(found.colors).toEqual([]);
  });
});

describe('what cannot be read', () => {
  test('an error status or a page that is not HTML: reachable false, empty lists', async () => {
    for (const path of ['/missing', '/json']) {
      const found = await readWebsite(`${origin}${path}`, { policy: policy() });
      expect(found).toEqual({
        websiteUrl: `${origin}${path}`,
        reachable: false,
        siteName: null,
        tagline: null,
        colors: [],
        logos: [],
        images: [],
        fonts: [],
        suggestion: { website: `${origin}${path}` },
      });
    }
  });

  test('a site that does not answer: reachable false', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const found = await readWebsite(`http://127.0.0.1:${port}/`, { policy: { allowPrivate: true } });
    expect(found.reachable).toBe(false);
  });

  test('other schemes and private addresses are refused', async () => {
    await expect(readWebsite('ftp://example.com/')).rejects.toThrow(WebsiteRefused);
    await expect(readWebsite('not a url')).rejects.toThrow(/not a URL/);
    await expect(readWebsite(`${origin}/`)).rejects.toThrow(/private address|ports 80 and 443/);
  });
});
