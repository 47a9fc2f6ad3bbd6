import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap, type Schemas } from '../api/client';
import { inviteMemberDtoRoleValues } from '@app/api-types';
import { useSession } from '../context';
import { Field, FormAlert, inputValue, problemOf, useSubmit, type FormProblem } from '../ui/form';
import { Table } from '../ui/table';
import { Show } from '../ui/states';
import { formatDateTime } from '../ui/time';
import { useMembers } from './members';

type Role = Schemas['InviteMemberDto']['role'];
type Member = Schemas['MemberView'];

export function TeamPage(): JSX.Element {
  const { me, isAdmin, timeZone } = useSession();
  const members = useMembers();
  const orgId = me.organization.id;
  const isOwner = me.member.role === 'owner';
  // An admin cannot grant owner nor change or remove an owner (api-rules.md § Keys): not offered.
  const grantable = inviteMemberDtoRoleValues.filter((role) => isOwner || role !== 'owner');
  const [rowProblem, setRowProblem] = useState<FormProblem | null>(null);

  const act = async (action: () => Promise<unknown>): Promise<void> => {
    setRowProblem(null);
    try {
      await action();
      members.reload();
    } catch (error) {
      setRowProblem(problemOf(error));
    }
  };
  const changeRole = (member: Member, role: Role): Promise<void> =>
    act(() => unwrap(api.PATCH('/v1/organizations/{orgId}/members/{id}', { params: { path: { orgId, id: member.id } }, body: { role } })));
  const remove = (member: Member): Promise<void> => {
    if (!window.confirm(`Remove ${member.email}?`)) return Promise.resolve();
    return act(() => unwrap(api.DELETE('/v1/organizations/{orgId}/members/{id}', { params: { path: { orgId, id: member.id } } })));
  };
  const setLimits = (member: Member, bookingLimits: Limits | null): Promise<void> =>
    act(() =>
      unwrap(api.PATCH('/v1/organizations/{orgId}/members/{id}', { params: { path: { orgId, id: member.id } }, body: { bookingLimits } })),
    );
  const manageable = (member: Member): boolean => isAdmin && member.id !== me.member.id && (isOwner || member.role !== 'owner');

  return (
    <section>
      <h1>Team</h1>
      {isAdmin && <InviteForm grantable={grantable} onInvited={members.reload} />}
      <FormAlert problem={rowProblem} />
      <Show loaded={members} isEmpty={(data) => data.length === 0}>
        {(data) => (
          <Table
            caption="Members and invitations"
            columns={['Member', 'Role', 'Status', 'Since', 'Booking limits', ...(isAdmin ? ['Actions'] : [])]}
          >
            {data.map((member) => (
              <tr key={member.id}>
                <td>
                  {[member.firstName, member.lastName].filter(Boolean).join(' ')} {member.email}
                </td>
                <td>
                  {manageable(member) ? (
                    <select
                      aria-label={`Role of ${member.email}`}
                      value={member.role}
                      onChange={(e) => void changeRole(member, inputValue(e) as Role)}
                    >
                      {grantable.map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  ) : (
                    member.role
                  )}
                </td>
                <td>{member.status}</td>
                <td>{formatDateTime(member.joinedAt ?? member.invitedAt, timeZone)}</td>
                <td>
                  {isAdmin ? (
                    <LimitsForm member={member} onSave={(limits) => setLimits(member, limits)} />
                  ) : (
                    limitsText(member.bookingLimits)
                  )}
                </td>
                {isAdmin && (
                  <td>
                    {manageable(member) && (
                      <button type="button" class="danger" onClick={() => void remove(member)} aria-label={`Remove ${member.email}`}>
                        Remove
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </Table>
        )}
      </Show>
    </section>
  );
}

type Limits = { perDay: number | null; perWeek: number | null };

/** "2 a day, 8 a week", or "none". */
function limitsText(limits: Member['bookingLimits']): string {
  if (!limits) return 'none';
  const parts = [limits.perDay !== null && `${limits.perDay} a day`, limits.perWeek !== null && `${limits.perWeek} a week`];
  return parts.filter(Boolean).join(', ') || 'none';
}

/**
 * A member's booking limits across every event type (api-rules.md § Scheduling policies): per day 1..100 and per week
 * 1..500 in the member's schedule zone; empty for none.
 */
function LimitsForm({ member, onSave }: { member: Member; onSave: (limits: Limits | null) => Promise<void> }): JSX.Element {
  const [perDay, setPerDay] = useState(member.bookingLimits?.perDay?.toString() ?? '');
  const [perWeek, setPerWeek] = useState(member.bookingLimits?.perWeek?.toString() ?? '');
  const numberOrNull = (text: string): number | null => (text.trim() === '' ? null : Number(text));
  const save = (event: Event): void => {
    event.preventDefault();
    const limits = { perDay: numberOrNull(perDay), perWeek: numberOrNull(perWeek) };
    void onSave(limits.perDay === null && limits.perWeek === null ? null : limits);
  };
  return (
    <form class="inline" onSubmit={save} aria-label={`Booking limits of ${member.email}`}>
      <input
        type="number"
        inputMode="numeric"
        min={1}
        max={100}
        placeholder="per day"
        aria-label={`Bookings per day of ${member.email}`}
        value={perDay}
        onInput={(e) => setPerDay(inputValue(e))}
      />
      <input
        type="number"
        inputMode="numeric"
        min={1}
        max={500}
        placeholder="per week"
        aria-label={`Bookings per week of ${member.email}`}
        value={perWeek}
        onInput={(e) => setPerWeek(inputValue(e))}
      />
      <button type="submit" class="secondary">
        Save
      </button>
    </form>
  );
}

function InviteForm({ grantable, onInvited }: { grantable: readonly Role[]; onInvited: () => void }): JSX.Element {
  const { me } = useSession();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [invited, setInvited] = useState<string | null>(null);
  const { submit, pending, problem } = useSubmit(async () => {
    setInvited(null);
    const body = { email, role };
    const answer = await unwrap(api.POST('/v1/organizations/{orgId}/members', { params: { path: { orgId: me.organization.id } }, body }));
    setInvited(answer.member.email);
    setEmail('');
    onInvited();
  });
  return (
    <form onSubmit={submit} noValidate class="panel filters" aria-label="Invite a member">
      <FormAlert problem={problem} />
      <Field label="Email to invite" name="email" problem={problem}>
        {(props) => <input {...props} type="email" value={email} onInput={(e) => setEmail(inputValue(e))} />}
      </Field>
      <Field label="Role" name="role" problem={problem}>
        {(props) => (
          <select {...props} value={role} onChange={(e) => setRole(inputValue(e) as Role)}>
            {grantable.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" disabled={pending}>
        Invite
      </button>
      {invited && <p role="status">Invitation sent to {invited}.</p>}
    </form>
  );
}
