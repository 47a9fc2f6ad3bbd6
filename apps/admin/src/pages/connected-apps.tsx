import type { JSX } from 'preact';
import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { SCOPE_WORDS } from '../ui/scopes';
import { Show } from '../ui/states';
import { Table } from '../ui/table';
import { formatDateTime } from '../ui/time';

/** The partner apps connected to this organization (its grants), with what each may do and Revoke. */
export function ConnectedAppsPage(): JSX.Element {
  const { timeZone } = useSession();
  const list = useLoad(() => unwrap(api.GET('/v1/oauth-grants')), []);
  const revoke = async (grant: Schemas['OAuthGrantView']): Promise<void> => {
    if (!window.confirm(`Disconnect “${grant.app.name}”? It loses access at once.`)) return;
    await unwrap(api.DELETE('/v1/oauth-grants/{id}', { params: { path: { id: grant.id } } }));
    list.reload();
  };
  return (
    <section>
      <h1>Connected apps</h1>
      <Show loaded={list} isEmpty={(data) => data.grants.length === 0} empty="No apps are connected.">
        {(data) => (
          <Table caption="Connected apps" columns={['App', 'May', 'Connected', 'Last used', 'Actions']}>
            {data.grants.map((grant) => (
              <tr key={grant.id}>
                <td>
                  {grant.app.homepageUrl ? (
                    <a href={grant.app.homepageUrl} rel="noopener noreferrer" target="_blank">
                      {grant.app.name}
                    </a>
                  ) : (
                    grant.app.name
                  )}
                </td>
                <td>
                  <ul class="plain">
                    {grant.scopes.map((scope) => (
                      <li key={scope}>{SCOPE_WORDS[scope]}</li>
                    ))}
                  </ul>
                </td>
                <td>{formatDateTime(grant.createdAt, timeZone)}</td>
                <td>{formatDateTime(grant.lastUsedAt, timeZone)}</td>
                <td>
                  <button type="button" class="danger" onClick={() => void revoke(grant)} aria-label={`Revoke ${grant.app.name}`}>
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
