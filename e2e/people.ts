// People for the scenarios: accounts made through the API, sign-in through the login form.
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { api, type Kith } from './harness.js';

/** The password of every account the scenarios make. */
export const PASSWORD = 'correct horse battery';

/** Signs a new account up through the API with the first-run invitation of "Home". */
export async function signUpApi(kith: Kith, login: string): Promise<{ api_key: string; group: string }> {
  const inviteKey = (kith.invitationUrl ?? '').split('/').at(-1) ?? '';
  const answer = await api<{ api_key: string; group: string }>(kith, 'POST', '/signup', {
    login,
    password: PASSWORD,
    invite_key: inviteKey,
  });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Signs in through the login form; the client then opens `/`, which redirects. */
export async function signIn(kith: Kith, page: Page, login: string): Promise<void> {
  await page.goto(`${kith.url}/login`);
  await page.getByLabel('E-mail').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname !== '/login');
}
