// The SMTP adapter against a real (local, in-process) SMTP server: the message as sent, authentication from the
// URL, a refused recipient as an error; and the sign-in page mailing its link through SMTP when SMTP_URL is set.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError } from '../../../infra/config/env.js';
import { loadEnv } from '../../../api/env.js';
import { SmtpMailer } from '../../../infra/mail/smtp-mailer.js';
import { formField, mergeCookies, postForm } from '../../support/browser-sign-in.js';
import { startTestService, type TestService } from '../../support/runtime.js';

interface Received {
  from: string | undefined;
  to: string[];
  user: string | undefined;
  raw: string;
}

const received: Received[] = [];

/** The raw message with quoted-printable soft breaks and escapes undone (enough to read its parts' text). */
function readable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
let server: SMTPServer;
let port: number;

beforeAll(async () => {
  server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'mailer' && auth.password === 's3cret') callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@refused.example')) callback(new Error('No such mailbox'));
      else callback();
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

describe('SmtpMailer', () => {
  test('sends the message with From, To, subject, text and HTML parts, authenticated from the URL', async () => {
    const mailer = new SmtpMailer({
      url: `smtp://mailer:s3cret@127.0.0.1:${port}`,
      from: 'Social Publishing <no-reply@example.org>',
    });
    try {
      await mailer.send({
        to: 'person@example.org',
        subject: 'Your sign-in link',
        text: 'Open this link:\n\nhttp://localhost:3000/sign-in/verify?token=abc\n',
        html: '<p>Open <a href="http://localhost:3000/sign-in/verify?token=abc">this link</a></p>',
      });
    } finally {
      mailer.close();
    }
    const last = received.at(-1)!;
    expect(last).toMatchObject({ from: 'no-reply@example.org', to: ['person@example.org'], user: 'mailer' });
    expect(last.raw).toMatch(/^Subject: Your sign-in link\r$/m);
    expect(last.raw).toMatch(/^From: Social Publishing <no-reply@example.org>\r$/m);
    expect(last.raw).toMatch(/^To: person@example.org\r$/m);
    expect(last.raw).toMatch(/^Content-Type: text\/plain/m);
    expect(last.raw).toMatch(/^Content-Type: text\/html/m);
    const text = readable(last.raw);
    expect(text).toContain('http://localhost:3000/sign-in/verify?token=abc');
    expect(text).toContain('href="http://localhost:3000/sign-in/verify?token=abc"');
  });

  test('a refused recipient or wrong credentials: send rejects', async () => {
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: 'no-reply@example.org' });
    const wrong = new SmtpMailer({
      url: `smtp://mailer:nope@127.0.0.1:${port}`,
      from: 'no-reply@example.org',
    });
    try {
      await expect(mailer.send({ to: 'x@refused.example', subject: 's', text: 't' })).rejects.toThrow();
      await expect(wrong.send({ to: 'x@example.org', subject: 's', text: 't' })).rejects.toThrow();
    } finally {
      mailer.close();
      wrong.close();
    }
  });

  test('SMTP_URL needs MAIL_FROM, and must be an smtp(s) URL', () => {
    expect(() => loadEnv({ SMTP_URL: 'smtp://127.0.0.1:25' })).toThrow(ConfigError);
    expect(() => loadEnv({ SMTP_URL: 'http://x', MAIL_FROM: 'a@example.org' })).toThrow(/SMTP_URL/);
    expect(loadEnv({ SMTP_URL: 'smtp://127.0.0.1:25', MAIL_FROM: 'a@example.org' }).SMTP_URL).toBe(
      'smtp://127.0.0.1:25',
    );
  });
});

describe('the sign-in page with SMTP_URL set', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'no-reply@example.org' },
    });
  });
  afterAll(async () => service?.stop());

  test('mails the link through the SMTP server, and the link signs in', async () => {
    const email = `smtp-${Date.now()}@example.org`;
    const form = await service.request('GET', '/sign-in');
    const cookie = mergeCookies('', form);
    const sent = await postForm(
      service,
      '/sign-in',
      { email, csrf: formField(await form.text(), 'csrf') },
      cookie,
    );
    expect(sent.status).toBe(200);
    const mail = received.find((m) => m.to.includes(email));
    expect(mail).toBeDefined();
    const url = /http:\/\/localhost:3000\/sign-in\/verify\?token=[A-Za-z0-9_-]{43}/.exec(
      readable(mail!.raw),
    )?.[0];
    expect(url).toBeDefined();
    const page = await service.request('GET', url!.slice('http://localhost:3000'.length));
    const html = await page.text();
    const done = await postForm(
      service,
      '/sign-in/verify',
      { token: formField(html, 'token'), csrf: formField(html, 'csrf') },
      mergeCookies('', page),
    );
    expect(done.status).toBe(303);
  });

  test('a failing SMTP server: 503, the page says so', async () => {
    const email = `smtp-fail-${Date.now()}@refused.example`;
    const form = await service.request('GET', '/sign-in');
    const cookie = mergeCookies('', form);
    const sent = await postForm(
      service,
      '/sign-in',
      { email, csrf: formField(await form.text(), 'csrf') },
      cookie,
    );
    expect(sent.status).toBe(503);
    expect(await sent.text()).toContain('Mail could not be sent');
  });
});
