import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { Show } from '../ui/states';
import { addDays, dateIn, formatTime } from '../ui/time';

/** The slots of an event type for a range of dates, in a chosen timezone. */
export function AvailabilityPage(): JSX.Element {
  const { timeZone } = useSession();
  const eventTypes = useLoad(() => unwrap(api.GET('/v1/event-types', { params: { query: { limit: 100 } } })), []);
  const today = dateIn(new Date(), timeZone);
  const [eventTypeId, setEventTypeId] = useState('');
  const [zone, setZone] = useState(timeZone);
  const [start, setStart] = useState(today);
  const [end, setEnd] = useState(addDays(today, 6));
  const [slots, setSlots] = useState<Schemas['SlotsResponse'] | null>(null);
  const chosen = eventTypeId || eventTypes.data?.eventTypes[0]?.id || '';
  const { submit, pending, problem } = useSubmit(async () => {
    setSlots(null);
    setSlots(await unwrap(api.GET('/v1/availability', { params: { query: { eventTypeId: chosen, timezone: zone, start, end } } })));
  });
  const byDate = new Map<string, Schemas['SlotView'][]>();
  for (const slot of slots?.slots ?? []) {
    const date = dateIn(new Date(slot.start), slots!.timezone);
    byDate.set(date, [...(byDate.get(date) ?? []), slot]);
  }
  return (
    <section>
      <h1>Availability preview</h1>
      <Show loaded={eventTypes} isEmpty={(data) => data.eventTypes.length === 0} empty="Create an event type first.">
        {(data) => (
          <form onSubmit={submit} noValidate class="panel filters" aria-label="Preview">
            <FormAlert problem={problem} />
            <Field label="Event type" name="eventTypeId" problem={problem}>
              {(props) => (
                <select {...props} value={chosen} onChange={(e) => setEventTypeId(inputValue(e))}>
                  {data.eventTypes.map((eventType) => (
                    <option key={eventType.id} value={eventType.id}>
                      {eventType.title}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Timezone" name="timezone" problem={problem}>
              {(props) => <input {...props} value={zone} onInput={(e) => setZone(inputValue(e))} />}
            </Field>
            <Field label="From" name="start" problem={problem}>
              {(props) => <input {...props} type="date" value={start} onInput={(e) => setStart(inputValue(e))} />}
            </Field>
            <Field label="To" name="end" problem={problem}>
              {(props) => <input {...props} type="date" value={end} onInput={(e) => setEnd(inputValue(e))} />}
            </Field>
            <button type="submit" disabled={pending || !chosen}>
              Show slots
            </button>
          </form>
        )}
      </Show>
      {pending && <p role="status">Loading…</p>}
      {slots && slots.slots.length === 0 && <p class="empty">No free slots in this range.</p>}
      {slots && slots.slots.length > 0 && (
        <div class="slots" aria-label={`Slots in ${slots.timezone}`}>
          <p>
            {slots.slots.length} slots, shown in {slots.timezone}.
          </p>
          {[...byDate].map(([date, daySlots]) => (
            <div key={date} class="slot-day">
              <h2>{date}</h2>
              <ul>
                {daySlots.map((slot) => (
                  <li key={`${slot.start}-${slot.hostUserId}`}>
                    {formatTime(slot.start, slots.timezone)}
                    {slot.seatsRemaining !== undefined && (
                      <span class="seats"> · {slot.seatsRemaining === 1 ? '1 seat left' : `${slot.seatsRemaining} seats left`}</span>
                    )}
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
