import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Schemas } from './api/client';

/** GET /users/me as a signed-in member sees it: the console signs in people, so user and member are there. */
export type SignedInMe = Schemas['MeResponse'] & {
  user: NonNullable<Schemas['MeResponse']['user']>;
  member: NonNullable<Schemas['MeResponse']['member']>;
};

export interface SessionContext {
  me: SignedInMe;
  /** The signed-in member's timezone: every time on every page is shown in it. */
  timeZone: string;
  /** Owners and admins manage keys, webhooks, event types, the team and others' schedules. */
  isAdmin: boolean;
  reloadMe: () => void;
  signOut: () => void;
}

export const Session = createContext<SessionContext | null>(null);

export function useSession(): SessionContext {
  const session = useContext(Session);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}
