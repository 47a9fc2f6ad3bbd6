import type { JSX } from 'preact';
import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad, type Loaded } from '../ui/async';
import { Field, inputValue } from '../ui/form';

/** The organization's members (active and invited), for pickers: hosts, whose schedule, whose bookings. */
export function useMembers(): Loaded<Array<Schemas['MemberView']>> {
  const { me } = useSession();
  return useLoad(async () => {
    const data = await unwrap(
      api.GET('/v1/organizations/{orgId}/members', { params: { path: { orgId: me.organization.id }, query: { limit: 100 } } }),
    );
    return data.members;
  }, [me.organization.id]);
}

/** A select of the organization's active members by user id; `anyLabel` adds an empty choice first. */
export function MemberSelect(props: {
  label: string;
  name: string;
  value: string;
  onChange: (userId: string) => void;
  anyLabel?: string;
  /** A user left out of the choices (the absent member, who cannot stand in for itself). */
  exclude?: string;
}): JSX.Element {
  const members = useMembers();
  return (
    <Field label={props.label} name={props.name}>
      {(control) => (
        <select {...control} value={props.value} onChange={(e) => props.onChange(inputValue(e))}>
          {props.anyLabel !== undefined && <option value="">{props.anyLabel}</option>}
          {(members.data ?? [])
            .filter((member) => member.userId && member.userId !== props.exclude)
            .map((member) => (
              <option key={member.id} value={member.userId!}>
                {member.email}
              </option>
            ))}
        </select>
      )}
    </Field>
  );
}
