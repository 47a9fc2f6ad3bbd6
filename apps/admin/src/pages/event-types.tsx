import type { JSX } from 'preact';
import { useLocation, useRoute } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { createEventTypeDtoSchedulingTypeValues, questionDtoTypeValues, recurrenceFrequencyValues } from '@app/api-types';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { checked, Field, FormAlert, inputValue, useSubmit, type FormProblem } from '../ui/form';
import { Table } from '../ui/table';
import { Show } from '../ui/states';
import { EmbedPanel } from './embed';
import { useMembers } from './members';

type EventType = Schemas['EventTypeView'];
type Draft = Schemas['CreateEventTypeDto'];

export function EventTypesPage(): JSX.Element {
  const { isAdmin } = useSession();
  const list = useLoad(() => unwrap(api.GET('/v1/event-types', { params: { query: { limit: 100 } } })), []);
  const [creating, setCreating] = useState(false);
  const remove = async (eventType: EventType): Promise<void> => {
    if (!window.confirm(`Delete “${eventType.title}”?`)) return;
    await unwrap(api.DELETE('/v1/event-types/{id}', { params: { path: { id: eventType.id } } }));
    list.reload();
  };
  return (
    <section>
      <h1>Event types</h1>
      {isAdmin && !creating && (
        <button type="button" onClick={() => setCreating(true)}>
          New event type
        </button>
      )}
      {creating && (
        <EventTypeForm
          onSaved={() => {
            setCreating(false);
            list.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      <Show loaded={list} isEmpty={(data) => data.eventTypes.length === 0} empty="No event types yet.">
        {(data) => (
          <Table caption="Event types" columns={['Title', 'Slug', 'Duration', 'Scheduling', 'Bookings', ...(isAdmin ? ['Actions'] : [])]}>
            {data.eventTypes.map((eventType) => (
              <tr key={eventType.id}>
                <td>{isAdmin ? <a href={`/admin/event-types/${eventType.id}`}>{eventType.title}</a> : eventType.title}</td>
                <td>{eventType.slug}</td>
                <td>{eventType.durationMinutes} min</td>
                <td>
                  {eventType.schedulingType.replace(/_/g, ' ')}
                  {eventType.seatsPerSlot !== null && ` · ${eventType.seatsPerSlot} seats`}
                  {eventType.recurrence && ` · repeats ${eventType.recurrence.frequency}`}
                </td>
                <td>{eventType.bookingsCount}</td>
                {isAdmin && (
                  <td>
                    <button type="button" class="danger" onClick={() => void remove(eventType)} aria-label={`Delete ${eventType.title}`}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </Table>
        )}
      </Show>
    </section>
  );
}

export function EventTypeEditPage(): JSX.Element {
  const { params } = useRoute();
  const { route } = useLocation();
  const loaded = useLoad(() => unwrap(api.GET('/v1/event-types/{id}', { params: { path: { id: params.id } } })), [params.id]);
  return (
    <section>
      <h1>Edit event type</h1>
      <Show loaded={loaded}>
        {(data) => (
          <>
            <EventTypeForm
              existing={data.eventType}
              onSaved={() => route('/admin/event-types')}
              onCancel={() => route('/admin/event-types')}
            />
            <EmbedPanel eventTypeId={data.eventType.id} />
          </>
        )}
      </Show>
    </section>
  );
}

function draftOf(existing?: EventType): Draft {
  if (!existing) return { title: '', slug: '', durationMinutes: 30, schedulingType: 'one_on_one' };
  return {
    title: existing.title,
    slug: existing.slug,
    durationMinutes: existing.durationMinutes,
    description: existing.description ?? undefined,
    location: existing.location ?? undefined,
    schedulingType: existing.schedulingType,
    hostUserIds: existing.hostUserIds,
    bufferBeforeMinutes: existing.bufferBeforeMinutes,
    bufferAfterMinutes: existing.bufferAfterMinutes,
    minimumNoticeHours: existing.minimumNoticeHours,
    bookingWindowDays: existing.bookingWindowDays,
    maxBookingsPerDay: existing.maxBookingsPerDay ?? undefined,
    slotIntervalMinutes: existing.slotIntervalMinutes ?? undefined,
    requiresConfirmation: existing.requiresConfirmation,
    seatsPerSlot: existing.seatsPerSlot,
    recurrence: existing.recurrence ?? null,
    reminders: existing.reminders,
    attendeeCancellation: existing.attendeeCancellation,
    attendeeRescheduling: existing.attendeeRescheduling,
    holdMinutes: existing.holdMinutes,
    questions: existing.questions,
  };
}

/** The placeholder the API replaces with each booking's id (api-rules.md § Reminders). */
const BOOKING_ID = '{bookingId}';

type Recurrence = NonNullable<EventType['recurrence']>;
type Reminder = EventType['reminders'][number];
const MAX_REMINDERS = 5;
const NEW_REMINDER: Reminder = { minutesBefore: 60, recipients: ['attendee', 'host'] };
const NEW_RECURRENCE: Recurrence = { frequency: 'weekly', interval: 1, maxCount: 12 };
const UNITS: Record<Recurrence['frequency'], string> = { daily: 'days', weekly: 'weeks', monthly: 'months' };

function EventTypeForm({ existing, onSaved, onCancel }: { existing?: EventType; onSaved: () => void; onCancel: () => void }): JSX.Element {
  const [draft, setDraft] = useState<Draft>(() => draftOf(existing));
  const members = useMembers();
  const set = (patch: Partial<Draft>): void => setDraft((current) => ({ ...current, ...patch }));
  const { submit, pending, problem } = useSubmit(async () => {
    const body = { ...draft, questions: draft.questions?.map(cleanQuestion) };
    if (existing) await unwrap(api.PATCH('/v1/event-types/{id}', { params: { path: { id: existing.id } }, body }));
    else await unwrap(api.POST('/v1/event-types', { body }));
    onSaved();
  });
  const team = draft.schedulingType !== 'one_on_one';
  return (
    <form onSubmit={submit} noValidate class="panel" aria-label={existing ? 'Edit event type' : 'New event type'}>
      <FormAlert problem={problem} />
      <Field label="Title" name="title" problem={problem}>
        {(props) => <input {...props} value={draft.title} onInput={(e) => set({ title: inputValue(e) })} />}
      </Field>
      <Field label="Slug" name="slug" problem={problem} hint="Lowercase letters, digits and hyphens">
        {(props) => <input {...props} value={draft.slug} onInput={(e) => set({ slug: inputValue(e) })} />}
      </Field>
      <NumberField
        label="Duration (minutes)"
        name="durationMinutes"
        value={draft.durationMinutes}
        problem={problem}
        onChange={(v) => set({ durationMinutes: v ?? 0 })}
      />
      <Field label="Description" name="description" problem={problem}>
        {(props) => (
          <textarea {...props} value={draft.description ?? ''} onInput={(e) => set({ description: inputValue(e) || undefined })} />
        )}
      </Field>
      <Field
        label="Location"
        name="location"
        problem={problem}
        hint={
          draft.location?.includes(BOOKING_ID)
            ? `Each booking gets its own: ${draft.location.replaceAll(BOOKING_ID, 'bkg_…')}`
            : `A link, phone number or address; ${BOOKING_ID} in a link gives every booking a room of its own`
        }
      >
        {(props) => <input {...props} value={draft.location ?? ''} onInput={(e) => set({ location: inputValue(e) || null })} />}
      </Field>
      <Field label="Scheduling" name="schedulingType" problem={problem}>
        {(props) => (
          <select
            {...props}
            value={draft.schedulingType}
            onChange={(e) => set({ schedulingType: inputValue(e) as Draft['schedulingType'] })}
          >
            {createEventTypeDtoSchedulingTypeValues.map((type) => (
              <option key={type} value={type}>
                {type.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        )}
      </Field>
      {team && (
        <fieldset>
          <legend>Hosts</legend>
          {(members.data ?? [])
            .filter((member) => member.userId)
            .map((member) => (
              <label key={member.id} class="check">
                <input
                  type="checkbox"
                  checked={draft.hostUserIds?.includes(member.userId!) ?? false}
                  onChange={(e) => {
                    const others = (draft.hostUserIds ?? []).filter((id) => id !== member.userId);
                    set({ hostUserIds: checked(e) ? [...others, member.userId!] : others });
                  }}
                />
                {member.email}
              </label>
            ))}
          {problem?.fields.hostUserIds && <p class="field-error">{problem.fields.hostUserIds}</p>}
        </fieldset>
      )}
      <details>
        <summary>Limits and buffers</summary>
        <NumberField
          label="Buffer before (minutes)"
          name="bufferBeforeMinutes"
          value={draft.bufferBeforeMinutes}
          problem={problem}
          onChange={(v) => set({ bufferBeforeMinutes: v })}
        />
        <NumberField
          label="Buffer after (minutes)"
          name="bufferAfterMinutes"
          value={draft.bufferAfterMinutes}
          problem={problem}
          onChange={(v) => set({ bufferAfterMinutes: v })}
        />
        <NumberField
          label="Minimum notice (hours)"
          name="minimumNoticeHours"
          value={draft.minimumNoticeHours}
          problem={problem}
          onChange={(v) => set({ minimumNoticeHours: v })}
        />
        <NumberField
          label="Booking window (days)"
          name="bookingWindowDays"
          value={draft.bookingWindowDays}
          problem={problem}
          onChange={(v) => set({ bookingWindowDays: v })}
        />
        <NumberField
          label="Bookings per day at most"
          name="maxBookingsPerDay"
          value={draft.maxBookingsPerDay}
          problem={problem}
          onChange={(v) => set({ maxBookingsPerDay: v })}
        />
        <NumberField
          label="Slot interval (minutes)"
          name="slotIntervalMinutes"
          value={draft.slotIntervalMinutes}
          problem={problem}
          onChange={(v) => set({ slotIntervalMinutes: v })}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={draft.requiresConfirmation ?? false}
            onChange={(e) => set({ requiresConfirmation: checked(e) })}
          />
          Bookings need the host’s confirmation
        </label>
      </details>
      <details open={Boolean(draft.seatsPerSlot || draft.recurrence)}>
        <summary>Seats and recurring bookings</summary>
        <p class="hint">One or the other: several attendees at one time, or one attendee booking a series.</p>
        <Field
          label="Seats per time"
          name="seatsPerSlot"
          problem={problem}
          hint="2 to 1,000 attendees share each time, each with a booking of their own; empty for one booking per time"
        >
          {(props) => (
            <input
              {...props}
              type="number"
              inputMode="numeric"
              value={draft.seatsPerSlot ?? ''}
              disabled={Boolean(draft.recurrence)}
              onInput={(e) => {
                const text = inputValue(e);
                set({ seatsPerSlot: text === '' ? null : Number(text) });
              }}
            />
          )}
        </Field>
        <label class="check">
          <input
            type="checkbox"
            checked={Boolean(draft.recurrence)}
            disabled={Boolean(draft.seatsPerSlot)}
            onChange={(e) => set({ recurrence: checked(e) ? NEW_RECURRENCE : null })}
          />
          Attendees may book a recurring series
        </label>
        {draft.recurrence && (
          <RecurrenceFields recurrence={draft.recurrence as Recurrence} problem={problem} onChange={(recurrence) => set({ recurrence })} />
        )}
      </details>
      <RemindersFields reminders={draft.reminders ?? []} problem={problem} onChange={(reminders) => set({ reminders })} />
      <details open={Boolean(draft.attendeeCancellation?.noticeMinutes || draft.attendeeRescheduling?.noticeMinutes)}>
        <summary>Attendee changes</summary>
        <p class="hint">What the attendee may still change with the links of their mail; hosts can always cancel and reschedule.</p>
        <ChangePolicyFields
          change="cancellation"
          label="cancel"
          policy={draft.attendeeCancellation}
          problem={problem}
          onChange={(attendeeCancellation) => set({ attendeeCancellation })}
        />
        <ChangePolicyFields
          change="rescheduling"
          label="reschedule"
          policy={draft.attendeeRescheduling}
          problem={problem}
          onChange={(attendeeRescheduling) => set({ attendeeRescheduling })}
        />
      </details>
      <details open={Boolean(draft.questions?.length)}>
        <summary>Booking form: questions and hold time</summary>
        <NumberField
          label="Hold a chosen time for (minutes)"
          name="holdMinutes"
          value={draft.holdMinutes}
          problem={problem}
          hint="1 to 60: how long the embedded booker keeps a chosen time while the attendee fills in the form (10 unless set)"
          onChange={(v) => set({ holdMinutes: v })}
        />
        <QuestionsFields
          questions={draft.questions ?? []}
          saved={new Set(existing?.questions.map((question) => question.id))}
          problem={problem}
          onChange={(questions) => set({ questions })}
        />
      </details>
      <div class="actions">
        <button type="submit" disabled={pending}>
          {existing ? 'Save event type' : 'Create event type'}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** "1 day 2 hours before": what a reminder's minutes mean, under its field. */
function beforeText(minutes: number): string {
  if (!Number.isInteger(minutes) || minutes < 1) return 'A whole number of minutes from 1 to 43,200 (30 days)';
  const parts = [
    [Math.floor(minutes / 1440), 'day'],
    [Math.floor((minutes % 1440) / 60), 'hour'],
    [minutes % 60, 'minute'],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`);
  return `${said.join(' ')} before the start`;
}

type ChangePolicy = EventType['attendeeCancellation'];

/** One attendee change policy (api-rules.md § Scheduling policies): allowed at all, and the notice it needs. */
function ChangePolicyFields({
  change,
  label,
  policy,
  problem,
  onChange,
}: {
  change: 'cancellation' | 'rescheduling';
  label: string;
  policy: Partial<ChangePolicy> | undefined;
  problem: FormProblem | null;
  onChange: (policy: ChangePolicy) => void;
}): JSX.Element {
  const current: ChangePolicy = { allowed: policy?.allowed ?? true, noticeMinutes: policy?.noticeMinutes ?? 0 };
  const name = change === 'cancellation' ? 'attendeeCancellation' : 'attendeeRescheduling';
  return (
    <>
      <label class="check">
        <input type="checkbox" checked={current.allowed} onChange={(e) => onChange({ ...current, allowed: checked(e) })} />
        Attendees may {label}
      </label>
      <Field
        label={`Notice to ${label} (minutes)`}
        name={`${name}.noticeMinutes`}
        problem={problem}
        hint="0 to 43,200 (30 days): refused when less time remains before the start"
      >
        {(props) => (
          <input
            {...props}
            type="number"
            inputMode="numeric"
            min={0}
            max={43200}
            value={current.noticeMinutes}
            disabled={!current.allowed}
            onInput={(e) => onChange({ ...current, noticeMinutes: Number(inputValue(e) || 0) })}
          />
        )}
      </Field>
    </>
  );
}

/** The event type's reminders (api-rules.md § Reminders): up to five, each with its time and who gets it. */
function RemindersFields({
  reminders,
  problem,
  onChange,
}: {
  reminders: Reminder[];
  problem: FormProblem | null;
  onChange: (reminders: Reminder[]) => void;
}): JSX.Element {
  const change = (index: number, patch: Partial<Reminder>): void =>
    onChange(reminders.map((reminder, i) => (i === index ? { ...reminder, ...patch } : reminder)));
  return (
    <details open={reminders.length > 0}>
      <summary>Reminders</summary>
      <p class="hint">Mails before each confirmed booking, and a booking.reminder webhook event.</p>
      {reminders.map((reminder, index) => (
        <fieldset key={index}>
          <legend>Reminder {index + 1}</legend>
          <Field
            label="Minutes before"
            name={`reminders[${index}].minutesBefore`}
            problem={problem}
            hint={beforeText(reminder.minutesBefore)}
          >
            {(props) => (
              <input
                {...props}
                type="number"
                inputMode="numeric"
                value={Number.isNaN(reminder.minutesBefore) ? '' : reminder.minutesBefore}
                onInput={(e) => change(index, { minutesBefore: inputValue(e) === '' ? Number.NaN : Number(inputValue(e)) })}
              />
            )}
          </Field>
          {(['attendee', 'host'] as const).map((recipient) => (
            <label key={recipient} class="check">
              <input
                type="checkbox"
                checked={reminder.recipients.includes(recipient)}
                onChange={(e) => {
                  const others = reminder.recipients.filter((r) => r !== recipient);
                  change(index, { recipients: checked(e) ? [...others, recipient] : others });
                }}
              />
              {recipient === 'attendee' ? 'Mail the attendee' : 'Mail the hosts'}
            </label>
          ))}
          <button type="button" class="secondary" onClick={() => onChange(reminders.filter((_, i) => i !== index))}>
            Remove reminder {index + 1}
          </button>
        </fieldset>
      ))}
      {problem?.fields.reminders && <p class="field-error">{problem.fields.reminders}</p>}
      {reminders.length < MAX_REMINDERS && (
        <button type="button" class="secondary" onClick={() => onChange([...reminders, NEW_REMINDER])}>
          Add a reminder
        </button>
      )}
    </details>
  );
}

function RecurrenceFields({
  recurrence,
  problem,
  onChange,
}: {
  recurrence: Recurrence;
  problem: FormProblem | null;
  onChange: (recurrence: Recurrence) => void;
}): JSX.Element {
  return (
    <fieldset>
      <legend>Series</legend>
      <Field label="Repeats" name="recurrence.frequency" problem={problem}>
        {(props) => (
          <select
            {...props}
            value={recurrence.frequency}
            onChange={(e) => onChange({ ...recurrence, frequency: inputValue(e) as Recurrence['frequency'] })}
          >
            {recurrenceFrequencyValues.map((frequency) => (
              <option key={frequency} value={frequency}>
                {frequency}
              </option>
            ))}
          </select>
        )}
      </Field>
      <NumberField
        label={`Every how many ${UNITS[recurrence.frequency]}`}
        name="recurrence.interval"
        value={recurrence.interval}
        problem={problem}
        onChange={(v) => onChange({ ...recurrence, interval: v ?? 0 })}
      />
      <NumberField
        label="Occurrences a booking may ask for, at most"
        name="recurrence.maxCount"
        value={recurrence.maxCount}
        problem={problem}
        onChange={(v) => onChange({ ...recurrence, maxCount: v ?? 0 })}
      />
    </fieldset>
  );
}

function NumberField(props: {
  label: string;
  name: string;
  value: number | undefined | null;
  problem: FormProblem | null;
  hint?: string;
  onChange: (value: number | undefined) => void;
}): JSX.Element {
  return (
    <Field label={props.label} name={props.name} problem={props.problem} hint={props.hint}>
      {(control) => (
        <input
          {...control}
          type="number"
          inputMode="numeric"
          value={props.value ?? ''}
          onInput={(e) => {
            const text = inputValue(e);
            props.onChange(text === '' ? undefined : Number(text));
          }}
        />
      )}
    </Field>
  );
}

type Question = Schemas['QuestionDto'];
type QuestionType = Question['type'];
const MAX_QUESTIONS = 20;
const TYPE_NAMES: Record<QuestionType, string> = {
  text: 'Short text',
  textarea: 'Long text',
  email: 'Email address',
  phone: 'Phone number',
  number: 'Number',
  select: 'One of a list',
  multiselect: 'Several of a list',
  checkbox: 'Checkbox (yes or no)',
  date: 'Date',
};
const WITH_OPTIONS: readonly QuestionType[] = ['select', 'multiselect'];
const WITH_MAX_LENGTH: readonly QuestionType[] = ['text', 'textarea'];

/** A question id from its label ("Company size" → company_size), as the API accepts them. */
function idFrom(label: string): string {
  const words = label
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const id = words && !/^[a-z]/.test(words) ? `q_${words}` : words;
  return id.slice(0, 50).replace(/_+$/, '');
}

/**
 * What the API gets: options (edited one per line) trimmed, without blank lines, and only where the type takes them;
 * maxLength only where it applies; an empty placeholder left out.
 */
export function cleanQuestion(question: Question): Question {
  const { options, maxLength, placeholder, ...rest } = question;
  return {
    ...rest,
    ...(WITH_OPTIONS.includes(question.type) ? { options: (options ?? []).map((option) => option.trim()).filter(Boolean) } : {}),
    ...(WITH_MAX_LENGTH.includes(question.type) && maxLength !== undefined ? { maxLength } : {}),
    ...(placeholder ? { placeholder } : {}),
  };
}

/**
 * The booking form's own questions (api-rules.md § Browser booking), in the order the attendee sees them: up to 20,
 * each added, edited, moved or removed here; the list is saved with the event type. A routing form's fields have
 * the same shape and rules, so its editor is this one under another name (`fields`).
 */
export function QuestionsFields({
  questions,
  saved,
  problem,
  onChange,
  list = 'questions',
  noun = 'question',
  hint = 'Asked on the booking form after the attendee’s name and email, in this order.',
}: {
  questions: Question[];
  /** Ids already saved: answers and integrations are keyed by them, so a new label does not rename them. */
  saved: Set<string>;
  problem: FormProblem | null;
  onChange: (questions: Question[]) => void;
  /** The API's name for the list (`details[].field` is `<list>[i].<member>`). */
  list?: string;
  /** What one item is called on its legend and buttons ("question", "field"). */
  noun?: string;
  hint?: string;
}): JSX.Element {
  // After a move, focus follows the question to its new place (the buttons are rebuilt by position).
  const [focusId, setFocusId] = useState<string | null>(null);
  useEffect(() => {
    if (!focusId) return;
    document.getElementById(focusId)?.focus();
    setFocusId(null);
  }, [focusId]);
  const change = (index: number, patch: Partial<Question>): void =>
    onChange(questions.map((question, i) => (i === index ? { ...question, ...patch } : question)));
  const relabel = (index: number, label: string): void => {
    const question = questions[index];
    const follows = !saved.has(question.id) && (question.id === '' || question.id === idFrom(question.label));
    change(index, follows ? { label, id: idFrom(label) } : { label });
  };
  const retype = (index: number, type: QuestionType): void => {
    const { options, maxLength: _maxLength, ...rest } = questions[index];
    // A new type's own default length applies; options stay for select and multiselect, one empty line to start.
    onChange(
      questions.map((question, i) =>
        i === index ? { ...rest, type, ...(WITH_OPTIONS.includes(type) ? { options: options ?? [''] } : {}) } : question,
      ),
    );
  };
  const move = (index: number, by: -1 | 1): void => {
    const to = index + by;
    const next = [...questions];
    [next[index], next[to]] = [next[to], next[index]];
    onChange(next);
    const direction = (to === 0 && by === -1) || (to === questions.length - 1 && by === 1) ? -by : by;
    setFocusId(`${noun}-${to}-${direction === -1 ? 'up' : 'down'}`);
  };
  const Noun = noun.charAt(0).toUpperCase() + noun.slice(1);
  const add = (): void => onChange([...questions, { id: '', label: '', type: 'text', required: false }]);
  return (
    <div>
      <p class="hint">{hint}</p>
      {questions.map((question, index) => {
        const n = index + 1;
        const name = (field: string): string => `${list}[${index}].${field}`;
        return (
          <fieldset key={index}>
            <legend>
              {Noun} {n}
              {question.label && `: ${question.label}`}
            </legend>
            <Field label="Label" name={name('label')} problem={problem}>
              {(props) => <input {...props} value={question.label} onInput={(e) => relabel(index, inputValue(e))} />}
            </Field>
            <Field
              label="Id"
              name={name('id')}
              problem={problem}
              hint="Answers are keyed by it: a lowercase letter, then lowercase letters, digits or _"
            >
              {(props) => <input {...props} value={question.id} onInput={(e) => change(index, { id: inputValue(e) })} />}
            </Field>
            <Field label="Type" name={name('type')} problem={problem}>
              {(props) => (
                <select {...props} value={question.type} onChange={(e) => retype(index, inputValue(e) as QuestionType)}>
                  {questionDtoTypeValues.map((type) => (
                    <option key={type} value={type}>
                      {TYPE_NAMES[type]}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {WITH_OPTIONS.includes(question.type) && (
              <Field label="Options, one per line" name={name('options')} problem={problem} hint="1 to 50, each different">
                {(props) => (
                  <textarea
                    {...props}
                    rows={4}
                    value={(question.options ?? []).join('\n')}
                    onInput={(e) => change(index, { options: inputValue(e).split('\n') })}
                  />
                )}
              </Field>
            )}
            {question.type !== 'checkbox' && (
              <Field label="Placeholder" name={name('placeholder')} problem={problem}>
                {(props) => (
                  <input {...props} value={question.placeholder ?? ''} onInput={(e) => change(index, { placeholder: inputValue(e) })} />
                )}
              </Field>
            )}
            {WITH_MAX_LENGTH.includes(question.type) && (
              <NumberField
                label="Longest answer (characters)"
                name={name('maxLength')}
                value={question.maxLength}
                problem={problem}
                hint={`1 to 5,000 (empty: ${question.type === 'text' ? 500 : '5,000'})`}
                onChange={(v) => change(index, { maxLength: v })}
              />
            )}
            <label class="check">
              <input type="checkbox" checked={question.required ?? false} onChange={(e) => change(index, { required: checked(e) })} />
              {question.type === 'checkbox' ? 'Must be checked (consent)' : 'An answer is required'}
            </label>
            <div class="actions">
              <button type="button" class="secondary" id={`${noun}-${index}-up`} disabled={index === 0} onClick={() => move(index, -1)}>
                Move {noun} {n} up
              </button>
              <button
                type="button"
                class="secondary"
                id={`${noun}-${index}-down`}
                disabled={index === questions.length - 1}
                onClick={() => move(index, 1)}
              >
                Move {noun} {n} down
              </button>
              <button type="button" class="danger" onClick={() => onChange(questions.filter((_, i) => i !== index))}>
                Remove {noun} {n}
              </button>
            </div>
          </fieldset>
        );
      })}
      {problem?.fields[list] && <p class="field-error">{problem.fields[list]}</p>}
      {questions.length < MAX_QUESTIONS ? (
        <button type="button" class="secondary" onClick={add}>
          Add a {noun}
        </button>
      ) : (
        <p class="hint">
          {MAX_QUESTIONS} {noun}s at most.
        </p>
      )}
    </div>
  );
}
