// The notification mailer: sends what the notifications read model marks for e-mail, through the mail port.
// Action-required notifications go at once, one message each; the rest a member chose to get by e-mail go in one
// daily digest, at DIGEST_HOUR in the workspace's time zone. Every e-mail is claimed in the mailer's own tables
// (processes/notifications/migrations.ts) keyed by the notification's stable id before it is sent, so a replay
// or a rebuild of the read model never sends one again; failures are retried with a growing delay.
import { sql, type Kysely } from 'kysely';
import { DateTime } from 'luxon';
import type { ProjectionCommitWaits } from '../../projections/engine/commits.js';
import { notificationsProjectionName } from '../../projections/notifications/notifications-projection.js';
import { Rounds } from '../../infra/async/rounds.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { Mailer } from '../../infra/mail/port.js';
import { emailWindowMs } from '../../domain/notifications/inbox.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The hour (workspace time) daily digests go out. */
export const DIGEST_HOUR = 8;
/** Attempts per e-mail before it is marked failed. */
export const MAX_MAIL_ATTEMPTS = 5;

/** Failed sends are tried again after a minute, doubling to an hour. */
export function mailRetryDelayMs(attempts: number): number {
  return Math.min(3_600_000, 60_000 * 2 ** Math.max(0, attempts - 1));
}

export interface NotificationMailerOptions {
  // The mailer's own tables and the read models' public views.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  mailer: Mailer;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  owner: string;
  /** Links in e-mails start with it. */
  publicBaseUrl: string;
  /** The workspace's time zone (its digests follow its days); UTC unless given. */
  timezoneOf?: (orgId: string) => Promise<string>;
  now?: () => Date;
  /**
   * Between rounds; default 5 seconds, or 60 with `commits` (then a commit of the notifications projection starts
   * a round, at most one a second, and retries and digests are sent within a minute of their time).
   */
  intervalMs?: number;
  /** Wake-ups on projection commits: a new notification is mailed at once instead of at the next round. */
  commits?: ProjectionCommitWaits;
  leaseMs?: number;
  batchSize?: number;
}

export interface MailRound {
  sent: number;
  failed: number;
  skipped: number;
  digests: number;
}

interface ClaimedEmail {
  notification_id: string;
  org_id: string;
  user_id: string;
  attempts: number;
}

interface Recipient {
  email: string;
  active: boolean;
}

interface DigestItem {
  id: string;
  title: string;
  body: string | null;
  href: string | null;
  tier: string;
  read_at: string | null;
  dismissed_at: string | null;
}

export class NotificationMailer {
  private readonly now: () => Date;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly timezoneOf: (orgId: string) => Promise<string>;
  private rounds: Rounds | undefined;

  constructor(private readonly options: NotificationMailerOptions) {
    this.now = options.now ?? (() => new Date());
    this.leaseMs = options.leaseMs ?? 2 * 60_000;
    this.batchSize = options.batchSize ?? 50;
    this.timezoneOf = options.timezoneOf ?? (async () => 'UTC');
  }

  start(): Promise<void> {
    const commits = this.options.commits;
    this.rounds ??= new Rounds(
      () => this.runOnce(),
      this.options.intervalMs ?? (commits ? 60_000 : 5_000),
      (error) => this.options.logger.error({ err: error }, 'notification mail round failed'),
      commits && {
        wait: (timeoutMs, signal) => commits.wait([notificationsProjectionName], timeoutMs, signal),
        minGapMs: 1_000,
      },
    );
    this.rounds.start();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    await this.rounds?.stop();
  }

  /** Sends the immediate e-mails due at `now`, then the digests whose hour has come. */
  async runOnce(now: Date = this.now()): Promise<MailRound> {
    const round: MailRound = { sent: 0, failed: 0, skipped: 0, digests: 0 };
    await this.enqueueImmediate(now);
    for (let batch = 0; batch < 20 && !this.rounds?.stopping; batch++) {
      const claimed = await this.claimDue(now);
      for (const row of claimed) {
        const outcome = await this.sendImmediate(row, now);
        round[outcome]++;
      }
      if (claimed.length < this.batchSize) break;
    }
    round.digests = await this.sendDigests(now);
    return round;
  }

  private get db() {
    return this.options.db;
  }

  /** Records a pending e-mail for each immediate notification that has none yet (found once, keyed by its id). */
  private async enqueueImmediate(now: Date): Promise<void> {
    const at = now.toISOString();
    const since = new Date(now.getTime() - emailWindowMs.immediate).toISOString();
    await sql`
      insert into notification_emails
        (notification_id, org_id, user_id, kind, status, next_attempt_at, created_at, updated_at)
      select n.id, n.org_id, n.user_id, 'immediate', 'pending', ${at}, ${at}, ${at}
      from notifications n
      where n.email_mode = 'immediate' and n.created_at > ${since}
        and not exists (select 1 from notification_emails e where e.notification_id = n.id)
      on conflict (notification_id) do nothing`.execute(this.db);
  }

