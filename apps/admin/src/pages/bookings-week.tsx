import type { JSX } from 'preact';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { allPages, api, MAX_PAGE, unwrap, type paths, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { Field, inputValue } from '../ui/form';
import {
  addDays,
  datesBetween,
  dateIn,
  dayHeading,
  firstDayOfWeek,
  formatDateTime,
  formatTime,
  weekStart,
  zonedToInstant,
} from '../ui/time';
import { useNarrow, WeekGrid, type GridBand, type GridColumn, type GridItem } from '../ui/week-grid';
import { useMembers } from './members';

type Booking = Schemas['BookingDetailView'];
type Schedule = Schemas['ScheduleView'];
type Override = Schemas['OverrideView'];

const ALL = 'all';

type BookingQuery = Omit<NonNullable<paths['/v1/bookings']['get']['parameters']['query']>, 'page' | 'limit'>;

/** Every booking the filters match, however many pages that takes (a grid that stopped at one page would hide some). */
export function everyBooking(query: BookingQuery): Promise<Booking[]> {
  return allPages(
    (page) => unwrap(api.GET('/v1/bookings', { params: { query: { ...query, page, limit: MAX_PAGE } } })),
    (answer) => answer.bookings,
  );
}

/** A booking as a block of the grid, named by when and what for a screen reader. */
export function bookingItem(booking: Booking, column: string, timeZone: string): GridItem {
  const attendee = [booking.attendee.firstName, booking.attendee.lastName].filter(Boolean).join(' ') || booking.attendee.email;
  const until = formatTime(booking.endsAt, timeZone);
  return {
    key: booking.id,
    column,
    start: booking.startsAt,
    end: booking.endsAt,
    kind: booking.status,
    title: booking.eventType.title,
    detail: booking.status === 'confirmed' ? attendee : `${attendee} · ${booking.status}`,
    label: `${formatDateTime(booking.startsAt, timeZone)} to ${until}, ${booking.eventType.title} with ${attendee}, ${booking.status}`,
    href: `/admin/bookings/${booking.id}`,
  };
}

/**
 * Working hours as bands: each weekly window (or the override that replaces a date's) in the schedule's own zone,
 * as instants, for the dates around the grid's (a window may cross midnight in the grid's zone).
 */
export function workingBands(schedule: Schedule, overrides: Override[], dates: string[], column: (date: string) => string): GridBand[] {
  const bands: GridBand[] = [];
  const byDate = new Map(overrides.map((override) => [override.date, override]));
  for (const date of datesBetween(addDays(dates[0], -1), addDays(dates[dates.length - 1], 1))) {
    const override = byDate.get(date);
    const dayOfWeek = new Date(`${date}T12:00:00Z`).getUTCDay();
    const windows = override ? override.slots : (schedule.schedules.find((day) => day.dayOfWeek === dayOfWeek)?.slots ?? []);
    for (const window of windows) {
      const start = zonedToInstant(`${date}T${window.startTime}`, schedule.timezone).toISOString();
      const endDate = window.endTime === '24:00' ? addDays(date, 1) : date;
      const end = zonedToInstant(`${endDate}T${window.endTime === '24:00' ? '00:00' : window.endTime}`, schedule.timezone).toISOString();
      for (const shown of dates) bands.push({ column: column(shown), start, end, kind: 'working' });
    }
  }
  return bands;
}

async function scheduleOf(userId: string | undefined): Promise<Schedule | null> {
  const { data, response } = await api.GET('/v1/availability/schedules', { params: { query: userId ? { userId } : {} } });
  if (response.status === 404) return null;
  return data?.schedule ?? null;
}

/**
 * The week (or, narrow or for the whole team, the day) of bookings as a time grid, with working and busy time; the
 * week of `?date=` (default today).
 */
export function BookingsWeek(): JSX.Element {
  const { timeZone, isAdmin, me } = useSession();
  const narrow = useNarrow();
  const members = useMembers();
  const { query, route } = useLocation();
  const today = dateIn(new Date(), timeZone);
  // The shown date is in the address (`?date=`), so a week can be linked to and Back goes to the week before.
  const anchor = /^\d{4}-\d{2}-\d{2}$/.test(query.date ?? '') ? query.date! : today;
  const setAnchor = (date: string): void => route(`/admin/bookings?date=${date}`);
  const [who, setWho] = useState(me.user.id);
  const all = who === ALL;
  const dayView = narrow || all;
  const dates = dayView ? [anchor] : datesBetween(weekStart(anchor, firstDayOfWeek()), addDays(weekStart(anchor, firstDayOfWeek()), 6));
  const from = zonedToInstant(`${dates[0]}T00:00`, timeZone).toISOString();
  const to = zonedToInstant(`${addDays(dates[dates.length - 1], 1)}T00:00`, timeZone).toISOString();
  const other = who !== me.user.id && !all ? who : undefined;
  const key = [from, to, who];
  const bookings = useLoad(() => everyBooking({ startDate: from, endDate: to, ...(all ? {} : { hostUserId: who }) }), key);
  const context = useLoad(async () => {
    if (all) return null;
    const userQuery = other ? { userId: other } : {};
    const [schedule, overrides, busy] = await Promise.all([
      scheduleOf(other),
      unwrap(
        api.GET('/v1/availability/overrides', {
          params: { query: { startDate: addDays(dates[0], -1), endDate: addDays(dates[dates.length - 1], 1), ...userQuery } },
        }),
      ),
      unwrap(
        api.GET('/v1/calendars/busy', {
          params: { query: { start: dates[0], end: dates[dates.length - 1], timezone: timeZone, ...userQuery } },
        }),
      ),
    ]);
    return { schedule, overrides: overrides.overrides, busy: busy.busy };
  }, key);

  const people = (members.data ?? []).filter((member) => member.userId && member.status === 'active');
  const columns: GridColumn[] = all
    ? people.map((member) => ({ key: member.userId!, date: anchor, heading: member.email.split('@')[0] }))
    : dates.map((date) => ({ key: date, date, heading: dayHeading(date) }));
  const columnOf = (booking: Booking): string => (all ? booking.hostUserId : dateIn(new Date(booking.startsAt), timeZone));
  const items = (bookings.data ?? []).map((booking) => bookingItem(booking, columnOf(booking), timeZone));
  const bands: GridBand[] = [];
  if (context.data) {
    if (context.data.schedule) bands.push(...workingBands(context.data.schedule, context.data.overrides, dates, (date) => date));
    for (const busy of context.data.busy) {
      for (const date of dates) bands.push({ column: date, start: busy.start, end: busy.end, kind: 'busy' });
    }
  }
  const step = dayView ? 1 : 7;
  const title = dayView ? dayHeading(anchor) : `${dayHeading(dates[0])} – ${dayHeading(dates[dates.length - 1])}`;
  return (
    <section aria-label="Week of bookings">
      <div class="week-nav">
        <h2>{title}</h2>
        <button type="button" class="secondary" onClick={() => setAnchor(addDays(anchor, -step))}>
          {dayView ? 'Previous day' : 'Previous week'}
        </button>
        <button type="button" class="secondary" onClick={() => setAnchor(today)}>
          Today
        </button>
        <button type="button" class="secondary" onClick={() => setAnchor(addDays(anchor, step))}>
          {dayView ? 'Next day' : 'Next week'}
        </button>
        {isAdmin && (
          <Field label="Whose bookings" name="who">
            {(props) => (
              <select {...props} value={who} onChange={(e) => setWho(inputValue(e))}>
                <option value={me.user.id}>Mine</option>
                {people
                  .filter((member) => member.userId !== me.user.id)
                  .map((member) => (
                    <option key={member.id} value={member.userId!}>
                      {member.email}
                    </option>
                  ))}
                <option value={ALL}>Everyone (one column each, by day)</option>
              </select>
            )}
          </Field>
        )}
      </div>
      <p class="legend" aria-hidden="true">
        <span>
          <span class="swatch" style={{ background: '#dce8f8', border: '1px solid #1f5fbf' }} />
          confirmed
        </span>
        <span>
          <span class="swatch" style={{ background: '#fff6dc', border: '1px dashed #8a6100' }} />
          pending
        </span>
        <span>
          <span class="swatch" style={{ background: '#f3f3f3', border: '1px solid #9aa3ad' }} />
          cancelled
        </span>
        {!all && (
          <>
            <span>
              <span class="swatch" style={{ background: '#eaf3ea' }} />
              working hours
            </span>
            <span>
              <span class="swatch wg-band busy" style={{ position: 'static' }} />
              busy in a calendar
            </span>
          </>
        )}
      </p>
      {bookings.error ? (
        <p role="alert">{bookings.error.message}</p>
      ) : (
        <WeekGrid
          caption={`Bookings, ${title}, in ${timeZone}`}
          columns={columns}
          timeZone={timeZone}
          items={items}
          bands={bands}
          now={new Date()}
        />
      )}
    </section>
  );
}
