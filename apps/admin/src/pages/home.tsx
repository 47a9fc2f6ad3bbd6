import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { allPages, api, MAX_PAGE, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad, type Loaded } from '../ui/async';
import { checked, FormAlert, useSubmit } from '../ui/form';
import { Show } from '../ui/states';
import { addDays, dateIn, dayHeading, firstDayOfWeek, formatDateTime, weekStart, zonedToInstant } from '../ui/time';
import { WeekGrid } from '../ui/week-grid';
import { bookingItem, everyBooking } from './bookings-week';
import { failedText } from './webhooks';

/** The console's landing page: today, the rest of the week, what waits for a decision, what is broken. */
export function HomePage(): JSX.Element {
  const { timeZone, isAdmin, me } = useSession();
  const [team, setTeam] = useState(false);
  const today = dateIn(new Date(), timeZone);
  const weekEnd = addDays(weekStart(today, firstDayOfWeek()), 7);
  const from = zonedToInstant(`${today}T00:00`, timeZone).toISOString();
  const to = zonedToInstant(`${weekEnd}T00:00`, timeZone).toISOString();
  const host = team ? {} : { hostUserId: me.user.id };
  const week = useLoad(() => everyBooking({ startDate: from, endDate: to, status: 'confirmed', ...host }), [from, to, team]);
  const pending = useLoad(
    () =>
      unwrap(
        api.GET('/v1/bookings', { params: { query: { status: 'pending', startDate: new Date().toISOString(), limit: 20, ...host } } }),
      ),
    [team],
  );
  const todays = (week.data ?? []).filter((booking) => dateIn(new Date(booking.startsAt), timeZone) === today);
  const later = (week.data ?? []).filter((booking) => dateIn(new Date(booking.startsAt), timeZone) !== today);
  return (
    <section>
      <h1>Home</h1>
      {isAdmin && (
        <label class="check">
          <input type="checkbox" checked={team} onChange={(e) => setTeam(checked(e))} />
          Show the whole team’s meetings
        </label>
      )}
      <div class="home-columns">
        <section aria-labelledby="home-today">
          <h2 id="home-today">Today, {dayHeading(today)}</h2>
          {week.data && todays.length === 0 && <p class="empty">No meetings today.</p>}
          <WeekGrid
            caption={`Meetings today, in ${timeZone}`}
            columns={[{ key: today, date: today, heading: dayHeading(today) }]}
            timeZone={timeZone}
            items={todays.map((booking) => bookingItem(booking, today, timeZone))}
            now={new Date()}
          />
        </section>
        <div>
          <section aria-labelledby="home-week">
            <h2 id="home-week">Later this week</h2>
            <Show loaded={week} isEmpty={() => later.length === 0} empty="Nothing else this week.">
              {() => (
                <ul class="attention">
                  {later.map((booking) => (
                    <li key={booking.id}>
                      <a href={`/admin/bookings/${booking.id}`}>{formatDateTime(booking.startsAt, timeZone)}</a> {booking.eventType.title}{' '}
                      with {booking.attendee.email}
                    </li>
                  ))}
                </ul>
              )}
            </Show>
          </section>
          <PendingList loaded={pending} />
          <Attention />
        </div>
      </div>
    </section>
  );
}

type Booking = Schemas['BookingDetailView'];

function PendingList({ loaded }: { loaded: Loaded<Schemas['BookingListResponse']> }): JSX.Element {
  return (
    <section aria-labelledby="home-pending">
      <h2 id="home-pending">Waiting for confirmation</h2>
      <Show loaded={loaded} isEmpty={(data) => data.bookings.length === 0} empty="No bookings wait for a decision.">
        {(data) => (
          <>
            <ul class="attention">
              {data.bookings.map((booking) => (
                <PendingRow key={booking.id} booking={booking} />
              ))}
            </ul>
            {data.hasMore && (
              <p class="hint">
                And {data.totalCount - data.bookings.length} more: the <a href="/admin/bookings?view=table">bookings table</a> lists them
                (status pending).
              </p>
            )}
          </>
        )}
      </Show>
    </section>
  );
}

/** A pending booking, confirmed or declined in place. */
function PendingRow({ booking }: { booking: Booking }): JSX.Element {
  const { timeZone } = useSession();
  const [decided, setDecided] = useState<string | null>(null);
  const path = { params: { path: { id: booking.id } }, body: {} };
  const confirm = useSubmit(async () => {
    await unwrap(api.POST('/v1/bookings/{id}/confirm', path));
    setDecided('Confirmed');
  });
  const decline = useSubmit(async () => {
    await unwrap(api.POST('/v1/bookings/{id}/decline', path));
    setDecided('Declined');
  });
  const when = formatDateTime(booking.startsAt, timeZone);
  const what = `${booking.eventType.title} with ${booking.attendee.email} on ${when}`;
  return (
    <li>
      <a href={`/admin/bookings/${booking.id}`}>{when}</a> {booking.eventType.title} with {booking.attendee.email}{' '}
      {decided ? (
        <span role="status">{decided}</span>
      ) : (
        <>
          <button type="button" disabled={confirm.pending} aria-label={`Confirm ${what}`} onClick={() => void confirm.submit()}>
            Confirm
          </button>{' '}
          <button
            type="button"
            class="secondary"
            disabled={decline.pending}
            aria-label={`Decline ${what}`}
            onClick={() => void decline.submit()}
          >
            Decline
          </button>
        </>
      )}
      <FormAlert problem={confirm.problem ?? decline.problem} />
    </li>
  );
}

/**
 * Calendars whose last sync failed, and (owners and admins) webhooks paused or with failed deliveries in a day: the
 * webhook list counts those itself, so this is one request per hundred webhooks, not one per webhook.
 */
function Attention(): JSX.Element {
  const { isAdmin } = useSession();
  const problems = useLoad(async () => {
    const calendars = (await unwrap(api.GET('/v1/calendars'))).calendars.filter((calendar) => calendar.status === 'error');
    if (!isAdmin) return { calendars, webhooks: [] };
    const webhooks = await allPages(
      (page) => unwrap(api.GET('/v1/webhooks', { params: { query: { page, limit: MAX_PAGE } } })),
      (answer) => answer.webhooks,
    );
    return { calendars, webhooks: webhooks.filter((webhook) => webhook.failedDeliveriesLast24h > 0 || !webhook.active) };
  }, [isAdmin]);
  return (
    <section aria-labelledby="home-attention">
      <h2 id="home-attention">Needs attention</h2>
      <Show
        loaded={problems}
        isEmpty={(data) => data.calendars.length === 0 && data.webhooks.length === 0}
        empty="Nothing is broken: every calendar syncs and every webhook delivers."
      >
        {(data) => (
          <ul class="attention">
            {data.calendars.map((calendar) => (
              <li key={calendar.id}>
                Calendar <a href="/admin/calendars">{calendar.name}</a> cannot be read: {calendar.lastSyncError ?? 'unknown error'}
              </li>
            ))}
            {data.webhooks.map((webhook) => (
              <li key={webhook.id}>
                Webhook <a href={`/admin/webhooks/${webhook.id}`}>{webhook.url}</a>
                {!webhook.active && ' is paused'}
                {webhook.failedDeliveriesLast24h > 0 &&
                  `${webhook.active ? '' : ' and'} has ${failedText(webhook.failedDeliveriesLast24h)} in the last 24 hours`}
              </li>
            ))}
          </ul>
        )}
      </Show>
    </section>
  );
}
