// Mail through an SMTP server (SMTP_URL, e.g. smtps://user:pass@smtp.example.org:465), from MAIL_FROM.
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailMessage, Mailer } from './port.js';

export interface SmtpMailerOptions {
  /** `smtp://` (STARTTLS when offered) or `smtps://` (TLS from the start), credentials in the URL. */
  url: string;
  from: string;
}

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(private readonly options: SmtpMailerOptions) {
    this.transport = nodemailer.createTransport(options.url);
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({
      from: this.options.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html !== undefined ? { html: message.html } : {}),
    });
  }

  close(): void {
    this.transport.close();
  }
}
