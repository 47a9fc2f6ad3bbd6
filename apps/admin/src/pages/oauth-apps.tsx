import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { createOAuthAppDtoScopesValues, createOAuthAppDtoTypeValues } from '@app/api-types';
import { api, unwrap, type Schemas } from '../api/client';
import { CheckList, Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { type Scope, SCOPE_WORDS } from '../ui/scopes';
import { Show, ShownOnce } from '../ui/states';
import { Table } from '../ui/table';
import { useLoad } from '../ui/async';

type AppType = Schemas['CreateOAuthAppDto']['type'];

/** One URI a line, blank lines left out. */
function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The organization's own partner apps (contract § 20): register, the secret shown once, rotate, delete. */
export function OAuthAppsPage(): JSX.Element {
  const list = useLoad(() => unwrap(api.GET('/v1/oauth-apps')), []);
  const [name, setName] = useState('');
  const [type, setType] = useState<AppType>('confidential');
  const [redirects, setRedirects] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['bookings:read']);
  const [homepageUrl, setHomepageUrl] = useState('');
  const [logoUrl, setLogoUrl] = useState('');
  const [shown, setShown] = useState<{ label: string; value: string } | null>(null);
  const { submit, pending, problem } = useSubmit(async () => {
    const created = await unwrap(
      api.POST('/v1/oauth-apps', {
        body: {
          name,
          type,
          redirectUris: lines(redirects),
          scopes,
          ...(homepageUrl.trim() ? { homepageUrl: homepageUrl.trim() } : {}),
          ...(logoUrl.trim() ? { logoUrl: logoUrl.trim() } : {}),
        },
      }),
    );
    if (created.clientSecret) setShown({ label: `Client secret of ${created.app.name}`, value: created.clientSecret });
    setName('');
    setRedirects('');
    list.reload();
  });
  const rotate = async (app: Schemas['OAuthAppView']): Promise<void> => {
    if (!window.confirm(`Issue a new secret for “${app.name}”? The current one keeps working for 24 hours.`)) return;
    const rotated = await unwrap(api.POST('/v1/oauth-apps/{id}/secret', { params: { path: { id: app.id } } }));
    setShown({ label: `New client secret of ${app.name}`, value: rotated.clientSecret });
  };
  const remove = async (app: Schemas['OAuthAppView']): Promise<void> => {
    if (!window.confirm(`Delete “${app.name}”? Every organization connected to it is disconnected at once.`)) return;
    await unwrap(api.DELETE('/v1/oauth-apps/{id}', { params: { path: { id: app.id } } }));
    list.reload();
  };
  return (
    <section>
      <h1>Partner apps</h1>
      <p>Apps your organization builds on this API. Other organizations connect them with OAuth 2.0; see the partner guide.</p>
      {shown && <ShownOnce label={shown.label} value={shown.value} onDone={() => setShown(null)} />}
      <form onSubmit={submit} noValidate class="panel" aria-label="New partner app">
        <FormAlert problem={problem} />
        <Field label="Name" name="name" problem={problem}>
          {(props) => <input {...props} value={name} onInput={(e) => setName(inputValue(e))} />}
        </Field>
        <Field
          label="Type"
          name="type"
          problem={problem}
          hint="Confidential: a server that keeps a secret. Public: a browser or mobile app."
        >
          {(props) => (
            <select {...props} value={type} onChange={(e) => setType(inputValue(e) as AppType)}>
              {createOAuthAppDtoTypeValues.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Redirect URIs" name="redirectUris" problem={problem} hint="One a line; https, or http on localhost. Matched exactly.">
          {(props) => <textarea {...props} rows={3} value={redirects} onInput={(e) => setRedirects(inputValue(e))} />}
        </Field>
        <CheckList
          legend="Scopes the app may ask for"
          name="scopes"
          options={createOAuthAppDtoScopesValues}
          chosen={scopes}
          onChange={setScopes}
          problem={problem}
          labelOf={(scope) => `${scope}: ${SCOPE_WORDS[scope]}`}
        />
        <Field label="Homepage (https, optional)" name="homepageUrl" problem={problem}>
          {(props) => <input {...props} type="url" value={homepageUrl} onInput={(e) => setHomepageUrl(inputValue(e))} />}
        </Field>
        <Field label="Logo URL (https, optional)" name="logoUrl" problem={problem}>
          {(props) => <input {...props} type="url" value={logoUrl} onInput={(e) => setLogoUrl(inputValue(e))} />}
        </Field>
        <button type="submit" disabled={pending}>
          Register app
        </button>
      </form>
      <Show loaded={list} isEmpty={(data) => data.apps.length === 0} empty="No partner apps yet.">
        {(data) => (
          <Table caption="Partner apps" columns={['Name', 'Client ID', 'Redirect URIs', 'Scopes', 'Actions']}>
            {data.apps.map((app) => (
              <tr key={app.id}>
                <td>
                  {app.name} <small>({app.type})</small>
                </td>
                <td>
                  <code>{app.clientId}</code>
                </td>
                <td>{app.redirectUris.join(' ')}</td>
                <td>{app.scopes.join(', ')}</td>
                <td class="actions">
                  {app.type === 'confidential' && (
                    <button type="button" onClick={() => void rotate(app)} aria-label={`New secret for ${app.name}`}>
                      New secret
                    </button>
                  )}
                  <button type="button" class="danger" onClick={() => void remove(app)} aria-label={`Delete ${app.name}`}>
                    Delete
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
