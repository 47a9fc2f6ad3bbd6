import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../context';
import { useLoad, type Loaded } from '../ui/async';

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
