// SVG logos: recognised by parsing (not by name or declared type), sanitised so nothing can run or reach out
// (scripts, event handlers, javascript: links, foreignObject, external <use>/<image> references, @import and
// external url() in styles), while a clean logo keeps its drawing and still rasterises; logo files judged by
// their bytes.
import fc from 'fast-check';
import { PNG } from 'pngjs';
import { describe, expect, test } from 'vitest';
import { NotALogo, readLogoFile, renderableLogo } from '../../infra/brand/logo-image.js';
import {
  maxSvgElements,
  pxLength,
  rasterizeSvg,
  sanitizeSvg,
  svgSize,
  svgText,
} from '../../infra/brand/svg.js';
import { gifDeclaring, hugePatternSvg, pngDeclaring, stackedBlurSvg } from '../visuals/hostile.js';
import { propertyRuns } from '../support/property-runs.js';

const encode = (text: string) => new TextEncoder().encode(text);

const cleanLogo =
  '<?xml version="1.0" encoding="UTF-8"?>\n<!-- Acme -->\n' +
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 200 100" width="400">' +
  '<defs><linearGradient id="g"><stop offset="0" stop-color="#ff0000"/><stop offset="1" stop-color="#0000ff"/></linearGradient>' +
  '<circle id="dot" r="10" fill="#00ff00"/></defs>' +
  '<style>.bar { fill: url(#g) }</style>' +
  '<rect class="bar" width="200" height="60"/>' +
  '<use href="#dot" x="100" y="80"/>' +
  '</svg>';

const malicious =
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100" onload="alert(1)">' +
  '<script>alert(document.cookie)</script>' +
  '<a href="javascript:alert(2)"><rect width="100" height="100" fill="#123456" onclick="alert(3)"/></a>' +
  '<foreignObject width="100" height="100"><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example/"/></body></foreignObject>' +
  '<use href="https://evil.example/sprite.svg#a"/><use xlink:href="http://169.254.169.254/latest"/>' +
  '<image href="https://evil.example/track.png" width="10" height="10"/>' +
  '<style>@import url(https://evil.example/x.css); rect { fill: url(https://evil.example/f.svg#p) } circle { fill: #00ff00 }</style>' +
  '<circle r="5" cx="50" cy="50" style="fill:#00ff00;background:url(https://evil.example/b.png)"/>' +
  '<set attributeName="href" to="javascript:alert(4)"/>' +
  '</svg>';

describe('recognising an SVG', () => {
  test('by its root element, after an XML declaration, comments and a BOM', () => {
    expect(svgText(encode(cleanLogo))).not.toBeNull();
    expect(svgText(encode(`\uFEFF<svg xmlns="http://www.w3.org/2000/svg"/>`))).not.toBeNull();
  });

  test.each([
    ['HTML', '<!doctype html><html><body><svg xmlns="http://www.w3.org/2000/svg"/></body></html>'],
    ['an SVG root outside the SVG namespace', '<svg><rect/></svg>'],
    ['broken XML', '<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>'],
    ['plain text', 'svg logo'],
  ])('not %s', (_, text) => {
    expect(svgText(encode(text))).toBeNull();
  });
});

