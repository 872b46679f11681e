// One LISTEN connection per channel, opened lazily and re-opened after it drops; notifications call the handler.
// Shared by the event store (appends), the read-your-writes waiter and the projection commit wake-ups.
// Notifications sent while no connection listens are lost: `onConnectionChange` tells the owner when a connection
// starts listening and when it drops, so it can wake its sleepers to read again (and call ensure() to reconnect).
import pg from 'pg';

export class PgListener {
  private client: pg.Client | null = null;
  private ready: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onNotification: (payload: string | undefined) => void,
    private readonly applicationName = `listen-${channel}`,
    private readonly onConnectionChange?: (listening: boolean) => void,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Invalid channel name: ${channel}`);
  }

  /** Resolves once the connection listens; a failure leaves it closed so the next call tries again. */
  ensure(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.ready) return this.ready;
    const client = new pg.Client({ connectionString: this.url, application_name: this.applicationName });
    this.client = client;
    let listening = false;
    const reset = () => {
      if (this.client === client) {
        this.client = null;
        this.ready = null;
      }
      if (listening && !this.closed) {
        listening = false;
        this.onConnectionChange?.(false);
      }
    };
    client.on('error', reset);
    client.on('end', reset);
    client.on('notification', (message) => this.onNotification(message.payload));
    this.ready = client
      .connect()
      .then(() => client.query(`listen ${this.channel}`))
      .then(() => {
        if (this.client !== client) return;
        listening = true;
        this.onConnectionChange?.(true);
      })
      .catch((error: unknown) => {
        reset();
        throw error;
      });
    return this.ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    this.ready = null;
    if (client) await client.end().catch(() => undefined);
  }
}
