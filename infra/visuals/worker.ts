// The worker thread's entry (piscina): runs one render task with the in-thread renderer and hands the PNG and
// PDF bytes back by transfer rather than by copy.

import { getPriority, setPriority } from 'node:os';
import { Piscina } from 'piscina';
import type { RenderTask, RenderTaskResult } from './pool.js';
import { renderImage, renderScreenshot, renderSlides } from './render.js';

// Renders give way to the request thread: on Linux a thread's nice value is its own, so raising this worker
// thread's by 10 leaves the process's request handling at full priority while the cores are busy rendering.
// (Elsewhere it would lower the whole process, so it is left alone there.)
if (process.platform === 'linux') setPriority(0, Math.min(19, getPriority(0) + 10));

/** A result whose byte buffers move to the main thread (piscina's transferable protocol). */
class Moved {
  constructor(
    private readonly value: RenderTaskResult,
    private readonly buffers: ArrayBuffer[],
  ) {}
  get [Piscina.transferableSymbol](): ArrayBuffer[] {
    return this.buffers;
  }
  get [Piscina.valueSymbol](): RenderTaskResult {
    return this.value;
  }
}

/** A copy of `bytes` in an ArrayBuffer of its own (safe to transfer: nothing else shares it). */
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
    ? bytes
    : bytes.slice();
}

/** Reads a logo file (jsdom, DOMPurify and resvg are loaded by the first logo task, not by every thread). */
async function logoTask(task: Extract<RenderTask, { kind: 'logo' | 'renderable-logo' }>): Promise<unknown> {
  const { NotALogo, readLogoFile, renderableLogo } = await import('../brand/logo-image.js');
  let result: RenderTaskResult;
  try {
    if (task.kind === 'logo') result = { kind: 'logo', file: await readLogoFile(task.bytes) };
    else result = { kind: 'renderable-logo', logo: await renderableLogo(task.bytes) };
  } catch (error) {
    if (error instanceof NotALogo)
      return { kind: 'not-a-logo', message: error.message } satisfies RenderTaskResult;
    throw error;
  }
  return result;
}

export default async function run(task: RenderTask): Promise<unknown> {
  if (task.kind === 'logo' || task.kind === 'renderable-logo') return logoTask(task);
  let result: RenderTaskResult;
  switch (task.kind) {
    case 'image':
      result = { kind: 'image', image: await renderImage(task.request) };
      break;
    case 'screenshot':
      result = { kind: 'screenshot', image: await renderScreenshot(task.request) };
      break;
    case 'slides':
      result = { kind: 'slides', ...(await renderSlides(task.request, task.from, task.to)) };
      break;
  }
  if (result.kind !== 'image' && result.kind !== 'screenshot' && result.kind !== 'slides') return result;
  const images = result.kind === 'slides' ? result.slides : [result.image];
  for (const image of images) image.png = own(image.png);
  const buffers = images.map((image) => image.png.buffer as ArrayBuffer);
  if (result.kind === 'slides' && result.pages) {
    for (const page of result.pages) {
      page.deflated = own(page.deflated);
      buffers.push(page.deflated.buffer as ArrayBuffer);
    }
  }
  return Piscina.move(new Moved(result, buffers) as unknown as Parameters<typeof Piscina.move>[0]);
}
