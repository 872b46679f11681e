// The worker pool: renders off the main thread under vitest (the TypeScript worker loads through tsx), hands
// the bytes back, and neither a closed pool nor an idle one keeps a process alive.

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { NotALogo } from '../../infra/brand/logo-image.js';
import { RenderPool } from '../../infra/visuals/pool.js';
import { RenderDeadlineExceeded } from '../../infra/visuals/queue.js';
import { createRenderer } from '../../infra/visuals/renderer.js';
import { makeBrand, makeScreenshot, sampleContent, sampleSlides } from './fixtures.js';
import { gifDeclaring, stackedBlurSvg } from './hostile.js';

const run = promisify(execFile);
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const child = fileURLToPath(new URL('./pool-child.ts', import.meta.url));

function pngSize(png: Uint8Array) {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

describe('render pool', () => {
  it('renders images, screenshots and carousels in worker threads', async () => {
    const renderer = createRenderer({ threads: 2 });
    try {
      const brand = await makeBrand();
      const [image, screenshot, carousel] = await Promise.all([
        renderer.image({
          template: 'stat',
          format: 'link',
          theme: 'dark',
          content: sampleContent,
          includeLogo: true,
          handle: '@acme',
          brand,
          background: null,
        }),
        renderer.screenshot({
          screenshot: await makeScreenshot(),
          layout: 'tilted',
          format: 'square',
          theme: 'light',
          includeLogo: false,
          handle: null,
          brand,
          content: { title: 'A calmer dashboard' },
          addressBar: 'app.acme.com',
          windowTheme: 'auto',
          crop: null,
          scale: 0.5,
        }),
        renderer.carousel({
          slides: sampleSlides,
          format: 'square',
          theme: 'brand',
          includeLogo: true,
          handle: '@acme',
          brand,
          background: null,
          pdf: true,
          title: 'Playbook',
          scale: 0.5,
        }),
      ]);
      expect(image.png).toBeInstanceOf(Uint8Array);
      expect(pngSize(image.png)).toEqual({ width: 1200, height: 630 });
      expect(pngSize(screenshot.png)).toEqual({ width: 540, height: 540 });
      expect(carousel.slides.map((s) => pngSize(s.png))).toEqual(
        sampleSlides.map(() => ({ width: 540, height: 540 })),
      );
      const pdf = await PDFDocument.load(carousel.pdf!);
      expect(pdf.getPageCount()).toBe(sampleSlides.length);
    } finally {
      await renderer.close();
    }
  }, 120_000);

  it.runIf(process.platform === 'linux')(
    'render threads run at a lower priority than the request thread',
    async () => {
      const niceOf = (tid: string) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      const before = new Set(readdirSync('/proc/self/task'));
      const renderer = createRenderer({ threads: 1 });
      try {
        await renderer.image({
          template: 'headline',
          format: 'square',
          theme: 'light',
          content: sampleContent,
          includeLogo: false,
          handle: null,
          brand: await makeBrand(),
          background: null,
          scale: 0.1,
        });
        const main = niceOf(String(process.pid));
        const niced = readdirSync('/proc/self/task').filter(
          (tid) => !before.has(tid) && niceOf(tid) >= main + 10,
        );
        expect(niced.length).toBeGreaterThanOrEqual(1);
      } finally {
        await renderer.close();
      }
    },
    120_000,
  );

  it.each([
    ['after close()', []],
    ['with the pool left idle', ['--no-close']],
  ])(
    'a process using the pool ends on its own %s',
    async (_label, args) => {
      const { stdout } = await run(process.execPath, ['--import', tsx, child, ...args], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        timeout: 90_000,
      });
      expect(stdout).toContain('rendered 270x270');
    },
    120_000,
  );

  it('a thread lost between tasks is reported, not an unhandled error that ends the process', async () => {
    const lost: unknown[] = [];
    const pool = new RenderPool({ threads: 1, onThreadError: (error) => lost.push(error) });
    try {
      // piscina emits 'error' when a thread dies outside a task; with no listener that event would throw.
      const piscina = (pool as unknown as { piscina: NodeJS.EventEmitter }).piscina;
      expect(() => piscina.emit('error', new Error('thread lost'))).not.toThrow();
      expect(lost).toHaveLength(1);
    } finally {
      await pool.close();
    }
  });

  it('a task past its deadline is stopped (its thread ended) and later renders still succeed', async () => {
    const pool = new RenderPool({ threads: 1 });
    const brand = await makeBrand();
    const image = {
      kind: 'image',
      request: {
        template: 'headline',
        format: 'square',
        theme: 'light',
        content: sampleContent,
        includeLogo: false,
        handle: null,
        brand,
        background: null,
        scale: 0.1,
      },
    } as const;
    try {
      expect((await pool.run(image)).kind).toBe('image');
      const carousel = {
        kind: 'slides',
        request: {
          slides: [...sampleSlides, ...sampleSlides, ...sampleSlides].slice(0, 15),
          format: 'portrait',
          theme: 'brand',
          includeLogo: true,
          handle: '@acme',
          brand,
          background: null,
          pdf: true,
        },
        from: 0,
        to: 15,
      } as const;
      // One millisecond a slide: far less than any slide takes.
      const stopped = await pool.run(carousel, { deadlineMs: 1 }).catch((error: unknown) => error);
      expect(stopped).toBeInstanceOf(RenderDeadlineExceeded);
      expect((stopped as RenderDeadlineExceeded).code).toBe('render_timeout');
      expect((stopped as RenderDeadlineExceeded).status).toBe(503);
      const after = await Promise.all([pool.run(image), pool.run(image)]);
      expect(after.map((r) => r.kind)).toEqual(['image', 'image']);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('logo files are read in the pool: a header bomb refused, a filter bomb defused', async () => {
    const renderer = createRenderer({ threads: 1 });
    try {
      const gif = gifDeclaring(8000, 8000);
      await expect(renderer.readLogo(gif)).rejects.toThrow(NotALogo);
      await expect(renderer.renderableLogo(gif)).rejects.toThrow(/8000×8000/);
      const file = await renderer.readLogo(new TextEncoder().encode(stackedBlurSvg(5)));
      expect(file.kind).toBe('svg');
      const logo = await renderer.renderableLogo(new TextEncoder().encode(stackedBlurSvg(5)));
      expect(logo).toMatchObject({ contentType: 'image/png', width: 1024, height: 1024 });
    } finally {
      await renderer.close();
    }
  }, 120_000);
});
