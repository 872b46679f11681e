// Mail through an SMTP server (SMTP_URL, e.g. smtps://user:pass@smtp.example.org:465), from MAIL_FROM.
import type { Transporter } from 'nodemailer';
import type { MailMessage, Mailer } from './port.js';

export interface SmtpMailerOptions {
  /** `smtp://` (STARTTLS when offered) or `smtps://` (TLS from the start), credentials in the URL. */
  url: string;
  from: string;
}

/** nodemailer is loaded by the first message: a start (and a mailer that never sends) does without it. */
export class SmtpMailer implements Mailer {
  private transport: Promise<Transporter> | undefined;

  constructor(private readonly options: SmtpMailerOptions) {}

  private transporter(): Promise<Transporter> {
    return (this.transport ??= import('nodemailer').then((nodemailer) =>
      nodemailer.default.createTransport(this.options.url),
    ));
  }

  async send(message: MailMessage): Promise<void> {
    await (
      await this.transporter()
    ).sendMail({
      from: this.options.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html !== undefined ? { html: message.html } : {}),
    });
  }

  close(): void {
    void this.transport?.then((transport) => transport.close());
  }
}
