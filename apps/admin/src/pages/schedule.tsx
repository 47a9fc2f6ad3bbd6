import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { Show } from '../ui/states';
import { ZonePicker } from '../ui/zone-picker';
import { addDays, dateIn } from '../ui/time';
import { MemberSelect } from './members';

type Day = Schemas['ScheduleDayDto'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Owners and admins pick whose schedule; a member sees only its own (no picker, no `userId`). */
export function MemberPicker({ userId, onChange }: { userId: string; onChange: (userId: string) => void }): JSX.Element | null {
  const { isAdmin } = useSession();
  return isAdmin ? <MemberSelect label="Member" name="userId" value={userId} onChange={onChange} /> : null;
}

export function SchedulePage(): JSX.Element {
  const { me } = useSession();
  const [userId, setUserId] = useState(me.user.id);
  return (
    <section>
      <h1>Schedule</h1>
      <MemberPicker userId={userId} onChange={setUserId} />
      <WeeklySchedule key={`week-${userId}`} userId={userId} />
      <Overrides key={`overrides-${userId}`} userId={userId} />
    </section>
  );
}

function WeeklySchedule({ userId }: { userId: string }): JSX.Element {
  const { me, timeZone } = useSession();
  const query = userId === me.user.id ? {} : { userId };
  const loaded = useLoad(async () => {
    try {
      return (await unwrap(api.GET('/v1/availability/schedules', { params: { query } }))).schedule;
    } catch (error) {
      if (error instanceof ApiFailure && error.status === 404) return null;
      throw error;
    }
  }, [userId]);
  const [zone, setZone] = useState(timeZone);
  const [days, setDays] = useState<Day[]>([]);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (loaded.data === undefined) return;
    setZone(loaded.data?.timezone ?? timeZone);
    setDays(DAYS.map((_, dayOfWeek) => ({ dayOfWeek, slots: loaded.data?.schedules.find((d) => d.dayOfWeek === dayOfWeek)?.slots ?? [] })));
  }, [loaded.data]);
  const { submit, pending, problem } = useSubmit(async () => {
    setSaved(false);
    const schedules = days.filter((day) => day.slots.length > 0);
    await unwrap(api.PUT('/v1/availability/schedules', { params: { query }, body: { timezone: zone, schedules } }));
    setSaved(true);
  });
  const setSlot = (dayOfWeek: number, index: number, patch: Partial<Day['slots'][number]> | null): void =>
    setDays((current) =>
      current.map((day) =>
        day.dayOfWeek !== dayOfWeek
          ? day
          : {
              ...day,
              slots:
                patch === null ? day.slots.filter((_, i) => i !== index) : day.slots.map((s, i) => (i === index ? { ...s, ...patch } : s)),
            },
      ),
    );
  const addSlot = (dayOfWeek: number): void =>
    setDays((current) =>
      current.map((day) =>
        day.dayOfWeek === dayOfWeek ? { ...day, slots: [...day.slots, { startTime: '09:00', endTime: '17:00' }] } : day,
      ),
    );
  return (
    <Show loaded={loaded}>
      {() => (
        <form onSubmit={submit} noValidate class="panel" aria-label="Weekly schedule">
          <h2>Weekly hours</h2>
          <FormAlert problem={problem} details />
          <Field label="Timezone of these hours" name="timezone" problem={problem} hint="Type a city or an offset, e.g. Berlin or GMT+1">
            {(props) => <ZonePicker {...props} value={zone} onChange={setZone} />}
          </Field>
          {days.map((day) => (
            <fieldset key={day.dayOfWeek} class="day">
              <legend>{DAYS[day.dayOfWeek]}</legend>
              {day.slots.length === 0 && <p class="empty">Unavailable</p>}
              {day.slots.map((slot, index) => (
                <div class="interval" key={index}>
                  <label>
                    From
                    <input
                      type="time"
                      value={slot.startTime}
                      onInput={(e) => setSlot(day.dayOfWeek, index, { startTime: inputValue(e) })}
                    />
                  </label>
                  <label>
                    To
                    <input type="time" value={slot.endTime} onInput={(e) => setSlot(day.dayOfWeek, index, { endTime: inputValue(e) })} />
                  </label>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => setSlot(day.dayOfWeek, index, null)}
                    aria-label={`Remove ${DAYS[day.dayOfWeek]} interval ${index + 1}`}
                  >
                    Remove
                  </button>
                </div>
              ))}
              <button
                type="button"
                class="secondary"
                onClick={() => addSlot(day.dayOfWeek)}
                aria-label={`Add hours on ${DAYS[day.dayOfWeek]}`}
              >
                Add hours
              </button>
            </fieldset>
          ))}
          <button type="submit" disabled={pending}>
            Save weekly hours
          </button>
          {saved && <p role="status">Saved.</p>}
        </form>
      )}
    </Show>
  );
}

