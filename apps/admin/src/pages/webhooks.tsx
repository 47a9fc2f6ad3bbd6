import type { JSX } from 'preact';
import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { createWebhookDtoEventsValues } from '@app/api-types';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { checked, CheckList, Field, FormAlert, inputValue, problemOf, useSubmit, type FormProblem } from '../ui/form';
import { Table } from '../ui/table';
import { Show, ShownOnce } from '../ui/states';
import { formatDateTime } from '../ui/time';

type Webhook = Schemas['WebhookView'];
type EventName = Schemas['CreateWebhookDto']['events'][number];
// webhook.test is sent on demand only, never subscribed to.
const EVENTS = createWebhookDtoEventsValues.filter((event) => event !== 'webhook.test');

/** "3 failed deliveries": a webhook list item's `failedDeliveriesLast24h` in words. */
export function failedText(count: number): string {
  return count === 1 ? '1 failed delivery' : `${count} failed deliveries`;
}

export function WebhooksPage(): JSX.Element {
  const list = useLoad(() => unwrap(api.GET('/v1/webhooks', { params: { query: { limit: 100 } } })), []);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <section>
      <h1>Webhooks</h1>
      {secret && <ShownOnce label="Signing secret" value={secret} onDone={() => setSecret(null)} />}
      <WebhookForm
        onSaved={(created) => {
          setSecret(created?.secret ?? null);
          list.reload();
        }}
      />
      <Show loaded={list} isEmpty={(data) => data.webhooks.length === 0} empty="No webhooks yet.">
        {(data) => (
          <ul class="rows">
            {data.webhooks.map((webhook) => (
              <li key={webhook.id}>
                <span>
                  <a href={`/admin/webhooks/${webhook.id}`}>{webhook.url}</a> — {webhook.events.join(', ')}{' '}
                  {webhook.active ? '' : '(paused)'}
                  {webhook.failedDeliveriesLast24h > 0 && ` · ${failedText(webhook.failedDeliveriesLast24h)} in the last 24 hours`}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Show>
    </section>
  );
}

function WebhookForm({
  existing,
  onSaved,
}: {
  existing?: Webhook;
  onSaved: (created?: Schemas['CreatedWebhookResponse']) => void;
}): JSX.Element {
  const [url, setUrl] = useState(existing?.url ?? '');
  const [events, setEvents] = useState<EventName[]>(existing?.events ?? ['booking.created']);
  const [description, setDescription] = useState(existing?.description ?? '');
  const [active, setActive] = useState(existing?.active ?? true);
  const { submit, pending, problem } = useSubmit(async () => {
    const body = { url, events, description: description || undefined, active };
    if (existing) {
      await unwrap(api.PATCH('/v1/webhooks/{id}', { params: { path: { id: existing.id } }, body }));
      onSaved();
    } else {
      onSaved(await unwrap(api.POST('/v1/webhooks', { body })));
      setUrl('');
    }
  });
  return (
    <form onSubmit={submit} noValidate class="panel" aria-label={existing ? 'Edit webhook' : 'New webhook'}>
      <FormAlert problem={problem} />
      <Field label="Endpoint URL" name="url" problem={problem}>
        {(props) => <input {...props} type="url" value={url} onInput={(e) => setUrl(inputValue(e))} />}
      </Field>
      <CheckList
        legend="Events"
        name="events"
        options={EVENTS}
        chosen={events}
        onChange={setEvents}
        problem={problem}
        labelOf={(event) => (event === '*' ? 'every event' : event)}
      />
      <Field label="Description" name="description" problem={problem}>
        {(props) => <input {...props} value={description} onInput={(e) => setDescription(inputValue(e))} />}
      </Field>
      <label class="check">
        <input type="checkbox" checked={active} onChange={(e) => setActive(checked(e))} />
        Active
      </label>
      <button type="submit" disabled={pending}>
        {existing ? 'Save webhook' : 'Create webhook'}
      </button>
    </form>
  );
}

export function WebhookDetailPage(): JSX.Element {
  const { params } = useRoute();
  const { route } = useLocation();
  const { timeZone } = useSession();
  const id = params.id;
  const loaded = useLoad(() => unwrap(api.GET('/v1/webhooks/{id}', { params: { path: { id } } })), [id]);
  const deliveries = useLoad(
    () => unwrap(api.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit: 50 } } })),
    [id],
  );
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const act = async (action: () => Promise<unknown>, done: string): Promise<void> => {
    setProblem(null);
    setNotice(null);
    try {
      await action();
      setNotice(done);
      deliveries.reload();
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  const remove = async (): Promise<void> => {
    if (!window.confirm('Delete this webhook?')) return;
    await act(() => unwrap(api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } })), 'Deleted.');
    route('/admin/webhooks');
  };
  return (
    <section>
      <p>
        <a href="/admin/webhooks">← All webhooks</a>
      </p>
      <h1>Webhook</h1>
      <Show loaded={loaded}>
        {({ webhook }) => (
          // Re-keyed on every change: a 410 answer disables the webhook, and the form must show it.
          <WebhookForm
            key={`${webhook.id}-${String(webhook.active)}-${webhook.url}`}
            existing={webhook}
            onSaved={() => act(async () => loaded.reload(), 'Saved.')}
          />
        )}
      </Show>
      <FormAlert problem={problem} />
      {loaded.data && !loaded.data.webhook.active && (
        <p class="alert">This webhook is paused: no event is sent to it until it is active again.</p>
      )}
      {notice && <p role="status">{notice}</p>}
      <div class="actions">
        <button
          type="button"
          onClick={() => void act(() => unwrap(api.POST('/v1/webhooks/{id}/test', { params: { path: { id } } })), 'Test event sent.')}
        >
          Send a test event
        </button>
        <button type="button" class="danger" onClick={() => void remove()}>
          Delete webhook
        </button>
      </div>
      <h2>Deliveries</h2>
      <button
        type="button"
        class="secondary"
        onClick={() => {
          loaded.reload();
          deliveries.reload();
        }}
      >
        Refresh log
      </button>
      <Show loaded={deliveries} isEmpty={(data) => data.deliveries.length === 0} empty="No deliveries yet.">
        {(data) => (
          <Table caption="Deliveries" columns={['Event', 'Status', 'Attempts', 'Response', 'Last attempt', 'Actions']}>
            {data.deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <td>{delivery.eventType}</td>
                <td>
                  <span class={`badge ${delivery.status}`}>{delivery.status}</span>
                </td>
                <td>{delivery.attempts}</td>
                <td>{delivery.responseStatus ?? delivery.lastError ?? '—'}</td>
                <td>{formatDateTime(delivery.lastAttemptAt, timeZone)}</td>
                <td>
                  {delivery.status === 'failed' && (
                    <button
                      type="button"
                      aria-label={`Retry delivery ${delivery.id}`}
                      onClick={() =>
                        void act(
                          () =>
                            unwrap(
                              api.POST('/v1/webhooks/{id}/deliveries/{deliveryId}/retry', {
                                params: { path: { id, deliveryId: delivery.id } },
                              }),
                            ),
                          'Delivery queued again.',
                        )
                      }
                    >
                      Retry
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Show>
    </section>
  );
}
