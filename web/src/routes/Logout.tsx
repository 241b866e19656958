import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate } from 'react-router';
import { clearSession } from '../lib/session';

/** /logout: forgets the key and all local storage, then goes to /login. */
export default function Logout() {
  const client = useQueryClient();
  useEffect(() => {
    clearSession();
    client.clear();
  }, [client]);
  return <Navigate to="/login" replace />;
}
