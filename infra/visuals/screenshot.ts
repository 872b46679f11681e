// A screenshot framed in a browser-style window (title bar with three dots and an address bar) on the branded
// canvas, with optional eyebrow, title and body above it. Layouts: centered, tilted (a slight rotation), and
// closeup (a window larger than the canvas, cropped by its edges). `crop` zooms into the screenshot around a
// focus point.

import type { ScreenshotRenderRequest } from './contract.js';
import {
  bodyBlock,
  canvasRoot,
  column,
  contentArea,
  dataUri,
  eyebrowBlock,
  fitBlocks,
  footer,
  footerHeight,
  h,
  imageDimensions,
  titleBlock,
  type Block,
  type Canvas,
  type El,
} from './layout.js';
import { familyStack } from './fonts.js';
import { isDark } from './theme.js';

export interface WindowColors {
  chrome: string;
  border: string;
  addressBackground: string;
  addressText: string;
  viewport: string;
}

export const windowColors: Record<'light' | 'dark', WindowColors> = {
  light: {
    chrome: '#eceef2',
    border: '#d3d7de',
    addressBackground: '#ffffff',
    addressText: '#3d4450',
    viewport: '#ffffff',
  },
  dark: {
    chrome: '#262a31',
    border: '#3a3f48',
    addressBackground: '#16191e',
    addressText: '#c8cdd5',
    viewport: '#0f1115',
  },
};

/** `auto` follows the canvas: a dark window on a dark canvas, a light one on a light canvas. */
export function windowThemeFor(c: Canvas, wanted: ScreenshotRenderRequest['windowTheme']): 'light' | 'dark' {
  if (wanted !== 'auto') return wanted;
  return isDark(c.palette.background) ? 'dark' : 'light';
}

const dots = ['#ff5f57', '#febc2e', '#28c840'];

/** The largest font size (≤ `size`) at which `text` fits `width`, shortened with an ellipsis below `min`. */
function fitLine(
  c: Canvas,
  text: string,
  size: number,
  min: number,
  width: number,
): { text: string; size: number } {
  const m = c.bodyRegular;
  const natural = m.width(text, size);
  if (natural <= width) return { text, size };
  const shrunk = (size * width) / natural;
  if (shrunk >= min) return { text, size: shrunk };
  let cut = text;
  while (cut.length > 1 && m.width(`${cut}…`, min) > width) cut = cut.slice(0, -1);
  return { text: `${cut}…`, size: min };
}

function browserWindow(
  c: Canvas,
  request: ScreenshotRenderRequest,
  width: number,
  viewportHeight: number,
  bar: number,
  shadow: boolean,
): El {
  const colors = windowColors[windowThemeFor(c, request.windowTheme)];
  const radius = Math.round(bar * 0.28);
  const dot = Math.round(bar * 0.26);
  const shot = imageDimensions(request.screenshot);
  const crop = request.crop ?? { zoom: 1, focusX: 0.5, focusY: 0 };
  const zoom = Math.max(1, crop.zoom);
  const scale = Math.max(width / shot.width, viewportHeight / shot.height) * zoom;
  const shownW = shot.width * scale;
  const shownH = shot.height * scale;
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const left = clamp(width / 2 - crop.focusX * shownW, width - shownW, 0);
  const top = clamp(viewportHeight / 2 - crop.focusY * shownH, viewportHeight - shownH, 0);

  const addressWidth = width * 0.52;
  const addressHeight = bar * 0.6;
  const address = request.addressBar
    ? fitLine(c, request.addressBar, bar * 0.32, bar * 0.24, addressWidth - addressHeight)
    : null;

  return h(
    'div',
    {
      display: 'flex',
      flexDirection: 'column',
      width,
      flexShrink: 0,
      borderRadius: radius,
      overflow: 'hidden',
      border: `1px solid ${colors.border}`,
      backgroundColor: colors.viewport,
      // resvg cannot draw a shadow's filter for a window running off the canvas (it panics), so a closeup
      // has none; it needs none, the canvas edge frames it.
      ...(shadow ? { boxShadow: `0 ${bar * 0.5}px ${bar * 1.4}px rgba(0,0,0,0.28)` } : {}),
    },
    h(
      'div',
      {
        display: 'flex',
        position: 'relative',
        flexDirection: 'row',
        alignItems: 'center',
        width,
        height: bar,
        backgroundColor: colors.chrome,
        paddingLeft: bar * 0.45,
      },
      ...dots.map((color, i) =>
        h('div', {
          display: 'flex',
          width: dot,
          height: dot,
          borderRadius: dot,
          backgroundColor: color,
          marginLeft: i === 0 ? 0 : dot * 0.6,
        }),
      ),
      h(
        'div',
        {
          display: 'flex',
          position: 'absolute',
          left: (width - addressWidth) / 2,
          top: (bar - addressHeight) / 2,
          width: addressWidth,
          height: addressHeight,
          borderRadius: addressHeight / 2,
          backgroundColor: colors.addressBackground,
          alignItems: 'center',
          justifyContent: 'center',
          fontFamily: familyStack(c.body),
          fontSize: address?.size ?? bar * 0.32,
          color: colors.addressText,
          whiteSpace: 'nowrap',
        },
        address?.text ?? null,
      ),
    ),
    // The screenshot as the viewport's background: sized and placed for the crop, clipped by the viewport
    // itself (a nested clip does not follow a rotated window in satori).
    h('div', {
      display: 'flex',
      width,
      height: viewportHeight,
      backgroundImage: `url(${dataUri(request.screenshot)})`,
      backgroundSize: `${shownW}px ${shownH}px`,
      backgroundPosition: `${left}px ${top}px`,
      backgroundRepeat: 'no-repeat',
    }),
  );
}

