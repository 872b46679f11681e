// Fixtures for the renderer's tests: a brand with a logo, a photo and an app screenshot, all drawn here with
// satori and resvg so the tests need no binary files besides the goldens.

import { Resvg } from '@resvg/resvg-js';
import satori from 'satori';
import type { CarouselSlide, ImageInput, RenderBrand, VisualContent } from '../../infra/visuals/contract.js';
import { fontsFor } from '../../infra/visuals/fonts.js';

type Node = { type: string; props: Record<string, unknown> };
const div = (style: Record<string, unknown>, ...children: (Node | string)[]): Node => ({
  type: 'div',
  props: { style: { display: 'flex', ...style }, children },
});

async function png(element: Node, width: number, height: number): Promise<ImageInput> {
  const svg = await satori(element, { width, height, fonts: fontsFor('Inter', 'Inter') });
  const data = new Uint8Array(new Resvg(svg, { font: { loadSystemFonts: false } }).render().asPng());
  return { data, contentType: 'image/png', width, height };
}

/** A 240×80 logo: an orange rounded square and a dark teal word mark. */
export function makeLogo(): Promise<ImageInput> {
  return png(
    div(
      { width: 240, height: 80, alignItems: 'center' },
      div({ width: 64, height: 64, borderRadius: 16, backgroundColor: '#ff6b35' }),
      div({ marginLeft: 14, fontFamily: 'Inter', fontWeight: 700, fontSize: 46, color: '#ff6b35' }, 'acme'),
    ),
    240,
    80,
  );
}

/** A 1200×800 "photo": a soft colourful gradient with bright and dark areas (the scrim must hold on both). */
export function makePhoto(): Promise<ImageInput> {
  return png(
    div(
      {
        width: 1200,
        height: 800,
        backgroundImage: 'linear-gradient(135deg, #fef3c7 0%, #f97316 40%, #7c3aed 75%, #0f172a 100%)',
      },
      div({
        position: 'absolute',
        left: 700,
        top: 80,
        width: 360,
        height: 360,
        borderRadius: 360,
        backgroundColor: '#ffffff',
      }),
    ),
    1200,
    800,
  );
}

/** A 1440×900 app screenshot: a sidebar, a header and a few cards. */
export function makeScreenshot(): Promise<ImageInput> {
  const card = (title: string, value: string, color: string) =>
    div(
      {
        flexDirection: 'column',
        width: 330,
        height: 170,
        marginRight: 28,
        padding: 28,
        borderRadius: 16,
        backgroundColor: '#ffffff',
        border: '1px solid #e5e7eb',
      },
      div({ fontFamily: 'Inter', fontSize: 22, color: '#6b7280' }, title),
      div({ marginTop: 14, fontFamily: 'Inter', fontWeight: 700, fontSize: 56, color }, value),
    );
  return png(
    div(
      { width: 1440, height: 900, backgroundColor: '#f3f4f6' },
      div(
        { flexDirection: 'column', width: 260, height: 900, backgroundColor: '#111827', padding: 32 },
        div({ fontFamily: 'Inter', fontWeight: 700, fontSize: 30, color: '#ffffff' }, 'acme'),
        ...['Dashboard', 'Posts', 'Calendar', 'Analytics', 'Settings'].map((item, i) =>
          div(
            {
              marginTop: i === 0 ? 48 : 22,
              fontFamily: 'Inter',
              fontSize: 22,
              color: i === 0 ? '#ffffff' : '#9ca3af',
            },
            item,
          ),
        ),
      ),
      div(
        { flexDirection: 'column', padding: 48, width: 1180 },
        div({ fontFamily: 'Inter', fontWeight: 700, fontSize: 40, color: '#111827' }, 'Good morning, Maya'),
        div(
          { marginTop: 36, flexDirection: 'row' },
          card('Scheduled', '24', '#4f46e5'),
          card('Published', '138', '#059669'),
          card('Engagement', '+18%', '#ea580c'),
        ),
        div({
          marginTop: 36,
          width: 1046,
          height: 420,
          borderRadius: 16,
          backgroundColor: '#ffffff',
          border: '1px solid #e5e7eb',
          backgroundImage: 'linear-gradient(180deg, #eef2ff 0%, #ffffff 100%)',
        }),
      ),
    ),
    1440,
    900,
  );
}

export async function makeBrand(): Promise<RenderBrand> {
  return {
    colors: { primary: '#0f3d3e', secondary: '#e8f1ef', accent: '#ff6b35', background: null },
    headingFont: 'Poppins',
    bodyFont: 'Inter',
    logo: await makeLogo(),
  };
}

export const emptyBrand: RenderBrand = {
  colors: { primary: null, secondary: null, accent: null, background: null },
  headingFont: null,
  bodyFont: null,
  logo: null,
};

export const sampleContent: VisualContent = {
  eyebrow: 'Product update',
  title: 'Ship weekly updates your customers actually read',
  body: 'Three habits from teams who turned their changelog into their best marketing channel.',
  stat: '87%',
  attribution: 'Maya Chen, Head of Growth',
  cta: 'Read the guide',
  bullets: ['Write for the reader, not the release', 'Lead with the outcome', 'Show one screenshot, not ten'],
};

export const longContent: VisualContent = {
  eyebrow: 'An unusually long eyebrow that keeps going past where anyone would stop',
  title:
    'A title far too long for any social image: it goes on and on, clause after clause, with words like internationalisation and responsibilities, until no designer would accept it, and then it goes on a bit more just to be sure',
  body: 'A body to match. '.repeat(30).trim(),
  stat: '1,234,567,890+',
  attribution: 'Someone with a very long name and an even longer job title at a company with a long name',
  cta: 'A call to action that is really far longer than a button should ever be',
  bullets: Array.from(
    { length: 8 },
    (_, i) => `Bullet ${i + 1}: ${'quite a long point to make '.repeat(3).trim()}`,
  ),
};

export const sampleSlides: CarouselSlide[] = [
  {
    layout: 'cover',
    eyebrow: 'Playbook',
    title: 'Five ways to make your changelog sell',
    body: 'A short guide for product teams.',
  },
  { layout: 'point', title: 'Lead with the outcome', body: 'Say what the customer can do now, then how.' },
  {
    layout: 'stat',
    stat: '3×',
    title: 'more clicks on updates with one screenshot',
    body: 'Across 1,200 posts we looked at.',
  },
  {
    layout: 'quote',
    title: 'Our changelog became our best-read newsletter.',
    attribution: 'Maya Chen, Acme',
  },
  {
    layout: 'list',
    title: 'Before you publish',
    bullets: ['One idea per update', 'A real screenshot', 'A clear next step'],
  },
  { layout: 'cta', title: 'Want the full playbook?', body: 'Twelve pages, free.', cta: 'Get the guide' },
];
