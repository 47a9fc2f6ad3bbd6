import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure } from '../api/client';
import { signIn } from '../session';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';

/** Where single sign-on starts for an email (contract § 21): a 302 to the organization's identity provider. */
function ssoStart(email: string): string {
  return `/v1/auth/sso/start?email=${encodeURIComponent(email.trim())}`;
}

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }): JSX.Element {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { submit, pending, problem } = useSubmit(async () => {
    await signIn(email, password);
    onSignedIn();
  });
  return (
    <main id="main" class="sign-in">
      <h1>Sign in</h1>
      <form onSubmit={submit} noValidate>
        <FormAlert problem={problem} />
        <Field label="Email" name="email" problem={problem}>
          {(props) => <input {...props} type="email" autoComplete="username" value={email} onInput={(e) => setEmail(inputValue(e))} />}
        </Field>
        <Field label="Password" name="password" problem={problem}>
          {(props) => (
            <input
              {...props}
              type="password"
              autoComplete="current-password"
              value={password}
              onInput={(e) => setPassword(inputValue(e))}
            />
          )}
        </Field>
        <button type="submit" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <SingleSignOn />
    </main>
  );
}

/**
 * "Sign in with SSO": the email's domain names the organization. The start is asked first without following its
 * redirect, so that a domain without single sign-on is told here rather than on a bare error page.
 */
function SingleSignOn(): JSX.Element {
  const [email, setEmail] = useState('');
  const failed = new URLSearchParams(location.search).get('error') === 'sso_failed';
  // A link, not a second button: the password form keeps the page's one "Sign in" button.
  const [open, setOpen] = useState(failed);
  const { submit, pending, problem } = useSubmit(async () => {
    const response = await fetch(ssoStart(email), { redirect: 'manual' });
    if (response.type === 'opaqueredirect' || response.status === 302) {
      location.assign(ssoStart(email));
      return;
    }
    const body = (await response.json().catch(() => undefined)) as ApiFailure['body'];
    throw new ApiFailure(response.status, body);
  });
  if (!open) {
    return (
      <p>
        <a
          href="#sso"
          onClick={(event) => {
            event.preventDefault();
            setOpen(true);
          }}
        >
          Sign in with SSO
        </a>
      </p>
    );
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="sso-heading" class="panel">
      <h2 id="sso-heading">Single sign-on</h2>
      {failed && (
        <p role="alert" class="alert">
          Single sign-on did not succeed. Try again, or ask your organization’s owner.
        </p>
      )}
      <FormAlert problem={problem} />
      <Field label="Work email" name="email" problem={problem}>
        {(props) => <input {...props} type="email" autoComplete="username" value={email} onInput={(e) => setEmail(inputValue(e))} />}
      </Field>
      <button type="submit" disabled={pending}>
        Continue with SSO
      </button>
    </form>
  );
}
