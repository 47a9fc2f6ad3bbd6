import type { JSX } from 'preact';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap, whenUnauthorized, type Schemas } from './api/client';
import { Session, type SessionContext, type SignedInMe } from './context';
import { ApiKeysPage } from './pages/api-keys';
import { ConnectedAppsPage } from './pages/connected-apps';
import { OAuthAppsPage } from './pages/oauth-apps';
import { ConsentPage } from './pages/oauth-consent';
import { AuditPage } from './pages/audit';
import { AvailabilityPage } from './pages/availability';
import { OutOfOfficePage } from './pages/out-of-office';
import { BookingDetailPage, BookingsPage } from './pages/bookings';
import { CalendarsPage } from './pages/calendars';
import { EventTypeEditPage, EventTypesPage } from './pages/event-types';
import { HomePage } from './pages/home';
import { OrganizationPage } from './pages/organization';
import { RoutingFormEditPage, RoutingFormsPage } from './pages/routing-forms';
import { SchedulePage } from './pages/schedule';
import { SignInPage } from './pages/sign-in';
import { TeamPage } from './pages/team';
import { WebhookDetailPage, WebhooksPage } from './pages/webhooks';
import * as session from './session';
import { NotAllowed } from './ui/states';

interface NavItem {
  href: string;
  label: string;
  adminOnly?: boolean;
}

const NAV: NavItem[] = [
  { href: '/admin/', label: 'Home' },
  { href: '/admin/bookings', label: 'Bookings' },
  { href: '/admin/event-types', label: 'Event types' },
  { href: '/admin/routing-forms', label: 'Routing forms', adminOnly: true },
  { href: '/admin/schedule', label: 'Schedule' },
  { href: '/admin/availability', label: 'Availability' },
  { href: '/admin/out-of-office', label: 'Out of office' },
  { href: '/admin/calendars', label: 'Calendars' },
  { href: '/admin/team', label: 'Team' },
  { href: '/admin/api-keys', label: 'API keys', adminOnly: true },
  { href: '/admin/webhooks', label: 'Webhooks', adminOnly: true },
  { href: '/admin/oauth-apps', label: 'Partner apps', adminOnly: true },
  { href: '/admin/connected-apps', label: 'Connected apps', adminOnly: true },
  { href: '/admin/audit', label: 'Audit', adminOnly: true },
  { href: '/admin/organization', label: 'Organization' },
];

/** Home is current on the console's root only; every other item on its pages below too. */
function isCurrent(href: string, path: string): boolean {
  return href === '/admin/' ? path === '/admin/' || path === '/admin' : path.startsWith(href);
}

type Phase = { name: 'starting' } | { name: 'signed-out' } | { name: 'signed-in'; me: SignedInMe };

function signedIn(me: Schemas['MeResponse']): SignedInMe {
  if (!me.user || !me.member) throw new Error('The console signs in members only');
  return { ...me, user: me.user, member: me.member };
}

export function App(): JSX.Element {
  return (
    <LocationProvider scope="/admin">
      <Console />
    </LocationProvider>
  );
}

function Console(): JSX.Element {
  const [phase, setPhase] = useState<Phase>({ name: 'starting' });

  const loadMe = async (): Promise<void> => {
    setPhase({ name: 'signed-in', me: signedIn(await unwrap(api.GET('/v1/users/me'))) });
  };
  const start = async (): Promise<void> => {
    if (await session.refresh()) await loadMe();
    else setPhase({ name: 'signed-out' });
  };

  useEffect(() => {
    // A refused token (a timer that slept with the laptop, a revoked session): one refresh from the cookie
    // keeps the member signed in when the session still lives; otherwise back to sign-in.
    whenUnauthorized(() => {
      void session.refresh().then((ok) => {
        if (!ok) setPhase({ name: 'signed-out' });
      });
    });
    void start();
  }, []);

  if (phase.name === 'starting') {
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  }
  if (phase.name === 'signed-out') return <SignInPage onSignedIn={() => void loadMe()} />;

  const me = phase.me;
  const context: SessionContext = {
    me,
    timeZone: me.user.timezone,
    isAdmin: me.member.role === 'owner' || me.member.role === 'admin',
    reloadMe: () => void loadMe(),
    signOut: () => void session.signOut().finally(() => setPhase({ name: 'signed-out' })),
  };
  return (
    <Session.Provider value={context}>
      <Shell context={context} />
    </Session.Provider>
  );
}

function Shell({ context }: { context: SessionContext }): JSX.Element {
  const { path } = useLocation();
  const admin = (page: () => JSX.Element) => (context.isAdmin ? page : NotAllowed);
  // The consent page of a partner app's authorization request stands alone: nothing to wander off to (contract § 20).
  if (path === '/admin/oauth/consent') {
    return (
      <main id="main" class="standalone" tabIndex={-1}>
        <ConsentPage />
      </main>
    );
  }
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{context.me.organization.name}</span>
        <nav aria-label="Console">
          <ul>
            {NAV.filter((item) => !item.adminOnly || context.isAdmin).map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={isCurrent(item.href, path) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {context.me.user.email} · {context.me.member.role}
          </span>
          <button type="button" onClick={context.signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Router>
          <Route path="/admin/bookings" component={BookingsPage} />
          <Route path="/admin/bookings/:id" component={BookingDetailPage} />
          <Route path="/admin/event-types" component={EventTypesPage} />
          <Route path="/admin/event-types/:id" component={EventTypeEditPage} />
          <Route path="/admin/routing-forms" component={admin(RoutingFormsPage)} />
          <Route path="/admin/routing-forms/:id" component={admin(RoutingFormEditPage)} />
          <Route path="/admin/schedule" component={SchedulePage} />
          <Route path="/admin/availability" component={AvailabilityPage} />
          <Route path="/admin/out-of-office" component={OutOfOfficePage} />
          <Route path="/admin/calendars" component={CalendarsPage} />
          <Route path="/admin/team" component={TeamPage} />
          <Route path="/admin/api-keys" component={admin(ApiKeysPage)} />
          <Route path="/admin/webhooks" component={admin(WebhooksPage)} />
          <Route path="/admin/webhooks/:id" component={admin(WebhookDetailPage)} />
          <Route path="/admin/oauth-apps" component={admin(OAuthAppsPage)} />
          <Route path="/admin/connected-apps" component={admin(ConnectedAppsPage)} />
          <Route path="/admin/audit" component={admin(AuditPage)} />
          <Route path="/admin/organization" component={OrganizationPage} />
          <Route default component={HomePage} />
        </Router>
      </main>
    </>
  );
}
