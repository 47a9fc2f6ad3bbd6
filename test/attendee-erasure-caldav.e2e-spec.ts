import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { waitFor } from './support/process.js';
import { RadicaleServer } from './support/radicale.js';

const USER = 'ann';
const PASSWORD = 'radicale-pass-Erase-7';
const PERSON = { email: 'wilhelmina.inflight@example.com', firstName: 'Wilhelmina', lastName: 'Inflight' };

/**
 * An HTTP relay in front of Radicale that can hold back the PUTs of one object: the first of them waits until the test
 * lets it go (a calendar server slow to answer one worker while another worker runs), the ones after it pass at once.
 */
class GatedRelay {
  private held: (() => void) | null = null;
  private gate: { path: string; release: Promise<void> } | null = null;
  heldPuts = 0;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<GatedRelay> {
    const ready: { relay?: GatedRelay } = {};
    const server = createServer((request, response) => void ready.relay!.forward(target, request, response));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    ready.relay = new GatedRelay(server, `http://127.0.0.1:${address.port}/`);
    return ready.relay;
  }

  /** The next PUT whose path ends with `suffix` waits until `release()`. */
  holdNextPut(suffix: string): void {
    this.gate = { path: suffix, release: new Promise((resolve) => (this.held = resolve)) };
  }

  release(): void {
    this.held?.();
  }

  private async forward(target: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const gate = this.gate;
    if (request.method === 'PUT' && gate && request.url?.endsWith(gate.path)) {
      this.gate = null;
      this.heldPuts++;
      await gate.release;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'].includes(name)) {
        headers[name] = value;
      }
    }
    const answer = await fetch(new URL(request.url ?? '/', target), {
      method: request.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined,
    });
    const body = Buffer.from(await answer.arrayBuffer());
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)) out[name] = value;
    });
    response.writeHead(answer.status, { ...out, 'content-length': String(body.length) });
    response.end(body);
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Contract § 18: a calendar write-back in flight during an erasure. Two instances, each with its worker, on one
 * database; the host's CalDAV server (real Radicale) answers the booking's first PUT only when the test says so, after
 * the erasure committed and the other worker had every chance to overtake it. The host's calendar ends with the
 * erased event.
 */
describe('attendee erasure: a calendar write-back in flight (contract § 18, real CalDAV, two workers)', () => {
  let a: TestApp;
  let b: TestApp;
  let dav: RadicaleServer;
  let relay: GatedRelay;
  let org: BookingOrg;

  beforeAll(async () => {
    dav = await RadicaleServer.start({ [USER]: PASSWORD });
    await dav.makeCalendar(USER, PASSWORD, `/${USER}/work/`, 'Work');
    relay = await GatedRelay.start(dav.url('/'));
    a = await startTestApp();
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { DATA_DIR: a.config.dataDir } });
    org = await bookingOrg(a);
    const who = { token: org.owner.accessToken };
    const connected = await a.http.post('/v1/calendars', { type: 'caldav', url: relay.url, username: USER, password: PASSWORD }, who);
    expect(connected.status).toBe(201);
    const destination = await a.http.patch(
      `/v1/calendars/${connected.body.calendar.id}`,
      { calendars: [{ id: connected.body.calendar.calendars[0].id, isDestination: true }] },
      who,
    );
    expect(destination.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await relay?.stop();
    await dav?.stop();
  });

  it('the erased PUT waits for the PUT still in flight, so the calendar ends with the erased event', async () => {
    const start = '2027-03-05T13:00:00Z';
    // The booking's PUT goes out (on whichever instance's worker claims it) and is held at the calendar server.
    relay.holdNextPut('.ics');
    const booked = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, start, { attendee: PERSON }), { apiKey: org.apiKey });
    expect(booked.status).toBe(201);
    const id = booked.body.booking.id as string;
    await waitFor(async () => (relay.heldPuts === 1 ? true : undefined), 15_000, 'the first PUT in flight');

    const erased = await b.http.post('/v1/attendees/erase', { email: PERSON.email }, { apiKey: org.apiKey });
    expect(erased.status).toBe(200);
    expect(erased.body.erased.bookings).toBe(1);
    // Both workers are woken by the erased PUT's notification; give them time to (wrongly) carry it out first.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const early = await dav.get(USER, PASSWORD, `/${USER}/work/${id}.ics`);
    expect(early.status).toBe(404);

    // The first PUT lands now, late; the erased one must come after it.
    relay.release();
    const path = `/${USER}/work/${id}.ics`;
    await waitFor(
      async () => {
        const copy = await dav.get(USER, PASSWORD, path);
        return copy.status === 200 && copy.text.includes('Erased attendee') ? true : undefined;
      },
      15_000,
      'the erased event on the calendar',
    );
    // Settled: every write of the booking is finished, and the last one carried out is the erased PUT.
    await waitFor(
      async () => {
        const rows = (await a.app
          .get(DataSource)
          .query(`SELECT count(*) AS n FROM calendar_writes WHERE booking_id = $1 AND status = 'pending'`, [id])) as {
          n: string;
        }[];
        return Number(rows[0].n) === 0 ? true : undefined;
      },
      15_000,
      'no write pending',
    );
    const final = await dav.get(USER, PASSWORD, path);
    expect(final.text).toContain(`UID:${id}`);
    expect(final.text).toContain('Erased attendee');
    for (const trace of [PERSON.email, PERSON.firstName, PERSON.lastName]) {
      expect({ trace, found: final.text.toLowerCase().includes(trace.toLowerCase()) }).toEqual({ trace, found: false });
    }
  });
});
