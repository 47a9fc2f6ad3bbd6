import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { checked, Field, FormAlert, inputValue, useSubmit } from '../ui/form';
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
      {me.member.role === 'owner' && (
        <>
          <SingleSignOn />
          <ScimToken />
        </>
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

type Sso = Schemas['SsoView'];

/** Organization → Single sign-on (contract § 21): owners configure the provider; saving reads and checks it. */
function SingleSignOn(): JSX.Element {
  const { me } = useSession();
  const path = { params: { path: { orgId: me.organization.id } } };
  const [sso, setSso] = useState<Sso | null | undefined>(undefined);
  const [issuer, setIssuer] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [domains, setDomains] = useState('');
  const [enforce, setEnforce] = useState(false);
  const [defaultRole, setDefaultRole] = useState<'member' | 'admin'>('member');
  const [status, setStatus] = useState('');
  const show = (value: Sso | null): void => {
    setSso(value);
    setIssuer(value?.issuer ?? '');
    setClientId(value?.clientId ?? '');
    setDomains(value?.domains.join(', ') ?? '');
    setEnforce(value?.enforce ?? false);
    setDefaultRole(value?.defaultRole ?? 'member');
  };
  useEffect(() => {
    void api.GET('/v1/organizations/{orgId}/sso', path).then(({ data }) => show(data?.sso ?? null));
  }, []);
  const save = useSubmit(async () => {
    setStatus('');
    const body = {
      issuer: issuer.trim(),
      clientId: clientId.trim(),
      clientSecret,
      domains: domains
        .split(/[\s,]+/)
        .map((domain) => domain.trim().toLowerCase())
        .filter(Boolean),
      enforce,
      defaultRole,
    };
    show((await unwrap(api.PUT('/v1/organizations/{orgId}/sso', { ...path, body }))).sso);
    setClientSecret('');
    setStatus('Saved: the provider’s discovery document was read and checked.');
  });
  const remove = useSubmit(async () => {
    await unwrap(api.DELETE('/v1/organizations/{orgId}/sso', path));
    show(null);
    setStatus('Single sign-on removed.');
  });
  if (sso === undefined) return <p role="status">Loading single sign-on…</p>;
  return (
    <form onSubmit={save.submit} noValidate class="panel" aria-labelledby="sso-settings">
      <h2 id="sso-settings">Single sign-on</h2>
      <p>
        Register this redirect URI at your identity provider: <code>{sso?.redirectUri ?? `${location.origin}/v1/auth/sso/callback`}</code>
      </p>
      <FormAlert problem={save.problem ?? remove.problem} />
      <Field label="Issuer URL" name="issuer" problem={save.problem}>
        {(props) => <input {...props} type="url" value={issuer} onInput={(e) => setIssuer(inputValue(e))} />}
      </Field>
      <Field label="Client ID" name="clientId" problem={save.problem}>
        {(props) => <input {...props} value={clientId} onInput={(e) => setClientId(inputValue(e))} />}
      </Field>
      <Field
        label="Client secret"
        name="clientSecret"
        problem={save.problem}
        hint={sso ? 'Stored encrypted; enter it again to save' : undefined}
      >
        {(props) => (
          <input {...props} type="password" autoComplete="off" value={clientSecret} onInput={(e) => setClientSecret(inputValue(e))} />
        )}
      </Field>
      <Field label="Email domains" name="domains" problem={save.problem} hint="Separated by commas, e.g. example.com">
        {(props) => <input {...props} value={domains} onInput={(e) => setDomains(inputValue(e))} />}
      </Field>
      <Field label="Role of people signing in the first time" name="defaultRole" problem={save.problem}>
        {(props) => (
          <select {...props} value={defaultRole} onChange={(e) => setDefaultRole(inputValue(e) as 'member' | 'admin')}>
            <option value="member">Member</option>
            <option value="admin">Admin</option>
          </select>
        )}
      </Field>
      <label class="check">
        <input type="checkbox" name="enforce" checked={enforce} onChange={(e) => setEnforce(checked(e))} /> Require single sign-on for these
        domains (owners may still use their password)
      </label>
      <button type="submit" disabled={save.pending}>
        Save and test connection
      </button>
      {sso && (
        <button type="button" class="secondary" disabled={remove.pending} onClick={() => void remove.submit()}>
          Remove single sign-on
        </button>
      )}
      {status && <p role="status">{status}</p>}
    </form>
  );
}

/** Organization → SCIM token (contract § 21): created and shown once, or revoked. */
function ScimToken(): JSX.Element {
  const { me } = useSession();
  const path = { params: { path: { orgId: me.organization.id } } };
  const [token, setToken] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const create = useSubmit(async () => {
    setToken((await unwrap(api.POST('/v1/organizations/{orgId}/scim-token', path))).token);
    setStatus('');
  });
  const revoke = useSubmit(async () => {
    await unwrap(api.DELETE('/v1/organizations/{orgId}/scim-token', path));
    setToken(null);
    setStatus('SCIM token revoked.');
  });
  return (
    <section class="panel" aria-labelledby="scim-heading">
      <h2 id="scim-heading">SCIM provisioning</h2>
      <p>
        SCIM base URL: <code>{`${location.origin}/scim/v2`}</code>
      </p>
      <FormAlert problem={create.problem ?? revoke.problem} />
      {token && (
        <p role="status">
          Your new token, shown only now: <code>{token}</code>
        </p>
      )}
      <button type="button" disabled={create.pending} onClick={() => void create.submit()}>
        Create SCIM token
      </button>
      <button type="button" class="secondary" disabled={revoke.pending} onClick={() => void revoke.submit()}>
        Revoke SCIM token
      </button>
      {status && <p role="status">{status}</p>}
    </section>
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
