import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { setApiKey } from '../../lib/session';

/** Stores a fresh API key, forgets the previous user's cached data and opens `to`. */
export function useSignIn() {
  const client = useQueryClient();
  const navigate = useNavigate();
  return useCallback(
    (apiKey: string, to = '/') => {
      client.clear();
      setApiKey(apiKey);
      void navigate(to, { replace: true });
    },
    [client, navigate],
  );
}