export function screenshotLayout(c: Canvas, request: ScreenshotRenderRequest, shrink: number): El {
  const area = contentArea(c);
  const footerOptions = { includeLogo: request.includeLogo, handle: request.handle, brand: request.brand };
  const fh = footerHeight(c, footerOptions);
  const footGap = fh && request.layout !== 'closeup' ? Math.round(c.unit * 0.04) : 0;
  const closeup = request.layout === 'closeup';
  const align = closeup ? 'left' : 'center';
  // A closeup keeps the top right for the footer, its text to the left of it.
  const textWidth = closeup && fh ? area.width * 0.62 : area.width;

  const content = request.content ?? {};
  const blocks: Block[] = [];
  if (content.eyebrow) blocks.push(eyebrowBlock(c, content.eyebrow, align));
  if (content.title)
    blocks.push(titleBlock(c, content.title, { max: c.unit * 0.07, min: c.unit * 0.035, align, gap: 0.35 }));
  if (content.body) blocks.push(bodyBlock(c, content.body, align));
  const textBudget = blocks.length ? (area.height - fh - footGap) * 0.3 * shrink : 0;
  let textHeight = 0;
  let textEl: El | null = null;
  if (blocks.length) {
    const sizes = fitBlocks(blocks, textWidth, textBudget);
    textHeight = sizes.reduce(
      (sum, size, i) => sum + blocks[i]!.height(size, textWidth) + (i ? blocks[i]!.gap(size) : 0),
      0,
    );
    textEl = column(blocks, textWidth, textBudget, align);
  }
  const textGap = blocks.length ? Math.round(c.unit * 0.055) : 0;

  // The region the window goes in.
  // A closeup with no text still keeps its top-right footer clear of the window.
  const above = Math.max(textHeight + textGap, closeup && fh ? fh + Math.round(c.unit * 0.04) : 0);
  const region = {
    left: area.left,
    top: area.top + above,
    width: area.width,
    height: area.height - above - (closeup ? 0 : fh + footGap),
  };
  const shot = imageDimensions(request.screenshot);
  // The viewport keeps the screenshot's shape, within sensible bounds (a long page shows its top).
  const aspect = Math.min(2.4, Math.max(0.62, shot.width / shot.height));

  let windowEl: El;
  if (closeup) {
    const width = c.width * 1.08;
    const bar = Math.max(30, width * 0.04);
    const viewportHeight = width / aspect;
    windowEl = h(
      'div',
      { display: 'flex', position: 'absolute', left: region.left, top: region.top },
      browserWindow(c, request, width, viewportHeight, bar, false),
    );
  } else {
    const tilt = request.layout === 'tilted' ? 4 : 0;
    const rad = (tilt * Math.PI) / 180;
    // Window size (bar ≈ 4% of its width) whose rotated bounding box fits the region.
    const ratio = 1 / aspect + 0.045;
    const boxW = (w: number) => w * Math.cos(rad) + w * ratio * Math.sin(rad);
    const boxH = (w: number) => w * Math.sin(rad) + w * ratio * Math.cos(rad);
    let width = region.width * (tilt ? 0.94 : 1);
    while (width > 40 && (boxW(width) > region.width || boxH(width) > region.height)) width *= 0.98;
    const bar = Math.max(24, width * 0.045);
    const viewportHeight = width / aspect;
    const total = bar + viewportHeight;
    windowEl = h(
      'div',
      {
        display: 'flex',
        position: 'absolute',
        left: region.left + (region.width - width) / 2,
        top: region.top + (region.height - total) / 2,
        ...(tilt ? { transform: `rotate(-${tilt}deg)` } : {}),
      },
      browserWindow(c, request, width, viewportHeight, bar, true),
    );
  }

  const foot = footer(c, footerOptions, closeup ? area.width * 0.34 : area.width);
  return canvasRoot(
    c,
    null,
    null,
    windowEl,
    textEl
      ? h(
          'div',
          { display: 'flex', position: 'absolute', left: area.left, top: area.top, width: area.width },
          textEl,
        )
      : null,
    foot
      ? h(
          'div',
          {
            display: 'flex',
            position: 'absolute',
            left: area.left,
            // A closeup's window runs off the bottom edge: its footer sits top right instead.
            top: closeup ? area.top : c.height - c.margin - fh,
            ...(closeup ? { width: area.width, justifyContent: 'flex-end' } : {}),
          },
          foot,
        )
      : null,
  );
}
