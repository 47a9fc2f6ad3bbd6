import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { signIn } from '../session';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';

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
    </main>
  );
}
