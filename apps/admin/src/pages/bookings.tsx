import { Fragment, type JSX } from 'preact';
import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, unwrap, type paths, type Schemas } from '../api/client';
import { pathsV1BookingsGetParametersQueryStatusValues } from '@app/api-types';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { Table } from '../ui/table';
import { Show } from '../ui/states';
import { formatDateTime, instantToZoned, zonedToInstant } from '../ui/time';
import { BookingsWeek } from './bookings-week';
import { MemberSelect } from './members';

type Filters = NonNullable<paths['/v1/bookings']['get']['parameters']['query']>;
const PAGE_SIZE = 20;

/** The week of bookings (the default) or the table with its filters, one click apart (`?view=table`). */
export function BookingsPage(): JSX.Element {
  const { query, route } = useLocation();
  const table = query.view === 'table';
  return (
    <section>
      <h1>Bookings</h1>
      <div class="view-switch" role="group" aria-label="View">
        <button type="button" class={table ? 'secondary' : undefined} aria-pressed={!table} onClick={() => route('/admin/bookings')}>
          Week
        </button>
        <button
          type="button"
          class={table ? undefined : 'secondary'}
          aria-pressed={table}
          onClick={() => route('/admin/bookings?view=table')}
        >
          Table
        </button>
      </div>
      {table ? <BookingsTable /> : <BookingsWeek />}
    </section>
  );
}

