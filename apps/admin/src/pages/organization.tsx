import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import { useSession } from '../context';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { formatDateTime } from '../ui/time';
import { ZonePicker } from '../ui/zone-picker';

export function OrganizationPage(): JSX.Element {
  const { me, isAdmin, timeZone, reloadMe } = useSession();
  const [name, setName] = useState(me.organization.name);
  const [saved, setSaved] = useState(false);
  const { submit, pending, problem } = useSubmit(async () => {
    setSaved(false);
    await unwrap(api.PATCH('/v1/organizations/{orgId}', { params: { path: { orgId: me.organization.id } }, body: { name } }));
    setSaved(true);
    reloadMe();
  });
  return (
    <section>
      <h1>Organization</h1>
      <dl class="facts">
        <dt>Slug</dt>
        <dd>{me.organization.slug}</dd>
        <dt>Created</dt>
        <dd>{formatDateTime(me.organization.createdAt, timeZone)}</dd>
      </dl>
      <ProfileZone />
      {isAdmin ? (
        <form onSubmit={submit} noValidate>
          <FormAlert problem={problem} />
          <Field label="Organization name" name="name" problem={problem}>
            {(props) => <input {...props} value={name} onInput={(e) => setName(inputValue(e))} />}
          </Field>
          <button type="submit" disabled={pending}>
            Save name
          </button>
          {saved && <p role="status">Saved.</p>}
        </form>
      ) : (
        <p>
          Name: <strong>{me.organization.name}</strong>
        </p>
      )}
    </section>
  );
}

/** The member's own timezone: every time in the console is shown in it. */
function ProfileZone(): JSX.Element {
  const { timeZone, reloadMe } = useSession();
  const [zone, setZone] = useState(timeZone);
  const [saved, setSaved] = useState(false);
  const { submit, pending, problem } = useSubmit(async () => {
    setSaved(false);
    await unwrap(api.PATCH('/v1/users/me', { body: { timezone: zone } }));
    setSaved(true);
    reloadMe();
  });
  return (
    <form onSubmit={submit} noValidate class="panel" aria-label="Your timezone">
      <FormAlert problem={problem} />
      <Field label="Your timezone" name="timezone" problem={problem} hint="Times everywhere in the console are shown in it">
        {(props) => <ZonePicker {...props} value={zone} onChange={setZone} />}
      </Field>
      <button type="submit" disabled={pending}>
        Save timezone
      </button>
      {saved && <p role="status">Timezone saved.</p>}
    </form>
  );
}
