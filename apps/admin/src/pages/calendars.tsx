import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { checked, Field, FormAlert, inputValue, problemOf, useSubmit, type FormProblem } from '../ui/form';
import { Show } from '../ui/states';
import { formatDateTime } from '../ui/time';
import { MemberPicker } from './schedule';

type Calendar = Schemas['CalendarView'];

export function CalendarsPage(): JSX.Element {
  const { me } = useSession();
  const [userId, setUserId] = useState(me.user.id);
  return (
    <section>
      <h1>Calendars</h1>
      <MemberPicker userId={userId} onChange={setUserId} />
      <Connected key={userId} userId={userId} />
      {userId === me.user.id && <Feed />}
    </section>
  );
}

function Connected({ userId }: { userId: string }): JSX.Element {
  const { me, timeZone } = useSession();
  const query = userId === me.user.id ? {} : { userId };
  const list = useLoad(() => unwrap(api.GET('/v1/calendars', { params: { query: { ...query, limit: 100 } } })), [userId]);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const act = async (action: () => Promise<unknown>): Promise<void> => {
    setProblem(null);
    try {
      await action();
      list.reload();
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  const path = (calendar: Calendar) => ({ params: { path: { id: calendar.id } } });
  return (
    <>
      <ConnectForm userId={userId} onConnected={list.reload} />
      <FormAlert problem={problem} />
      <Show loaded={list} isEmpty={(data) => data.calendars.length === 0} empty="No calendars connected.">
        {(data) => (
          <ul class="cards">
            {data.calendars.map((calendar) => (
              <li key={calendar.id} class="panel">
                <h2>{calendar.name}</h2>
                <dl class="facts">
                  <dt>Type</dt>
                  <dd>{calendar.type}</dd>
                  <dt>Status</dt>
                  <dd>
                    <span class={`badge ${calendar.status}`}>{calendar.status}</span>
                  </dd>
                  <dt>Last synced</dt>
                  <dd>{formatDateTime(calendar.lastSyncedAt, timeZone)}</dd>
                  {calendar.lastSyncError && (
                    <>
                      <dt>Last error</dt>
                      <dd class="field-error">{calendar.lastSyncError}</dd>
                    </>
                  )}
                  <dt>Busy times</dt>
                  <dd>{calendar.busyCount}</dd>
                </dl>
                {calendar.calendars.length > 0 && (
                  <fieldset>
                    <legend>Calendars in this account</legend>
                    {calendar.calendars.map((remote) => (
                      <div key={remote.id} class="remote">
                        <span>{remote.displayName}</span>
                        <label class="check">
                          <input
                            type="checkbox"
                            checked={remote.blocksAvailability}
                            onChange={(e) =>
                              void act(() =>
                                unwrap(
                                  api.PATCH('/v1/calendars/{id}', {
                                    ...path(calendar),
                                    body: { calendars: [{ id: remote.id, blocksAvailability: checked(e) }] },
                                  }),
                                ),
                              )
                            }
                          />
                          Blocks my slots
                        </label>
                        <label class="check">
                          <input
                            type="radio"
                            name={`destination-${calendar.id}`}
                            checked={remote.isDestination}
                            onChange={() =>
                              void act(() =>
                                unwrap(
                                  api.PATCH('/v1/calendars/{id}', {
                                    ...path(calendar),
                                    body: { calendars: [{ id: remote.id, isDestination: true }] },
                                  }),
                                ),
                              )
                            }
                          />
                          Write bookings here
                        </label>
                      </div>
                    ))}
                  </fieldset>
                )}
                <div class="actions">
                  <label class="check">
                    <input
                      type="checkbox"
                      checked={calendar.blocksAvailability}
                      onChange={(e) =>
                        void act(() =>
                          unwrap(api.PATCH('/v1/calendars/{id}', { ...path(calendar), body: { blocksAvailability: checked(e) } })),
                        )
                      }
                    />
                    Busy times block slots
                  </label>
                  <button
                    type="button"
                    onClick={() => void act(() => unwrap(api.POST('/v1/calendars/{id}/sync', path(calendar))))}
                    aria-label={`Sync ${calendar.name} now`}
                  >
                    Sync now
                  </button>
                  <button
                    type="button"
                    class="danger"
                    onClick={() =>
                      window.confirm(`Disconnect ${calendar.name}?`) &&
                      void act(() => unwrap(api.DELETE('/v1/calendars/{id}', path(calendar))))
                    }
                    aria-label={`Disconnect ${calendar.name}`}
                  >
                    Disconnect
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Show>
    </>
  );
}

function ConnectForm({ userId, onConnected }: { userId: string; onConnected: () => void }): JSX.Element {
  const { me } = useSession();
  const [type, setType] = useState<'ics' | 'caldav'>('ics');
  const [url, setUrl] = useState('');
  const [name, setName] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { submit, pending, problem } = useSubmit(async () => {
    const query = userId === me.user.id ? {} : { userId };
    const credentials = type === 'caldav' ? { username, password } : {};
    await unwrap(api.POST('/v1/calendars', { params: { query }, body: { type, url, name: name || undefined, ...credentials } }));
    setUrl('');
    setName('');
    setUsername('');
    setPassword('');
    onConnected();
  });
  return (
    <form onSubmit={submit} noValidate class="panel" aria-label="Connect a calendar">
      <h2>Connect a calendar</h2>
      <FormAlert problem={problem} />
      <Field label="Kind" name="type" problem={problem}>
        {(props) => (
          <select {...props} value={type} onChange={(e) => setType(inputValue(e) as 'ics' | 'caldav')}>
            <option value="ics">iCalendar feed (read only)</option>
            <option value="caldav">CalDAV account</option>
          </select>
        )}
      </Field>
      <Field label="URL" name="url" problem={problem}>
        {(props) => <input {...props} type="url" value={url} onInput={(e) => setUrl(inputValue(e))} />}
      </Field>
      <Field label="Name" name="name" problem={problem}>
        {(props) => <input {...props} value={name} onInput={(e) => setName(inputValue(e))} />}
      </Field>
      {type === 'caldav' && (
        <>
          <Field label="Username" name="username" problem={problem}>
            {(props) => <input {...props} autoComplete="off" value={username} onInput={(e) => setUsername(inputValue(e))} />}
          </Field>
          <Field label="Password" name="password" problem={problem}>
            {(props) => (
              <input {...props} type="password" autoComplete="new-password" value={password} onInput={(e) => setPassword(inputValue(e))} />
            )}
          </Field>
        </>
      )}
      <button type="submit" disabled={pending}>
        {pending ? 'Connecting…' : 'Connect'}
      </button>
    </form>
  );
}

/** The member's own bookings as a feed to subscribe to elsewhere. */
function Feed(): JSX.Element {
  const feed = useLoad(() => unwrap(api.GET('/v1/users/me/calendar-feed')), []);
  const rotate = useSubmit(async () => {
    if (!window.confirm('Make a new feed address? The old one stops working.')) return;
    await unwrap(api.POST('/v1/users/me/calendar-feed/rotate'));
    feed.reload();
  });
  return (
    <div class="panel">
      <h2>Your bookings as a calendar feed</h2>
      <Show loaded={feed}>
        {(data) => (
          <p>
            <output aria-label="Calendar feed URL" class="secret">
              {data.url}
            </output>
          </p>
        )}
      </Show>
      <FormAlert problem={rotate.problem} />
      <button type="button" class="secondary" onClick={() => void rotate.submit()} disabled={rotate.pending}>
        New feed address
      </button>
    </div>
  );
}
