import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { Field, FormAlert, inputValue, problemOf, type FormProblem } from '../ui/form';
import { Table } from '../ui/table';
import { formatDateTime, zonedToInstant } from '../ui/time';
import { MemberSelect } from './members';

type Entry = Schemas['AuditEntryView'];

interface Filters {
  action: string;
  actorId: string;
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { action: '', actorId: '', from: '', to: '' };

/** Actions offered in the filter's list (any other can be typed): the contract's `<resource>.<verb>` names. */
const COMMON_ACTIONS = [
  'booking.created',
  'booking.cancelled',
  'booking.rescheduled',
  'event_type.created',
  'event_type.updated',
  'event_type.deleted',
  'api_key.created',
  'api_key.revoked',
  'member.invited',
  'member.role_changed',
  'member.removed',
  'webhook.created',
  'webhook.deleted',
  'session.created',
  'session.failed',
  'attendee.erased',
];

/** What changed and who changed it (owner and admin): filters by action, person and date; an entry's changes side by side. */
export function AuditPage(): JSX.Element {
  const { timeZone } = useSession();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const [open, setOpen] = useState<string | null>(null);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [pending, setPending] = useState(false);

  const load = async (filters: Filters, after: string | null): Promise<void> => {
    setPending(true);
    setProblem(null);
    try {
      const page = await unwrap(
        api.GET('/v1/audit-log', {
          params: {
            query: {
              limit: 50,
              ...(filters.action ? { action: filters.action.trim() } : {}),
              ...(filters.actorId ? { actorId: filters.actorId } : {}),
              ...(filters.from ? { from: zonedToInstant(`${filters.from}T00:00`, timeZone).toISOString() } : {}),
              ...(filters.to ? { to: zonedToInstant(`${filters.to}T00:00`, timeZone).toISOString() } : {}),
              ...(after ? { cursor: after } : {}),
            },
          },
        }),
      );
      setEntries((previous) => (after && previous ? [...previous, ...page.entries] : page.entries));
      setCursor(page.nextCursor);
      setApplied(filters);
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setPending(false);
    }
  };

  useEffect(() => {
    void load(NO_FILTERS, null);
  }, []);
  const set = (field: keyof Filters) => (event: Event) => setDraft({ ...draft, [field]: inputValue(event) });

  return (
    <section>
      <h1>Audit log</h1>
      <form
        class="panel filters"
        aria-label="Filter the audit log"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setOpen(null);
          void load(draft, null);
        }}
      >
        <FormAlert problem={problem} />
        <Field label="Action" name="action" problem={problem}>
          {(props) => <input {...props} list="audit-actions" value={draft.action} onInput={set('action')} placeholder="any" />}
        </Field>
        <datalist id="audit-actions">
          {COMMON_ACTIONS.map((action) => (
            <option key={action} value={action} />
          ))}
        </datalist>
        <MemberSelect
          label="Person"
          name="actorId"
          value={draft.actorId}
          onChange={(actorId) => setDraft({ ...draft, actorId })}
          anyLabel="anyone"
        />
        <Field label="From (day)" name="from" problem={problem}>
          {(props) => <input {...props} type="date" value={draft.from} onInput={set('from')} />}
        </Field>
        <Field label="Before (day)" name="to" problem={problem}>
          {(props) => <input {...props} type="date" value={draft.to} onInput={set('to')} />}
        </Field>
        <button type="submit" disabled={pending}>
          Show
        </button>
      </form>
      {entries === null ? (
        <p class="loading" role="status">
          Loading…
        </p>
      ) : entries.length === 0 ? (
        <p class="empty">No entries{applied === NO_FILTERS ? ' yet' : ' match these filters'}.</p>
      ) : (
        <Table caption="Audit log entries, newest first" columns={['When', 'Action', 'Who', 'What', 'From', 'Changes']}>
          {entries.map((entry) => (
            <EntryRows
              key={entry.id}
              entry={entry}
              timeZone={timeZone}
              open={open === entry.id}
              onToggle={() => setOpen(open === entry.id ? null : entry.id)}
            />
          ))}
        </Table>
      )}
      {cursor && (
        <button type="button" disabled={pending} onClick={() => void load(applied, cursor)}>
          Older entries
        </button>
      )}
    </section>
  );
}

function EntryRows({
  entry,
  timeZone,
  open,
  onToggle,
}: {
  entry: Entry;
  timeZone: string;
  open: boolean;
  onToggle: () => void;
}): JSX.Element {
  const changes = Object.entries(entry.changes ?? {});
  const details = Object.entries(entry.details ?? {});
  return (
    <>
      <tr>
        <td>{formatDateTime(entry.occurredAt, timeZone)}</td>
        <td>
          <code>{entry.action}</code>
        </td>
        <td>
          {entry.actor.label ?? entry.actor.id ?? '—'} <span class="muted">({entry.actor.type})</span>
        </td>
        <td>
          {entry.resource.type} {entry.resource.id && <code>{entry.resource.id}</code>}
        </td>
        <td>{entry.ip ?? '—'}</td>
        <td>
          {changes.length + details.length > 0 ? (
            <button
              type="button"
              aria-expanded={open}
              onClick={onToggle}
              aria-label={`Changes of ${entry.action} at ${formatDateTime(entry.occurredAt, timeZone)}`}
            >
              {open ? 'Hide' : `${changes.length + details.length} field${changes.length + details.length === 1 ? '' : 's'}`}
            </button>
          ) : (
            '—'
          )}
        </td>
      </tr>
      {open && (
        <tr class="audit-changes">
          <td colSpan={6}>
            <table>
              <caption class="visually-hidden">Changes of {entry.action}</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Before</th>
                  <th scope="col">After</th>
                </tr>
              </thead>
              <tbody>
                {changes.map(([field, change]) => (
                  <tr key={field}>
                    <th scope="row">{field}</th>
                    <td>
                      <Value value={change.from} />
                    </td>
                    <td>
                      <Value value={change.to} />
                    </td>
                  </tr>
                ))}
                {details.map(([field, value]) => (
                  <tr key={`detail-${field}`}>
                    <th scope="row">{field}</th>
                    <td>—</td>
                    <td>
                      <Value value={value} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p class="muted">
              Request <code>{entry.requestId ?? '—'}</code> · {entry.userAgent ?? 'no user agent'}
            </p>
          </td>
        </tr>
      )}
    </>
  );
}

function Value({ value }: { value: unknown }): JSX.Element {
  if (value === null || value === undefined) return <span class="muted">none</span>;
  if (typeof value === 'string') return <span>{value}</span>;
  return <code>{JSON.stringify(value)}</code>;
}
