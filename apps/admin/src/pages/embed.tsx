import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { useLoad } from '../ui/async';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { Show } from '../ui/states';

type ApiKey = Schemas['ApiKeyView'];

/** The booker's script, once per page: served by this origin (api-rules.md § Browser booking), so the console's CSP allows it. */
function loadBookerScript(): void {
  if (document.querySelector('script[data-booker]')) return;
  const script = document.createElement('script');
  script.src = '/booker.js';
  script.async = true;
  script.dataset.booker = '';
  document.head.append(script);
}

/** The booker itself, made by hand: Preact keeps `key` for itself, and the element reads its `key` attribute. */
function Preview({ apiKey, eventTypeId }: { apiKey: string; eventTypeId: string }): JSX.Element {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const booker = document.createElement('sched-booker');
    booker.setAttribute('key', apiKey);
    booker.setAttribute('event-type', eventTypeId);
    container.current?.replaceChildren(booker);
  }, [apiKey, eventTypeId]);
  return <div ref={container} class="booker-preview" />;
}

function snippet(key: string, eventTypeId: string): string {
  return `<sched-booker key="${key}" event-type="${eventTypeId}"></sched-booker>\n<script src="${location.origin}/booker.js" async></script>`;
}

/**
 * An event type's Embed panel: the organization's publishable keys with their origins (a new one made here), the
 * snippet to paste for the chosen key, and a live preview of the booker with a test key that answers this console.
 */
export function EmbedPanel({ eventTypeId }: { eventTypeId: string }): JSX.Element {
  const keys = useLoad(() => unwrap(api.GET('/v1/api-keys', { params: { query: { limit: 100 } } })), []);
  const [name, setName] = useState('Website');
  const [origins, setOrigins] = useState('');
  const [mode, setMode] = useState<'live' | 'test'>('live');
  const [chosen, setChosen] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const create = useSubmit(async () => {
    const allowedOrigins = origins
      .split(/[\s,]+/)
      .map((origin) => origin.trim())
      .filter(Boolean);
    const created = await unwrap(api.POST('/v1/api-keys', { body: { name, kind: 'publishable', mode, allowedOrigins } }));
    setChosen(created.apiKey);
    setOrigins('');
    keys.reload();
  });
  const preview = useSubmit(async () => {
    const body = { name: 'Console preview', kind: 'publishable' as const, mode: 'test' as const, allowedOrigins: [location.origin] };
    await unwrap(api.POST('/v1/api-keys', { body }));
    keys.reload();
  });
  useEffect(loadBookerScript, []);

  return (
    <section class="panel" aria-labelledby="embed-title">
      <h2 id="embed-title">Embed on your site</h2>
      <Show loaded={keys}>
        {(data) => {
          const publishable = data.keys.filter((key): key is ApiKey & { apiKey: string } => key.kind === 'publishable' && !!key.apiKey);
          const previewKey = publishable.find((key) => key.mode === 'test' && key.allowedOrigins?.includes(location.origin));
          const current = chosen ?? publishable[0]?.apiKey ?? null;
          return (
            <>
              {publishable.length > 0 && (
                <fieldset>
                  <legend>Publishable keys</legend>
                  {publishable.map((key) => (
                    <label key={key.id} class="check">
                      <input type="radio" name="embed-key" checked={key.apiKey === current} onChange={() => setChosen(key.apiKey)} />
                      {key.name} ({key.mode}) — {key.allowedOrigins?.join(', ')}
                    </label>
                  ))}
                </fieldset>
              )}
              {current && (
                <div>
                  <h3 id="embed-snippet-title">Snippet</h3>
                  <pre id="embed-snippet" class="snippet" aria-labelledby="embed-snippet-title" tabindex={0}>
                    <code>{snippet(current, eventTypeId)}</code>
                  </pre>
                  <button
                    type="button"
                    onClick={() =>
                      void navigator.clipboard.writeText(snippet(current, eventTypeId)).then(
                        () => setCopied(true),
                        () => setCopied(false),
                      )
                    }
                  >
                    Copy snippet
                  </button>
                  <span role="status">{copied ? ' Copied.' : ''}</span>
                </div>
              )}
              <form onSubmit={create.submit} noValidate aria-label="New publishable key">
                <h3>New publishable key</h3>
                <FormAlert problem={create.problem} />
                <Field label="Name" name="name" problem={create.problem}>
                  {(props) => <input {...props} value={name} onInput={(e) => setName(inputValue(e))} />}
                </Field>
                <Field label="Allowed origins (one per line, e.g. https://www.example.com)" name="allowedOrigins" problem={create.problem}>
                  {(props) => <textarea {...props} rows={2} value={origins} onInput={(e) => setOrigins(inputValue(e))} />}
                </Field>
                <Field label="Mode" name="mode" problem={create.problem}>
                  {(props) => (
                    <select {...props} value={mode} onChange={(e) => setMode(inputValue(e) as 'live' | 'test')}>
                      <option value="live">live</option>
                      <option value="test">test</option>
                    </select>
                  )}
                </Field>
                <button type="submit" disabled={create.pending}>
                  Create publishable key
                </button>
              </form>
              <h3>Preview (test mode)</h3>
              {previewKey ? (
                <Preview apiKey={previewKey.apiKey} eventTypeId={eventTypeId} />
              ) : (
                <>
                  <FormAlert problem={preview.problem} />
                  <button type="button" onClick={preview.submit} disabled={preview.pending}>
                    Preview with a test key for this console
                  </button>
                </>
              )}
            </>
          );
        }}
      </Show>
    </section>
  );
}