  private async claimDue(now: Date): Promise<ClaimedEmail[]> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const { rows } = await sql<ClaimedEmail>`
      update notification_emails set lease_owner = ${this.options.owner}, lease_until = ${until}
      where notification_id in (
        select notification_id from notification_emails
        where status = 'pending' and kind = 'immediate' and next_attempt_at <= ${at}
          and (lease_until is null or lease_until < ${at})
        order by next_attempt_at
        limit ${this.batchSize}
        for update skip locked)
      returning notification_id, org_id, user_id, attempts`.execute(this.db);
    return rows;
  }

  private async recipient(orgId: string, userId: string): Promise<Recipient | null> {
    if (!uuidPattern.test(userId)) return null;
    const { rows } = await sql<{ email: string | null; active: boolean | null }>`
      select u.email, m.active from users u
      left join notification_members m on m.org_id = ${orgId} and m.user_id = ${userId}
      where u.id = ${userId}::uuid`.execute(this.db);
    const row = rows[0];
    if (!row?.email) return null;
    return { email: row.email, active: row.active === true };
  }

  private link(href: string | null): string | null {
    return href ? `${this.options.publicBaseUrl.replace(/\/$/, '')}${href}` : null;
  }

  private async sendImmediate(row: ClaimedEmail, now: Date): Promise<'sent' | 'failed' | 'skipped'> {
    const { rows } = await sql<DigestItem>`
      select n.id, c.title, c.body, c.href, c.tier, n.read_at, n.dismissed_at
      from notifications n join notification_causes c on c.cause_id = n.cause_id
      where n.id = ${row.notification_id}`.execute(this.db);
    const notification = rows[0];
    const recipient = await this.recipient(row.org_id, row.user_id);
    if (!notification || notification.dismissed_at || !recipient?.active) {
      await this.settle(row.notification_id, 'skipped', now, null);
      return 'skipped';
    }
    const link = this.link(notification.href);
    try {
      await this.options.mailer.send({
        to: recipient.email,
        subject: notification.title,
        text: [notification.body, link, '', 'You get this e-mail because of your notification preferences.']
          .filter((line) => line !== null)
          .join('\n'),
      });
    } catch (error) {
      const attempts = row.attempts + 1;
      const message = error instanceof Error ? error.message : String(error);
      this.options.logger.warn(
        { err: error, notificationId: row.notification_id },
        'notification e-mail failed',
      );
      if (attempts >= MAX_MAIL_ATTEMPTS) {
        await this.settle(row.notification_id, 'failed', now, message, attempts);
        return 'failed';
      }
      await sql`
        update notification_emails set attempts = ${attempts}, last_error = ${message},
          next_attempt_at = ${new Date(now.getTime() + mailRetryDelayMs(attempts)).toISOString()},
          lease_owner = null, lease_until = null, updated_at = ${now.toISOString()}
        where notification_id = ${row.notification_id}`.execute(this.db);
      return 'failed';
    }
    await this.settle(row.notification_id, 'sent', now, null, row.attempts + 1);
    return 'sent';
  }

  private async settle(
    notificationId: string,
    status: 'sent' | 'failed' | 'skipped',
    now: Date,
    error: string | null,
    attempts?: number,
  ): Promise<void> {
    const at = now.toISOString();
    await sql`
      update notification_emails set status = ${status}, last_error = ${error},
        sent_at = ${status === 'sent' ? at : null}, attempts = coalesce(${attempts ?? null}::int, attempts),
        lease_owner = null, lease_until = null, updated_at = ${at}
      where notification_id = ${notificationId}`.execute(this.db);
  }

  /** One digest per member and local day, once the day's DIGEST_HOUR has passed in the workspace's zone. */
  private async sendDigests(now: Date): Promise<number> {
    const since = new Date(now.getTime() - emailWindowMs.digest).toISOString();
    const { rows: members } = await sql<{ org_id: string; user_id: string }>`
      select distinct n.org_id, n.user_id from notifications n
      where n.email_mode = 'digest' and n.created_at > ${since} and n.created_at <= ${now.toISOString()}
        and not exists (select 1 from notification_emails e where e.notification_id = n.id)
      limit 1000`.execute(this.db);
    let sent = 0;
    const zones = new Map<string, Promise<string>>();
    for (const m of members) {
      if (this.rounds?.stopping) break;
      const zone = zones.get(m.org_id) ?? this.timezoneOf(m.org_id).catch(() => 'UTC');
      zones.set(m.org_id, zone);
      const local = DateTime.fromJSDate(now, { zone: await zone });
      if (!local.isValid || local.hour < DIGEST_HOUR) continue;
      const cutoff = local.startOf('day').set({ hour: DIGEST_HOUR });
      if (await this.sendDigest(m.org_id, m.user_id, local.toISODate(), cutoff.toJSDate(), now)) sent++;
    }
    return sent;
  }

  private async sendDigest(
    orgId: string,
    userId: string,
    localDate: string,
    cutoff: Date,
    now: Date,
  ): Promise<boolean> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + this.leaseMs).toISOString();
    const claimed = await sql<{ attempts: number }>`
      insert into notification_digests
        (org_id, user_id, local_date, status, next_attempt_at, lease_owner, lease_until, created_at, updated_at)
      values (${orgId}, ${userId}, ${localDate}, 'pending', ${at}, ${this.options.owner}, ${until}, ${at}, ${at})
      on conflict (org_id, user_id, local_date) do update
        set lease_owner = excluded.lease_owner, lease_until = excluded.lease_until
        where notification_digests.status = 'pending' and notification_digests.next_attempt_at <= ${at}
          and (notification_digests.lease_until is null or notification_digests.lease_until < ${at})
      returning attempts`.execute(this.db);
    const digest = claimed.rows[0];
    if (!digest) return false;

    const since = new Date(now.getTime() - emailWindowMs.digest).toISOString();
    const { rows: candidates } = await sql<DigestItem>`
      select n.id, c.title, c.body, c.href, c.tier, n.read_at, n.dismissed_at
      from notifications n join notification_causes c on c.cause_id = n.cause_id
      where n.org_id = ${orgId} and n.user_id = ${userId} and n.email_mode = 'digest'
        and n.created_at > ${since} and n.created_at < ${cutoff.toISOString()}
        and not exists (select 1 from notification_emails e where e.notification_id = n.id)
      order by n.seq`.execute(this.db);
    // What the member already saw in the app (read or dismissed) is left out of the digest.
    const items = candidates.filter((n) => !n.read_at && !n.dismissed_at);
    const recipient = await this.recipient(orgId, userId);
    const send = items.length > 0 && recipient?.active === true;
    if (send) {
      try {
        await this.options.mailer.send({
          to: recipient.email,
          subject: `Your daily summary: ${items.length} update${items.length === 1 ? '' : 's'}`,
          text: [
            ...items.map(
              (n) => `• ${n.title}${n.body ? ` — ${n.body}` : ''}${n.href ? `\n  ${this.link(n.href)}` : ''}`,
            ),
            '',
            'You get this digest because of your notification preferences.',
          ].join('\n'),
        });
      } catch (error) {
        const attempts = digest.attempts + 1;
        const message = error instanceof Error ? error.message : String(error);
        this.options.logger.warn({ err: error, orgId, userId }, 'notification digest failed');
        await sql`
          update notification_digests set attempts = ${attempts}, last_error = ${message},
            status = ${attempts >= MAX_MAIL_ATTEMPTS ? 'failed' : 'pending'},
            next_attempt_at = ${new Date(now.getTime() + mailRetryDelayMs(attempts)).toISOString()},
            lease_owner = null, lease_until = null, updated_at = ${at}
          where org_id = ${orgId} and user_id = ${userId} and local_date = ${localDate}`.execute(this.db);
        return false;
      }
    }
    const included = new Set(send ? items.map((n) => n.id) : []);
    await this.db.transaction().execute(async (trx) => {
      await sql`
        update notification_digests set status = ${send ? 'sent' : 'empty'}, item_count = ${included.size},
          attempts = attempts + ${send ? 1 : 0}, sent_at = ${send ? at : null},
          lease_owner = null, lease_until = null, updated_at = ${at}
        where org_id = ${orgId} and user_id = ${userId} and local_date = ${localDate}`.execute(trx);
      if (candidates.length === 0) return;
      await sql`
        insert into notification_emails
          (notification_id, org_id, user_id, kind, status, attempts, next_attempt_at, sent_at, digest_date,
           created_at, updated_at)
        select id, ${orgId}, ${userId}, 'digest', case when sent then 'sent' else 'skipped' end,
          case when sent then 1 else 0 end, ${at}, case when sent then ${at}::timestamptz end, ${localDate}::date,
          ${at}, ${at}
        from unnest(${candidates.map((n) => n.id)}::uuid[], ${candidates.map((n) => included.has(n.id))}::boolean[])
          as c(id, sent)
        on conflict (notification_id) do nothing`.execute(trx);
    });
    return send;
  }
}
