import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { Show } from '../ui/states';
import { addDays, dateIn, datesBetween, dayHeading } from '../ui/time';
import { WeekGrid, type GridItem } from '../ui/week-grid';
import { ZonePicker } from '../ui/zone-picker';

/** The slots of an event type for a range of dates, in a chosen timezone. */
export function AvailabilityPage(): JSX.Element {
  const { timeZone } = useSession();
  const eventTypes = useLoad(() => unwrap(api.GET('/v1/event-types', { params: { query: { limit: 100 } } })), []);
  const today = dateIn(new Date(), timeZone);
  const [eventTypeId, setEventTypeId] = useState('');
  const [zone, setZone] = useState(timeZone);
  const [start, setStart] = useState(today);
  const [end, setEnd] = useState(addDays(today, 6));
  const [slots, setSlots] = useState<(Schemas['SlotsResponse'] & { start: string; end: string }) | null>(null);
  const chosen = eventTypeId || eventTypes.data?.eventTypes[0]?.id || '';
  const { submit, pending, problem } = useSubmit(async () => {
    setSlots(null);
    setSlots({
      ...(await unwrap(api.GET('/v1/availability', { params: { query: { eventTypeId: chosen, timezone: zone, start, end } } }))),
      start,
      end,
    });
  });
  const shownZone = slots?.timezone ?? zone;
  const dates = slots ? datesBetween(slots.start, slots.end) : [];
  const items: GridItem[] = (slots?.slots ?? []).map((slot: Schemas['SlotView']) => {
    const seats =
      slot.seatsRemaining === undefined ? undefined : slot.seatsRemaining === 1 ? '1 seat left' : `${slot.seatsRemaining} seats left`;
    return {
      key: `${slot.start}-${slot.hostUserId}`,
      column: dateIn(new Date(slot.start), shownZone),
      start: slot.start,
      end: slot.end,
      kind: 'slot',
      title: seats ?? 'free',
      label: seats ?? 'free',
    };
  });
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
              {(props) => <ZonePicker {...props} value={zone} onChange={setZone} />}
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
        <div class="slots">
          <p>
            {slots.slots.length} slots, shown in {slots.timezone}.
          </p>
          <WeekGrid
            caption={`Slots in ${slots.timezone}`}
            columns={dates.map((date) => ({ key: date, date, heading: dayHeading(date) }))}
            timeZone={slots.timezone}
            items={items}
          />
        </div>
      )}
    </section>
  );
}
