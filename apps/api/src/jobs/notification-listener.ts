import type { Logger } from '@nestjs/common';
import pg from 'pg';
import { KEEPALIVE_IDLE_MS } from '@app/database';

const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * A dedicated connection LISTENing on one channel. LISTEN needs a session of its own (a pooled
 * connection would be handed to queries and lose it). Losing the connection costs only latency, since
 * the worker polls as well; it reconnects with backoff and wakes the worker once listening again.
 */
export class NotificationListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectDelayMs = 1_000;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
    private readonly onNotify: () => void,
    private readonly logger: Logger,
    /** Shown in pg_stat_activity, so operators (and tests) can tell the listeners apart. */
    private readonly applicationName: string,
  ) {}

  /** Resolves once listening or once the first attempt failed; it never throws. */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      // An idle LISTEN session on a machine that vanished is noticed by keepalive probes, then reconnected and re-armed.
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
      connectionTimeoutMillis: 10_000,
      application_name: this.applicationName,
    });
    let lost = false;
    const onLost = (error?: unknown): void => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ msg: 'Notification connection lost; polling until it is back', channel: this.channel, error: errorName(error) });
      this.reconnectTimer = setTimeout(() => void this.connect(), this.reconnectDelayMs);
      this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, MAX_RECONNECT_DELAY_MS);
    };
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.onNotify();
    });
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      onLost(error);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.reconnectDelayMs = 1_000;
    // Anything committed while nobody listened is due now.
    this.onNotify();
  }
}

function errorName(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error';
}