describe('sanitising', () => {
  const clean = sanitizeSvg(malicious)!;

  test('nothing that runs or reaches out survives', () => {
    expect(clean).not.toMatch(/<script/i);
    expect(clean).not.toMatch(/\bon[a-z]+=/i);
    expect(clean).not.toMatch(/javascript:/i);
    expect(clean).not.toMatch(/foreignObject|iframe/i);
    expect(clean).not.toMatch(/evil\.example|169\.254/);
    expect(clean).not.toMatch(/@import/);
    expect(clean).not.toMatch(/<set/);
  });

  test('the drawing stays', () => {
    expect(clean).toContain('fill="#123456"');
    expect(clean).toMatch(/circle \{\s*fill: #00ff00/);
    expect(clean).toContain('fill:#00ff00');
  });

  test('a clean logo keeps its gradients, styles and local <use>, and still rasterises', () => {
    const kept = sanitizeSvg(cleanLogo)!;
    expect(kept).toContain('<use href="#dot"');
    expect(kept).toContain('url(#g)');
    expect(kept).toContain('linearGradient');
    const { png, width, height } = rasterizeSvg(kept, 400);
    expect([width, height]).toEqual([400, 200]);
    const image = PNG.sync.read(Buffer.from(png));
    const at = (x: number, y: number) =>
      Array.from(image.data.subarray((y * 400 + x) * 4, (y * 400 + x) * 4 + 4));
    // Left end of the gradient bar is red, right end blue, the <use>d dot green.
    expect(at(2, 20)[0]).toBeGreaterThan(200);
    expect(at(397, 20)[2]).toBeGreaterThan(200);
    expect(at(200, 160)).toEqual([0, 255, 0, 255]);
  });

  test('sizes from width/height or the viewBox', () => {
    expect(svgSize(cleanLogo)).toEqual({ width: 400, height: 200 });
    expect(svgSize('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 10"/>')).toEqual({
      width: 30,
      height: 10,
    });
    expect(svgSize('<svg xmlns="http://www.w3.org/2000/svg" width="5em"/>')).toBeNull();
  });
});

describe('logo files', () => {
  const png = () => {
    const image = new PNG({ width: 300, height: 120 });
    image.data.fill(255);
    return new Uint8Array(PNG.sync.write(image));
  };

  test('a PNG by its signature, with its size', async () => {
    expect(await readLogoFile(png())).toMatchObject({
      kind: 'raster',
      contentType: 'image/png',
      width: 300,
      height: 120,
    });
  });

  test('an SVG is sanitised and given a PNG rendition', async () => {
    const file = await readLogoFile(encode(malicious));
    expect(file.kind).toBe('svg');
    if (file.kind !== 'svg') return;
    expect(file.svg).not.toMatch(/script|evil/);
    expect(file.png.width).toBe(1024);
    expect(PNG.sync.read(Buffer.from(file.png.bytes)).width).toBe(1024);
    const renderable = await renderableLogo(encode(cleanLogo));
    expect(renderable).toMatchObject({ contentType: 'image/png', width: 1024, height: 512 });
  });

  test.each([
    ['HTML', encode('<!doctype html><title>x</title>'), /not an image/],
    ['a PDF', encode('%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF'), /application\/pdf/],
    ['nothing', new Uint8Array(), /empty/],
  ])('%s is not a logo', async (_, bytes, message) => {
    await expect(readLogoFile(bytes)).rejects.toThrow(NotALogo);
    await expect(readLogoFile(bytes)).rejects.toThrow(message);
  });
});

describe('hostile logo files are refused or defused before anything costly', () => {
  test('a 29-byte GIF declaring 8000×8000 is refused from its header (nothing decodes it)', async () => {
    const gif = gifDeclaring(8000, 8000);
    await expect(readLogoFile(gif)).rejects.toThrow(NotALogo);
    await expect(renderableLogo(gif)).rejects.toThrow(
      /8000×8000 pixels; at most 16384 pixels a side and 50 megapixels/,
    );
  });

  test('a 69-byte PNG declaring 20000×20000 is refused from its header', async () => {
    await expect(readLogoFile(pngDeclaring(20000, 20000))).rejects.toThrow(/20000×20000/);
  });

  test('a large raster logo reaches the renderer scaled to at most 1024 pixels long', async () => {
    const image = new PNG({ width: 2400, height: 600 });
    image.data.fill(255);
    const logo = await renderableLogo(new Uint8Array(PNG.sync.write(image)));
    expect(logo).toMatchObject({ contentType: 'image/png', width: 1024, height: 256 });
    expect(PNG.sync.read(Buffer.from(logo.data)).width).toBe(1024);
  });

  test(
    'stacked blurs over a huge filter region: filters are removed, the drawing stays',
    { timeout: 30_000 },
    async () => {
      const svg = stackedBlurSvg(5);
      expect(sanitizeSvg(svg)).not.toMatch(/filter|feGaussianBlur/i);
      const file = await readLogoFile(encode(svg));
      expect(file.kind).toBe('svg');
      if (file.kind !== 'svg') return;
      // The rectangle is drawn unfiltered (a reference to a removed filter would hide it).
      const png = PNG.sync.read(Buffer.from(file.png.bytes));
      expect(Array.from(png.data.subarray(0, 4))).toEqual([0xe4, 0x57, 0x2e, 255]);
    },
  );

  test('a pattern tile of 100000 units is removed (resvg would allocate terabytes for it)', () => {
    const clean = sanitizeSvg(hugePatternSvg)!;
    expect(clean).not.toMatch(/pattern/i);
    expect(clean).toContain('<circle');
  });

  test.each([
    [
      'more elements than the budget',
      `<svg xmlns="http://www.w3.org/2000/svg">${'<rect/>'.repeat(maxSvgElements)}</svg>`,
      /elements; at most 10000/,
    ],
    [
      'a declared width past 16384',
      '<svg xmlns="http://www.w3.org/2000/svg" width="1000000" height="10"/>',
      /width of 1000000/,
    ],
    [
      'an embedded PNG declaring 20000×20000',
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image width="10" height="10" href="data:image/png;base64,' +
        Buffer.from(pngDeclaring(20000, 20000)).toString('base64') +
        '"/></svg>',
      /image inside the SVG cannot be used: the image is 20000×20000/,
    ],
  ])('%s is refused', async (_, svg, message) => {
    await expect(readLogoFile(encode(svg))).rejects.toThrow(NotALogo);
    await expect(readLogoFile(encode(svg))).rejects.toThrow(message);
  });
});

describe('the SVG size reader reads lengths in one forward scan', () => {
  // The regex it replaced: quadratic backtracking on a long run of digits that does not end in a length.
  const previous = (value: string) => {
    const match = /^\s*([0-9]*\.?[0-9]+)\s*(px)?\s*$/.exec(value);
    return match ? Number(match[1]) : null;
  };

  test('reads what the regex read (unitless or px, spaces around), and nothing else', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9. pxe\t-]{0,12}$/), (value) => {
        expect(pxLength(value)).toEqual(previous(value));
      }),
      { numRuns: propertyRuns(2000) },
    );
    expect(pxLength(' 12.5px ')).toBe(12.5);
    expect(pxLength('.5')).toBe(0.5);
    expect(pxLength('12.')).toBeNull();
    expect(pxLength('5em')).toBeNull();
  });

  test.each([40_000, 200_000])(
    '%i digits that are not a length: handled (and refused) in one pass',
    (digits) => {
      const width = `${'1'.repeat(digits)}!`;
      expect(pxLength(width)).toBeNull();
      expect(
        svgSize(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" viewBox="0 0 30 10"/>`),
      ).toEqual({
        width: 30,
        height: 10,
      });
    },
  );
});
