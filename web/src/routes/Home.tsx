import { Navigate } from 'react-router';
import { useMe } from '../api/queries';
import { Spinner } from '../components/Spinner';
import { homePathOf } from '../features/settings/settings';

/**
 * /: the all-groups feed if the user chose it as their default page, else the default group, else
 * the first group, else /create-group (product spec §2, docs/api §11.8).
 */
export default function Home() {
  const { data: me } = useMe();
  if (me === undefined) return <Spinner />;
  return <Navigate to={homePathOf(me)} replace />;
}