function BookingsTable(): JSX.Element {
  const { timeZone, isAdmin } = useSession();
  const [draft, setDraft] = useState<Filters>({});
  const [filters, setFilters] = useState<Filters>({});
  const [page, setPage] = useState(1);
  const eventTypes = useLoad(() => unwrap(api.GET('/v1/event-types', { params: { query: { limit: 100 } } })), []);
  const list = useLoad(
    () => unwrap(api.GET('/v1/bookings', { params: { query: { ...filters, page, limit: PAGE_SIZE } } })),
    [JSON.stringify(filters), page],
  );
  const set = (patch: Partial<Filters>): void => setDraft((current) => ({ ...current, ...patch }));
  const showSeries = (seriesId: string | undefined): void => {
    setPage(1);
    setDraft((current) => ({ ...current, seriesId }));
    setFilters((current) => ({ ...current, seriesId }));
  };
  const apply = (event: Event): void => {
    event.preventDefault();
    setPage(1);
    setFilters(Object.fromEntries(Object.entries(draft).filter(([, value]) => value !== '' && value !== undefined)) as Filters);
  };
  return (
    <>
      <form onSubmit={apply} class="panel filters" aria-label="Filter bookings">
        <Field label="Status" name="status">
          {(props) => (
            <select
              {...props}
              value={draft.status ?? ''}
              onChange={(e) => set({ status: (inputValue(e) || undefined) as Filters['status'] })}
            >
              <option value="">Any</option>
              {pathsV1BookingsGetParametersQueryStatusValues.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="From date" name="startDate">
          {(props) => (
            <input {...props} type="date" value={draft.startDate ?? ''} onInput={(e) => set({ startDate: inputValue(e) || undefined })} />
          )}
        </Field>
        <Field label="To date" name="endDate">
          {(props) => (
            <input {...props} type="date" value={draft.endDate ?? ''} onInput={(e) => set({ endDate: inputValue(e) || undefined })} />
          )}
        </Field>
        <Field label="Event type" name="eventTypeId">
          {(props) => (
            <select {...props} value={draft.eventTypeId ?? ''} onChange={(e) => set({ eventTypeId: inputValue(e) || undefined })}>
              <option value="">Any</option>
              {(eventTypes.data?.eventTypes ?? []).map((eventType) => (
                <option key={eventType.id} value={eventType.id}>
                  {eventType.title}
                </option>
              ))}
            </select>
          )}
        </Field>
        {isAdmin && (
          <MemberSelect
            label="Host"
            name="hostUserId"
            value={draft.hostUserId ?? ''}
            onChange={(id) => set({ hostUserId: id || undefined })}
            anyLabel="Any"
          />
        )}
        <Field label="Attendee email" name="attendeeEmail">
          {(props) => (
            <input
              {...props}
              type="email"
              value={draft.attendeeEmail ?? ''}
              onInput={(e) => set({ attendeeEmail: inputValue(e) || undefined })}
            />
          )}
        </Field>
        <button type="submit">Apply filters</button>
      </form>
      {filters.seriesId && (
        <p role="status" class="panel">
          Showing one recurring series.{' '}
          <button type="button" class="secondary" onClick={() => showSeries(undefined)}>
            Show all bookings
          </button>
        </p>
      )}
      <Show loaded={list} isEmpty={(data) => data.bookings.length === 0} empty="No bookings match.">
        {(data) => (
          <>
            <Table caption="Bookings" columns={[`When (${timeZone})`, 'Event type', 'Attendee', 'Status', 'Series']}>
              {data.bookings.map((booking) => (
                <tr key={booking.id}>
                  <td>
                    <a href={`/admin/bookings/${booking.id}`}>{formatDateTime(booking.startsAt, timeZone)}</a>
                  </td>
                  <td>{booking.eventType.title}</td>
                  <td>{booking.attendee.email}</td>
                  <td>
                    <span class={`badge ${booking.status}`}>{booking.status}</span>
                  </td>
                  <td>
                    {booking.seriesId && (
                      <button
                        type="button"
                        class="link"
                        onClick={() => showSeries(booking.seriesId!)}
                        aria-label={`Show the series of the booking on ${formatDateTime(booking.startsAt, timeZone)}`}
                      >
                        Occurrence {booking.occurrence}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
            <nav class="pager" aria-label="Pages">
              <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Previous
              </button>
              <span>
                Page {data.page} · {data.totalCount} bookings
              </span>
              <button type="button" disabled={!data.hasMore} onClick={() => setPage(page + 1)}>
                Next
              </button>
            </nav>
          </>
        )}
      </Show>
    </>
  );
}

/** An answer as the attendee gave it: a checkbox as Yes or No, several choices joined. */
function answerText(value: Schemas['BookingAnswerView']['value']): string {
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

export function BookingDetailPage(): JSX.Element {
  const { params } = useRoute();
  const { timeZone, isAdmin } = useSession();
  const loaded = useLoad(() => unwrap(api.GET('/v1/bookings/{id}', { params: { path: { id: params.id } } })), [params.id]);
  const [erased, setErased] = useState<Schemas['ErasedCountsView'] | null>(null);
  return (
    <section>
      <p>
        <a href="/admin/bookings">← All bookings</a>
      </p>
      <h1>Booking</h1>
      {erased && (
        <p role="status" class="panel">
          Attendee erased: {erased.bookings} bookings, {erased.holds} holds, {erased.mails} mails, {erased.deliveries} webhook deliveries.
        </p>
      )}
      <Show loaded={loaded}>
        {({ booking }) => (
          <>
            <dl class="facts">
              <dt>Event type</dt>
              <dd>{booking.eventType.title}</dd>
              <dt>Starts</dt>
              <dd>{formatDateTime(booking.startsAt, timeZone)}</dd>
              <dt>Ends</dt>
              <dd>{formatDateTime(booking.endsAt, timeZone)}</dd>
              <dt>Status</dt>
              <dd>
                <span class={`badge ${booking.status}`}>{booking.status}</span>
              </dd>
              <dt>Attendee</dt>
              <dd>
                {[booking.attendee.firstName, booking.attendee.lastName].filter(Boolean).join(' ')} {booking.attendee.email}
              </dd>
              <dt>Attendee’s timezone</dt>
              <dd>{booking.timezone ?? '—'}</dd>
              {booking.meetingUrl && (
                <>
                  <dt>Meeting link</dt>
                  <dd>
                    <a href={booking.meetingUrl}>{booking.meetingUrl}</a>
                  </dd>
                </>
              )}
              {booking.notes && (
                <>
                  <dt>Notes</dt>
                  <dd>{booking.notes}</dd>
                </>
              )}
              {booking.cancelledAt && (
                <>
                  <dt>Cancelled</dt>
                  <dd>
                    {formatDateTime(booking.cancelledAt, timeZone)} by {booking.cancelledBy}{' '}
                    {booking.cancellationReason ? `— ${booking.cancellationReason}` : ''}
                  </dd>
                </>
              )}
              {booking.seriesId && (
                <>
                  <dt>Series</dt>
                  <dd>
                    <SeriesOccurrences seriesId={booking.seriesId} current={booking.id} status={booking.status} />
                  </dd>
                </>
              )}
              {booking.rescheduledToBookingId && (
                <>
                  <dt>Rescheduled to</dt>
                  <dd>
                    <a href={`/admin/bookings/${booking.rescheduledToBookingId}`}>the new booking</a>
                  </dd>
                </>
              )}
            </dl>
            {booking.answers.length > 0 && (
              <section aria-labelledby="booking-answers">
                <h2 id="booking-answers">Answers</h2>
                <dl class="facts">
                  {booking.answers.map((answer) => (
                    <Fragment key={answer.id}>
                      <dt>{answer.label}</dt>
                      <dd>{answerText(answer.value)}</dd>
                    </Fragment>
                  ))}
                </dl>
              </section>
            )}
            <NoShowActions booking={booking} onChanged={loaded.reload} />
            <BookingActions booking={booking} onChanged={loaded.reload} />
            {isAdmin && (
              <EraseAttendee
                booking={booking}
                onErased={(counts) => {
                  setErased(counts);
                  loaded.reload();
                }}
              />
            )}
          </>
        )}
      </Show>
    </section>
  );
}

/**
 * Every occurrence of the booking's series, as it stands (a moved one at its new time), this one marked; read again
 * when this one's status changes (a cancel of the following ones changes theirs too).
 */
function SeriesOccurrences({ seriesId, current, status }: { seriesId: string; current: string; status: string }): JSX.Element {
  const { timeZone } = useSession();
  const series = useLoad(() => unwrap(api.GET('/v1/series/{id}', { params: { path: { id: seriesId } } })), [seriesId, current, status]);
  return (
    <Show loaded={series}>
      {(data) => (
        <>
          {data.series.count} occurrences,{' '}
          {data.series.interval === 1 ? data.series.frequency : `every ${data.series.interval} (${data.series.frequency})`}
          <ol class="series-list" aria-label="Occurrences of the series">
            {data.series.bookings.map((occurrence) => (
              <li
                key={occurrence.id}
                class={occurrence.id === current ? 'current' : undefined}
                aria-current={occurrence.id === current ? 'true' : undefined}
              >
                <a href={`/admin/bookings/${occurrence.id}`}>{formatDateTime(occurrence.startsAt, timeZone)}</a>{' '}
                <span class={`badge ${occurrence.status}`}>{occurrence.status}</span>
              </li>
            ))}
          </ol>
        </>
      )}
    </Show>
  );
}

/** Once a confirmed meeting has started: who did not come (each a toggle; pressing again takes the mark back). */
function NoShowActions({ booking, onChanged }: { booking: Schemas['BookingDetailView']; onChanged: () => void }): JSX.Element | null {
  const toggleMark = async (party: 'attendee' | 'host'): Promise<void> => {
    const body = { party, noShow: !booking.noShow[party] };
    await unwrap(api.POST('/v1/bookings/{id}/no-show', { params: { path: { id: booking.id } }, body }));
    onChanged();
  };
  const marks = { attendee: useSubmit(() => toggleMark('attendee')), host: useSubmit(() => toggleMark('host')) };
  if (booking.status !== 'confirmed' || Date.parse(booking.startsAt) > Date.now()) return null;
  const toggle = (party: 'attendee' | 'host', label: string): JSX.Element => (
    <button
      type="button"
      class="secondary"
      aria-pressed={booking.noShow[party] ? 'true' : 'false'}
      disabled={marks[party].pending}
      onClick={() => void marks[party].submit()}
    >
      {label}
    </button>
  );
  return (
    <div class="panel">
      <h2>Who did not come</h2>
      <FormAlert problem={marks.attendee.problem ?? marks.host.problem} />
      <div class="actions">
        {toggle('attendee', 'The attendee did not come')}
        {toggle('host', 'The host did not come')}
      </div>
    </div>
  );
}

const ERASED_EMAIL = 'erased@invalid';

/**
 * The right to be forgotten (owners and admins): the attendee goes from every booking of the organization, both modes,
 * with every copy; the confirmation names what goes and what stays.
 */
function EraseAttendee({
  booking,
  onErased,
}: {
  booking: Schemas['BookingDetailView'];
  onErased: (counts: Schemas['ErasedCountsView']) => void;
}): JSX.Element | null {
  const erase = useSubmit(async () => {
    const who = [booking.attendee.firstName, booking.attendee.lastName].filter(Boolean).join(' ');
    const question =
      `Erase ${who ? `${who} <${booking.attendee.email}>` : booking.attendee.email} from every booking of the organization, live and test?\n\n` +
      'Erased: their name, email, phone, timezone, notes and answers on those bookings; mails about them (sent or not), ' +
      'webhook deliveries of their events, stored Idempotency-Key responses, queued calendar write-backs, and the client ' +
      'address of their holds.\n\nKept: the bookings themselves (times, status, hosts).\n\nThis cannot be undone.';
    if (!window.confirm(question)) return;
    const result = await unwrap(api.POST('/v1/attendees/erase', { body: { email: booking.attendee.email } }));
    onErased(result.erased);
  });
  if (booking.attendee.email === ERASED_EMAIL) return null;
  return (
    <div class="panel">
      <h2>Personal data</h2>
      <FormAlert problem={erase.problem} />
      <button type="button" class="danger" disabled={erase.pending} onClick={() => void erase.submit()}>
        Erase attendee
      </button>
    </div>
  );
}

function BookingActions({ booking, onChanged }: { booking: Schemas['BookingDetailView']; onChanged: () => void }): JSX.Element | null {
  const { timeZone } = useSession();
  const [reason, setReason] = useState('');
  const [newStart, setNewStart] = useState(() => instantToZoned(booking.startsAt, timeZone));
  const [movedTo, setMovedTo] = useState<string | null>(null);
  const path = { params: { path: { id: booking.id } } };
  const cancel = useSubmit(async () => {
    await unwrap(api.POST('/v1/bookings/{id}/cancel', { ...path, body: { reason: reason || undefined } }));
    onChanged();
  });
  const cancelFollowing = useSubmit(async () => {
    await unwrap(api.POST('/v1/bookings/{id}/cancel', { ...path, body: { reason: reason || undefined, scope: 'following' } }));
    onChanged();
  });
  const confirm = useSubmit(async () => {
    await unwrap(api.POST('/v1/bookings/{id}/confirm', { ...path, body: {} }));
    onChanged();
  });
  const decline = useSubmit(async () => {
    await unwrap(api.POST('/v1/bookings/{id}/decline', { ...path, body: { reason: reason || undefined } }));
    onChanged();
  });
  const reschedule = useSubmit(async () => {
    const instant = zonedToInstant(newStart, timeZone);
    const body = {
      newStartTime: Number.isNaN(instant.getTime()) ? newStart : instant.toISOString(),
      timezone: timeZone,
      reason: reason || undefined,
    };
    const moved = await unwrap(api.POST('/v1/bookings/{id}/reschedule', { ...path, body }));
    setMovedTo(moved.booking.id);
    onChanged();
  });
  if (booking.status === 'cancelled') {
    return movedTo ? (
      <p role="status">
        Rescheduled: <a href={`/admin/bookings/${movedTo}`}>open the new booking</a>
      </p>
    ) : null;
  }
  const problem = cancel.problem ?? cancelFollowing.problem ?? confirm.problem ?? decline.problem;
  return (
    <div class="panel">
      <h2>Change this booking</h2>
      <FormAlert problem={problem} />
      <Field label="Reason (sent to the attendee)" name="reason" problem={problem ?? reschedule.problem}>
        {(props) => <input {...props} value={reason} onInput={(e) => setReason(inputValue(e))} />}
      </Field>
      <div class="actions">
        {booking.status === 'pending' && (
          <>
            <button type="button" disabled={confirm.pending} onClick={() => void confirm.submit()}>
              Confirm
            </button>
            <button type="button" class="secondary" disabled={decline.pending} onClick={() => void decline.submit()}>
              Decline
            </button>
          </>
        )}
        <button type="button" class="danger" disabled={cancel.pending} onClick={() => void cancel.submit()}>
          {booking.seriesId ? 'Cancel this occurrence' : 'Cancel booking'}
        </button>
        {booking.seriesId && (
          <button type="button" class="danger" disabled={cancelFollowing.pending} onClick={() => void cancelFollowing.submit()}>
            Cancel this and the following
          </button>
        )}
      </div>
      <form onSubmit={reschedule.submit} noValidate aria-label="Reschedule">
        <h3>Reschedule</h3>
        <Field label={`New start (${timeZone})`} name="newStartTime" problem={reschedule.problem}>
          {(props) => <input {...props} type="datetime-local" value={newStart} onInput={(e) => setNewStart(inputValue(e))} />}
        </Field>
        {reschedule.problem && !reschedule.problem.fields.newStartTime && <FormAlert problem={reschedule.problem} />}
        <button type="submit" disabled={reschedule.pending}>
          Reschedule
        </button>
      </form>
    </div>
  );
}
