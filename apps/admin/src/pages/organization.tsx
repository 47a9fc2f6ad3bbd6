import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import { useSession } from '../context';
import { Field, FormAlert, inputValue, useSubmit } from '../ui/form';
import { formatDateTime } from '../ui/time';
import { ZonePicker } from '../ui/zone-picker';

/** The locales with a message catalog (contract § 23: the API's apps/api/src/i18n/locales.ts), each named in its own language. */
const LOCALES = ['en', 'de', 'fr', 'es', 'pt-BR', 'nl', 'it', 'ja'] as const;
type Locale = (typeof LOCALES)[number];

function languageName(locale: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
  } catch {
    return locale;
  }
}

export function OrganizationPage(): JSX.Element {
  const { me, isAdmin, timeZone, reloadMe } = useSession();
  const [name, setName] = useState(me.organization.name);
  const [defaultLocale, setDefaultLocale] = useState<Locale>((me.organization.defaultLocale as Locale | undefined) ?? 'en');
  const [saved, setSaved] = useState(false);
  const { submit, pending, problem } = useSubmit(async () => {
    setSaved(false);
    await unwrap(
      api.PATCH('/v1/organizations/{orgId}', { params: { path: { orgId: me.organization.id } }, body: { name, defaultLocale } }),
    );
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
      <ProfileLanguage />
      {isAdmin ? (
        <form onSubmit={submit} noValidate>
          <FormAlert problem={problem} />
          <Field label="Organization name" name="name" problem={problem}>
            {(props) => <input {...props} value={name} onInput={(e) => setName(inputValue(e))} />}
          </Field>
          <Field
            label="Default language"
            name="defaultLocale"
            problem={problem}
            hint="Mails to members and attendees who have not chosen a language of their own, and invitations"
          >
            {(props) => (
              <select {...props} value={defaultLocale} onChange={(e) => setDefaultLocale(inputValue(e) as Locale)}>
                {LOCALES.map((locale) => (
                  <option key={locale} value={locale} lang={locale}>
                    {languageName(locale)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" disabled={pending}>
            Save organization
          </button>
          {saved && <p role="status">Saved.</p>}
        </form>
      ) : (
        <p>
          Name: <strong>{me.organization.name}</strong>. Default language:{' '}
          <strong>{languageName(me.organization.defaultLocale ?? 'en')}</strong>
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

/** The member's own language for its mails (contract § 23); "the organization's default" sends null. */
function ProfileLanguage(): JSX.Element {
  const { me, reloadMe } = useSession();
  const [locale, setLocale] = useState(me.user.locale ?? '');
  const [saved, setSaved] = useState(false);
  const { submit, pending, problem } = useSubmit(async () => {
    setSaved(false);
    await unwrap(api.PATCH('/v1/users/me', { body: { locale: locale === '' ? null : locale } }));
    setSaved(true);
    reloadMe();
  });
  const organizationDefault = languageName(me.organization.defaultLocale ?? 'en');
  // A tag set through the API that no option names (de-AT, say) stays selectable as it is.
  const own = locale !== '' && !(LOCALES as readonly string[]).includes(locale) ? [locale] : [];
  return (
    <form onSubmit={submit} noValidate class="panel" aria-label="Your language">
      <FormAlert problem={problem} />
      <Field label="Your language" name="locale" problem={problem} hint="The booking mails you receive are written in it">
        {(props) => (
          <select {...props} value={locale} onChange={(e) => setLocale(inputValue(e))}>
            <option value="">Organization default ({organizationDefault})</option>
            {[...own, ...LOCALES].map((tag) => (
              <option key={tag} value={tag} lang={tag}>
                {languageName(tag)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" disabled={pending}>
        Save language
      </button>
      {saved && <p role="status">Language saved.</p>}
    </form>
  );
}
