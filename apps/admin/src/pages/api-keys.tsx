import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { createApiKeyDtoModeValues, createApiKeyDtoScopesValues } from '@app/api-types';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { CheckList, Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { Table } from '../ui/table';
import { Show, ShownOnce } from '../ui/states';
import { formatDateTime } from '../ui/time';

type Scope = NonNullable<Schemas['CreateApiKeyDto']['scopes']>[number];

export function ApiKeysPage(): JSX.Element {
  const { timeZone } = useSession();
  const list = useLoad(() => unwrap(api.GET('/v1/api-keys', { params: { query: { limit: 100 } } })), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['bookings:read']);
  const [mode, setMode] = useState<'live' | 'test'>('live');
  const [shown, setShown] = useState<string | null>(null);
  const { submit, pending, problem } = useSubmit(async () => {
    const created = await unwrap(api.POST('/v1/api-keys', { body: { name, scopes, mode } }));
    setShown(created.apiKey);
    setName('');
    list.reload();
  });
  const revoke = async (key: Schemas['ApiKeyView']): Promise<void> => {
    if (!window.confirm(`Revoke “${key.name}”? Calls with it fail at once.`)) return;
    await unwrap(api.DELETE('/v1/api-keys/{id}', { params: { path: { id: key.id } } }));
    list.reload();
  };
  return (
    <section>
      <h1>API keys</h1>
      {shown && <ShownOnce label="New API key" value={shown} onDone={() => setShown(null)} />}
      <form onSubmit={submit} noValidate class="panel" aria-label="New API key">
        <FormAlert problem={problem} />
        <Field label="Name" name="name" problem={problem}>
          {(props) => <input {...props} value={name} onInput={(e) => setName(inputValue(e))} />}
        </Field>
        <CheckList
          legend="Scopes"
          name="scopes"
          options={createApiKeyDtoScopesValues}
          chosen={scopes}
          onChange={setScopes}
          problem={problem}
        />
        <Field label="Mode" name="mode" problem={problem}>
          {(props) => (
            <select {...props} value={mode} onChange={(e) => setMode(inputValue(e) as 'live' | 'test')}>
              {createApiKeyDtoModeValues.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" disabled={pending}>
          Create key
        </button>
      </form>
      <Show loaded={list} isEmpty={(data) => data.keys.length === 0} empty="No API keys yet.">
        {(data) => (
          <Table caption="API keys" columns={['Name', 'Prefix', 'Scopes', 'Last used', 'Actions']}>
            {data.keys.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td>
                  <code>{key.keyPrefix}</code> {key.mode}
                </td>
                <td>{key.scopes.join(', ')}</td>
                <td>{formatDateTime(key.lastUsedAt, timeZone)}</td>
                <td>
                  <button type="button" class="danger" onClick={() => void revoke(key)} aria-label={`Revoke ${key.name}`}>
                    Revoke
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