function Overrides({ userId }: { userId: string }): JSX.Element {
  const { me, timeZone } = useSession();
  const query = userId === me.user.id ? {} : { userId };
  const today = dateIn(new Date(), timeZone);
  const list = useLoad(
    () =>
      unwrap(api.GET('/v1/availability/overrides', { params: { query: { ...query, startDate: today, endDate: addDays(today, 365) } } })),
    [userId],
  );
  const [date, setDate] = useState(addDays(today, 7));
  const [type, setType] = useState<'unavailable' | 'custom'>('unavailable');
  const [reason, setReason] = useState('');
  const [startTime, setStartTime] = useState('10:00');
  const [endTime, setEndTime] = useState('12:00');
  const { submit, pending, problem } = useSubmit(async () => {
    const slots = type === 'custom' ? [{ startTime, endTime }] : undefined;
    await unwrap(api.POST('/v1/availability/overrides', { params: { query }, body: { date, type, reason: reason || undefined, slots } }));
    list.reload();
  });
  const remove = async (id: string): Promise<void> => {
    await unwrap(api.DELETE('/v1/availability/overrides/{id}', { params: { path: { id } } }));
    list.reload();
  };
  return (
    <div class="panel">
      <h2>Date overrides</h2>
      <Show loaded={list} isEmpty={(data) => data.overrides.length === 0} empty="No date overrides in the coming year.">
        {(data) => (
          <ul class="rows">
            {data.overrides.map((override) => (
              <li key={override.id}>
                <span>
                  <strong>{override.date}</strong> —{' '}
                  {override.type === 'unavailable' ? 'unavailable' : override.slots.map((s) => `${s.startTime}–${s.endTime}`).join(', ')}
                  {override.reason ? ` (${override.reason})` : ''}
                </span>
                <button
                  type="button"
                  class="secondary"
                  onClick={() => void remove(override.id)}
                  aria-label={`Delete override on ${override.date}`}
                >
                  Delete
                </button>
              </li>
            ))}
          </ul>
        )}
      </Show>
      <form onSubmit={submit} noValidate aria-label="New date override">
        <FormAlert problem={problem} />
        <Field label="Date" name="date" problem={problem}>
          {(props) => <input {...props} type="date" value={date} onInput={(e) => setDate(inputValue(e))} />}
        </Field>
        <Field label="Type" name="type" problem={problem}>
          {(props) => (
            <select {...props} value={type} onChange={(e) => setType(inputValue(e) as 'unavailable' | 'custom')}>
              <option value="unavailable">Unavailable all day</option>
              <option value="custom">Custom hours</option>
            </select>
          )}
        </Field>
        {type === 'custom' && (
          <div class="interval">
            <Field label="From" name="slots" problem={problem}>
              {(props) => <input {...props} type="time" value={startTime} onInput={(e) => setStartTime(inputValue(e))} />}
            </Field>
            <Field label="To" name="slots.endTime">
              {(props) => <input {...props} type="time" value={endTime} onInput={(e) => setEndTime(inputValue(e))} />}
            </Field>
          </div>
        )}
        <Field label="Reason" name="reason" problem={problem}>
          {(props) => <input {...props} value={reason} onInput={(e) => setReason(inputValue(e))} />}
        </Field>
        <button type="submit" disabled={pending}>
          Add override
        </button>
      </form>
    </div>
  );
}
