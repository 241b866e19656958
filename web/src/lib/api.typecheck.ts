// Compile-time checks of the typed API layer, run by `npm run lint` (tsc): each `@ts-expect-error`
// below must meet an error, or the check itself fails. Nothing imports this file.
import type { Group, Message } from '@kith/common';
import { call } from './api';

/** Calls that must not compile: an unknown path, a missing or wrong parameter, body or answer type. */
export async function wrongCallsDoNotCompile(): Promise<void> {
  // @ts-expect-error: no such endpoint
  await call('GET /api/group/{id}', { params: { id: 'g' } });
  // @ts-expect-error: the path parameter is required
  await call('GET /api/groups/{id}');
  // @ts-expect-error: the parameter is named id
  await call('GET /api/groups/{id}', { params: { group: 'g' } });
  // @ts-expect-error: a rename sends { name: string }
  await call('PUT /api/groups/{id}', { params: { id: 'g' }, body: { name: 42 } });
  // @ts-expect-error: login needs a password
  await call('POST /api/login', { body: { login: 'a@example.org' } });
  // @ts-expect-error: a group is not a message
  const message: Message = await call('GET /api/groups/{id}', { params: { id: 'g' } });
  // @ts-expect-error: GET reads no body
  await call('GET /api/me', { body: {} });
  const group: Group = await call('GET /api/groups/{id}', { params: { id: 'g' } });
  void message;
  void group;
}
