// `npm run cli -- openapi [file]` (what `npm run lint:openapi` lints): the document the app answers at
// /v1/openapi.json, to stdout or to a file (its folder made on the way); anything else is a usage error.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openapiCommand } from '../../api/cli/openapi.js';

const doc = { openapi: '3.1.0', info: { title: 'T', version: '1.0.0' }, paths: {} };
const app = { request: (p: string) => Response.json(p === '/v1/openapi.json' ? doc : {}, { status: 200 }) };
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

test('prints the document, or writes it to a file', async () => {
  const lines: string[] = [];
  expect(await openapiCommand([], { app, out: (l) => lines.push(l) })).toBe(0);
  expect(JSON.parse(lines.join('\n'))).toEqual(doc);

  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-openapi-cli-'));
  const file = path.join(dir, 'dist', 'openapi.json');
  expect(await openapiCommand([file], { app, out: (l) => lines.push(l) })).toBe(0);
  expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(doc);
});

test('usage errors and a failing app', async () => {
  const lines: string[] = [];
  const out = (l: string) => void lines.push(l);
  expect(await openapiCommand(['a', 'b'], { app, out })).toBe(2);
  expect(await openapiCommand(['--pretty'], { app, out })).toBe(2);
  expect(lines.every((l) => l.startsWith('usage: openapi'))).toBe(true);
  const failing = { request: () => new Response('no', { status: 500 }) };
  expect(await openapiCommand([], { app: failing, out })).toBe(1);
});
