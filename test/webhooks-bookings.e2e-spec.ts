import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg } from './support/bookings.js';
import { createWebhook, WebhookReceiver } from './support/webhooks.js';

/** The whole path: a booking made through the API reaches the subscribed endpoint of its mode, signed. */
describe('booking events through webhooks', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('delivers booking.created and booking.cancelled as the API shows the booking, each to its own mode', async () => {
    const org = await bookingOrg(t);
    for (const [path, auth] of [
      ['/live', { apiKey: org.apiKey }],
      ['/sandbox', { apiKey: org.testKey }],
    ] as const) {
      const created = await createWebhook(t.http, auth, { url: receiver.url(path), events: ['booking.created', 'booking.cancelled'] });
      receiver.expectSecret(path, created.secret);
    }

    const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    expect(booked.status).toBe(201);
    const bookingId = booked.body.booking.id;
    const cancelled = await t.http.post(`/v1/bookings/${bookingId}/cancel`, { reason: 'conflict' }, { apiKey: org.apiKey });
    expect(cancelled.status).toBe(200);
    const sandboxBooking = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z'), { apiKey: org.testKey });
    expect(sandboxBooking.status).toBe(201);

    await receiver.waitFor(() => receiver.at('/live').length === 2 && receiver.at('/sandbox').length === 1, 8000, 'booking events');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const live = receiver.at('/live').map((r) => r.payload);
    expect(live.map((p) => p.type).sort()).toEqual(['booking.cancelled', 'booking.created']);
    const createdEvent = live.find((p) => p.type === 'booking.created');
    expect(createdEvent).toMatchObject({ livemode: true, data: { booking: { id: bookingId, startsAt: '2027-03-02T10:00:00.000Z' } } });
    expect(createdEvent.data.booking.confirmationToken).toBeUndefined();
    expect(live.find((p) => p.type === 'booking.cancelled')).toMatchObject({ data: { booking: { id: bookingId, status: 'cancelled' } } });
    expect(receiver.at('/sandbox').map((r) => r.payload)).toEqual([
      expect.objectContaining({
        type: 'booking.created',
        livemode: false,
        data: expect.objectContaining({ booking: expect.objectContaining({ id: sandboxBooking.body.booking.id }) }),
      }),
    ]);
    expect(receiver.unverified()).toEqual([]);
  });
});
