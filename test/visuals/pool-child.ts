// Run as its own process by pool.slow.test.ts: renders through the worker pool, then closes it (or, with
// `--no-close`, leaves it idle). The process must end on its own either way.

import { createRenderer } from '../../infra/visuals/renderer.js';
import { makeBrand, sampleContent } from './fixtures.js';

const renderer = createRenderer({ threads: 1 });
const image = await renderer.image({
  template: 'headline',
  format: 'square',
  theme: 'brand',
  content: sampleContent,
  includeLogo: true,
  handle: '@acme',
  brand: await makeBrand(),
  background: null,
  scale: 0.25,
});
process.stdout.write(`rendered ${image.width}x${image.height}\n`);
if (!process.argv.includes('--no-close')) await renderer.close();
