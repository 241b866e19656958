import { Navigate } from 'react-router';
import { useMe } from '../api/queries';
import { Spinner } from '../components/Spinner';

/** /: the default group, else the first group, else /create-group (product spec §2). */
export default function Home() {
  const { data: me } = useMe();
  if (me === undefined) return <Spinner />;
  const defaultGroup = me.groups.find((group) => group.id === me.data.default_group);
  const target = defaultGroup ?? me.groups[0];
  return <Navigate to={target ? `/groups/${target.id}` : '/create-group'} replace />;
}
