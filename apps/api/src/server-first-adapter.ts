import { FastifyAdapter } from '@nestjs/platform-fastify';

/**
 * Nest's `app.close()` runs the modules' `onModuleDestroy` hooks (the calendar clients, the rate limits' Redis …) and
 * only then closes the HTTP server: answers still under way, and requests arriving meanwhile, would meet closed modules.
 * This adapter closes the server in the step Nest runs before any hook (`beforeClose`): readiness off and the drain
 * (`beforeServerClose`, set by createApp), then the server closed once every answer under way is sent
 * (close-connections.ts). Nest's own close of the server, after the hooks, finds it closed.
 */
export class ServerFirstFastifyAdapter extends FastifyAdapter {
  beforeServerClose: () => Promise<void> = async () => undefined;
  private closing: Promise<void> | undefined;

  override async beforeClose(): Promise<void> {
    super.beforeClose();
    await this.beforeServerClose();
    await this.close();
  }

  override close(): Promise<void> {
    this.closing ??= super.close();
    return this.closing;
  }
}
