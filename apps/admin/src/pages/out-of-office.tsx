import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure, api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { Show } from '../ui/states';
import { Table } from '../ui/table';
import { addDays, dateIn, formatDateTime, zonedToInstant } from '../ui/time';
import { MemberSelect, useMembers } from './members';

type Entry = Schemas['OutOfOfficeView'];

/**
 * Absences (api-rules.md § Out of office and reassignment): a member sets its own, whole dates or part of a day, with an
 * optional teammate who takes its bookings meanwhile; owners and admins set anyone's. Each entry lists the bookings it
 * affects, each with a Reassign button (to the teammate when one is named, else the next round-robin host).
 */
export function OutOfOfficePage(): JSX.Element {
  const { me, timeZone, isAdmin } = useSession();
  const members = useMembers();
  const list = useLoad(() => unwrap(api.GET('/v1/out-of-office', { params: { query: { limit: 100 } } })), []);
  const today = dateIn(new Date(), timeZone);
  const [userId, setUserId] = useState(me.user.id);
  const [partial, setPartial] = useState(false);
  const [fromDate, setFromDate] = useState(today);
  const [toDate, setToDate] = useState(today);
  const [fromTime, setFromTime] = useState(`${today}T09:00`);
  const [toTime, setToTime] = useState(`${today}T13:00`);
  const [note, setNote] = useState('');
  const [redirect, setRedirect] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  // Dates and times are the absent member's (oneself's too), in its schedule's zone: its days, like a date override's.
  // The signed-in user's zone only when the member has no schedule (404); any other failure keeps the form from saving.
  const self = userId === me.user.id;
  const memberZone = useLoad(async () => {
    try {
      const { schedule } = await unwrap(api.GET('/v1/availability/schedules', { params: { query: self ? {} : { userId } } }));
      return { zone: schedule.timezone, scheduled: true };
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 404) return { zone: timeZone, scheduled: false };
      throw error;
    }
  }, [userId, timeZone]);
  const zone = memberZone.data?.zone ?? timeZone;
  const zoneHint = !memberZone.data
    ? 'Reading the member’s zone…'
    : memberZone.data.scheduled
      ? `In ${zone}, ${self ? 'your' : 'the member’s'} schedule’s zone`
      : `In ${zone}, your zone (${self ? 'you have' : 'this member has'} no schedule)`;
  const { submit, pending, problem } = useSubmit(async () => {
    // Whole dates run from the first date's local midnight to the one after the last date, in the member's zone.
    const startsAt = partial ? zonedToInstant(fromTime, zone) : zonedToInstant(`${fromDate}T00:00`, zone);
    const endsAt = partial ? zonedToInstant(toTime, zone) : zonedToInstant(`${addDays(toDate, 1)}T00:00`, zone);
    await unwrap(
      api.POST('/v1/out-of-office', {
        body: {
          ...(userId !== me.user.id ? { userId } : {}),
          startsAt: startsAt.toISOString(),
          endsAt: endsAt.toISOString(),
          ...(note ? { note } : {}),
          ...(redirect ? { redirectToUserId: redirect } : {}),
        },
      }),
    );
    setNote('');
    list.reload();
  });
  const emailOf = (id: string | null): string =>
    id === null ? '—' : ((members.data ?? []).find((member) => member.userId === id)?.email ?? id);
  const remove = async (entry: Entry): Promise<void> => {
    if (!window.confirm('Remove this absence? Its bookings stay as they are.')) return;
    await unwrap(api.DELETE('/v1/out-of-office/{id}', { params: { path: { id: entry.id } } }));
    list.reload();
  };
  const reassign = async (entry: Entry, bookingId: string): Promise<void> => {
    setNotice(null);
    const result = await api.POST('/v1/bookings/{id}/reassign', {
      params: { path: { id: bookingId } },
      body: entry.redirectToUserId ? { hostUserId: entry.redirectToUserId } : {},
    });
    if (result.error) setNotice(`Not reassigned: ${result.error.message}`);
    else setNotice(`Reassigned to ${emailOf(result.data.booking.hostUserId)}.`);
    list.reload();
  };
  return (
    <section>
      <h1>Out of office</h1>
      <form onSubmit={submit} noValidate class="panel" aria-label="New absence">
        <FormAlert problem={problem} />
        {isAdmin && (
          <MemberSelect
            label="Member"
            name="userId"
            value={userId}
            onChange={(id) => {
              setUserId(id);
              if (redirect === id) setRedirect('');
            }}
          />
        )}
        <Field label="Part of a day" name="partial" problem={problem}>
          {(props) => (
            <input {...props} type="checkbox" checked={partial} onChange={(e) => setPartial((e.target as HTMLInputElement).checked)} />
          )}
        </Field>
        {partial ? (
          <>
            <Field label="From" name="startsAt" problem={problem} hint={zoneHint}>
              {(props) => <input {...props} type="datetime-local" value={fromTime} onInput={(e) => setFromTime(inputValue(e))} />}
            </Field>
            <Field label="Until" name="endsAt" problem={problem}>
              {(props) => <input {...props} type="datetime-local" value={toTime} onInput={(e) => setToTime(inputValue(e))} />}
            </Field>
          </>
        ) : (
          <>
            <Field label="First day" name="startsAt" problem={problem} hint={zoneHint}>
              {(props) => <input {...props} type="date" value={fromDate} onInput={(e) => setFromDate(inputValue(e))} />}
            </Field>
            <Field label="Last day" name="endsAt" problem={problem}>
              {(props) => <input {...props} type="date" value={toDate} onInput={(e) => setToDate(inputValue(e))} />}
            </Field>
          </>
        )}
        <Field label="Note" name="note" problem={problem}>
          {(props) => <input {...props} maxLength={200} value={note} onInput={(e) => setNote(inputValue(e))} />}
        </Field>
        <MemberSelect
          label={userId === me.user.id ? 'Teammate who takes my bookings' : 'Teammate who takes the bookings'}
          name="redirectToUserId"
          value={redirect}
          onChange={setRedirect}
          anyLabel="Nobody"
          exclude={userId}
        />
        {memberZone.error && <p role="alert">Could not read the member’s zone: {memberZone.error.message}</p>}
        <button type="submit" disabled={pending || memberZone.loading || memberZone.data === undefined}>
          Save absence
        </button>
      </form>
      {notice && <p role="status">{notice}</p>}
      <Show loaded={list} isEmpty={(data) => data.outOfOffice.length === 0} empty="No absences.">
        {(data) => (
          <Table caption="Absences" columns={['Member', 'From', 'Until', 'Teammate', 'Affected bookings', 'Actions']}>
            {data.outOfOffice.map((entry) => (
              <tr key={entry.id}>
                <td>{emailOf(entry.userId)}</td>
                <td>{formatDateTime(entry.startsAt, timeZone)}</td>
                <td>{formatDateTime(entry.endsAt, timeZone)}</td>
                <td>{emailOf(entry.redirectToUserId)}</td>
                <td>
                  {entry.affectedBookings.length === 0 ? (
                    'None'
                  ) : (
                    <ul>
                      {entry.affectedBookings.map((booking) => (
                        <li key={booking.id}>
                          <a href={`/admin/bookings/${booking.id}`}>{formatDateTime(booking.startsAt, timeZone)}</a>{' '}
                          <button type="button" onClick={() => void reassign(entry, booking.id)} aria-label={`Reassign ${booking.id}`}>
                            Reassign
                          </button>
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td>
                  <button type="button" class="danger" onClick={() => void remove(entry)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Show>
    </section>
  );
}
