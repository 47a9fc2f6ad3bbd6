import type { JSX } from 'preact';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import { useSession } from '../context';
import { useLoad } from '../ui/async';
import { FormAlert, problemOf, type FormProblem } from '../ui/form';
import { SCOPE_WORDS } from '../ui/scopes';
import { Show } from '../ui/states';
import { formatDateTime } from '../ui/time';

/**
 * The consent page of GET /oauth/authorize (contract § 20): which app, what it may do, for which organization; an
 * owner or admin approves, anyone may deny; either way the browser goes back to the app.
 */
export function ConsentPage(): JSX.Element {
  const { query } = useLocation();
  const { me, isAdmin, timeZone } = useSession();
  const id = query.request ?? '';
  const loaded = useLoad(() => unwrap(api.GET('/v1/oauth/requests/{id}', { params: { path: { id } } })), [id]);
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const decide = async (decision: 'approve' | 'deny'): Promise<void> => {
    setPending(true);
    setProblem(null);
    try {
      const path = decision === 'approve' ? '/v1/oauth/requests/{id}/approve' : '/v1/oauth/requests/{id}/deny';
      const { redirectTo } = await unwrap(api.POST(path, { params: { path: { id } } }));
      window.location.assign(redirectTo);
    } catch (error) {
      setProblem(problemOf(error));
      setPending(false);
    }
  };
  return (
    <section class="consent" aria-labelledby="consent-title">
      <Show loaded={loaded}>
        {({ request }) => (
          <>
            <header class="consent-app">
              {request.app.logoUrl && <img src={request.app.logoUrl} alt="" width={64} height={64} />}
              <h1 id="consent-title">Connect {request.app.name}?</h1>
            </header>
            <p>
              <strong>{request.app.name}</strong> asks to act for <strong>{me.organization.name}</strong> (you are signed in as{' '}
              {me.user.email}).
            </p>
            {request.app.homepageUrl && (
              <p>
                Homepage:{' '}
                <a href={request.app.homepageUrl} rel="noopener noreferrer" target="_blank">
                  {request.app.homepageUrl}
                </a>
              </p>
            )}
            <h2>It will be able to</h2>
            <ul>
              {request.scopes.map((scope) => (
                <li key={scope}>{SCOPE_WORDS[scope]}</li>
              ))}
            </ul>
            <p class="hint">
              You will be sent back to <code>{request.redirectUri}</code>. This request expires at{' '}
              {formatDateTime(request.expiresAt, timeZone)}. You can disconnect the app at any time under Connected apps.
            </p>
            {!isAdmin && <p role="note">Only an owner or admin of {me.organization.name} can connect an app. You can decline.</p>}
            <FormAlert problem={problem} />
            <div class="actions">
              {isAdmin && (
                <button type="button" disabled={pending} onClick={() => void decide('approve')}>
                  Allow
                </button>
              )}
              <button type="button" class="secondary" disabled={pending} onClick={() => void decide('deny')}>
                Deny
              </button>
            </div>
          </>
        )}
      </Show>
    </section>
  );
}
