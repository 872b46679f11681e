// Hostile inputs of the security audit (issue 24) that the loop-latency test shares with no other test: a number
// that defeats backtracking regexes and a website of megabytes. The MP4 sample bomb lives in
// test/api/media/mp4-bytes.ts, the image header bombs and SVG filters in test/visuals/hostile.ts.

/** An SVG whose width is 40 KB of digits that never end in a unit: a backtracking number regex goes quadratic. */
export const svgLongNumber = `<svg xmlns="http://www.w3.org/2000/svg" width="${'1'.repeat(40_000)}x" height="10"><rect width="10" height="10"/></svg>`;

/** A 2 MB HTML page linking five 1 MB stylesheets under `/css/<n>.css`. */
export function heavyWebsite(): { html: string; stylesheets: Map<string, string> } {
  const links = [0, 1, 2, 3, 4].map((n) => `<link rel="stylesheet" href="/css/${n}.css">`).join('');
  const body = '<div class="c"><img src="/i.png" alt="x"><p style="color:#123456">text</p></div>'.repeat(
    26_000,
  );
  const html = `<!doctype html><html><head><title>Heavy</title>${links}</head><body>${body}</body></html>`;
  const css = Array.from(
    { length: 40_000 },
    (_, i) => `.c${i}{color:#${(i * 4099).toString(16).padStart(6, '0').slice(-6)}}`,
  ).join('');
  const stylesheets = new Map(
    [0, 1, 2, 3, 4].map((n) => [`/css/${n}.css`, css.slice(0, 1_000_000)] as const),
  );
  return { html, stylesheets };
}
