// `cli sign-in-link` (a one-time URL on the last line, opening it shows the Continue button) and `cli mail last`
// (the newest message to an address, its link alone on the last line), run as the operator runs them
// (`tsx api/cli.ts …`) against the service's database.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formField, lastSignInLink, mergeCookies, postForm } from '../../support/browser-sign-in.js';
import { startTestService, type TestService } from '../../support/runtime.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service?.stop());

async function cli(...args: string[]): Promise<{ code: number; lines: string[] }> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/cli.ts', ...args], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: service.database.url,
      DATA_DIR: service.dataDir,
      PUBLIC_BASE_URL: 'http://localhost:3000',
      LOG_LEVEL: 'error',
      SMTP_URL: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  return { code, lines: stdout.trimEnd().split('\n') };
}

describe('sign-in-link', () => {
  test('prints a one-time URL on its last line; opening it shows Continue, which signs in once', async () => {
    const email = `operator-${Date.now()}@example.org`;
    const { code, lines } = await cli('sign-in-link', '--email', email, '--return-to', '/sign-in/done?x=1');
    expect(code).toBe(0);
    const url = lines.at(-1)!;
    expect(url).toMatch(/^http:\/\/localhost:3000\/sign-in\/verify\?token=[A-Za-z0-9_-]{43}$/);
    const link = url.slice('http://localhost:3000'.length);
    const page = await service.request('GET', link);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Continue');
    const cookie = mergeCookies('', page);
    const fields = { token: formField(html, 'token'), csrf: formField(html, 'csrf') };
    const done = await postForm(service, '/sign-in/verify', fields, cookie);
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/sign-in/done?x=1');
    expect((await postForm(service, '/sign-in/verify', fields, cookie)).status).toBe(400);
  }, 60_000);

  test('usage errors: no address, a return-to off this service', async () => {
    expect((await cli('sign-in-link')).code).toBe(2);
    const away = await cli('sign-in-link', '--email', 'a@example.org', '--return-to', 'https://evil.example');
    expect(away.code).toBe(2);
    expect(away.lines.join('\n')).toContain('--return-to must be a path of this service');
  }, 60_000);
});

describe('mail last', () => {
  test('prints the newest message to the address with the link alone on the last line', async () => {
    const email = `Mailbox-${Date.now()}@example.org`;
    const form = await service.request('GET', '/sign-in');
    const cookie = mergeCookies('', form);
    const csrf = formField(await form.text(), 'csrf');
    expect((await postForm(service, '/sign-in', { email, csrf }, cookie)).status).toBe(200);
    const { code, lines } = await cli('mail', 'last', '--to', email.toLowerCase());
    expect(code).toBe(0);
    expect(lines[0]).toBe(`To: ${email}`);
    expect(lines).toContain('Subject: Your sign-in link');
    expect(lines.at(-1)).toBe(`http://localhost:3000${await lastSignInLink(service, email)}`);
  }, 60_000);

  test('no message: exit 1 saying so; a bad command: usage', async () => {
    expect(await cli('mail', 'last', '--to', 'nobody@example.org')).toEqual({
      code: 1,
      lines: ['no message to nobody@example.org'],
    });
    expect((await cli('mail', 'first', '--to', 'nobody@example.org')).code).toBe(2);
    expect((await cli('mail', 'last')).code).toBe(2);
  }, 60_000);
});
