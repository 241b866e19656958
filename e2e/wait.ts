// Waiting assertions for playwright-core locators under Vitest (Playwright's own `expect` comes
// with @playwright/test, which this project does not use). Each fails with a timeout message.
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

// Generous: CI may run on a machine whose cores are busy with other work, and a condition that
// holds is seen at once whatever the limit.
const TIMEOUT = 30_000;

/** Waits until the first element matched is visible. */
export async function visible(locator: Locator, timeout = TIMEOUT): Promise<void> {
  await locator.first().waitFor({ state: 'visible', timeout });
}

/** Waits until nothing matches any more. */
export async function gone(locator: Locator, timeout = TIMEOUT): Promise<void> {
  await expect.poll(() => locator.count(), { timeout }).toBe(0);
}

/** Polls the text of the first element matched. */
export function textOf(locator: Locator, timeout = TIMEOUT) {
  return expect.poll(
    () =>
      locator
        .first()
        .textContent({ timeout: 1000 })
        .catch(() => null),
    { timeout },
  );
}

/** Polls how many elements match. */
export function countOf(locator: Locator, timeout = TIMEOUT) {
  return expect.poll(() => locator.count(), { timeout });
}

/** Waits until the first image matched has loaded and decoded (its natural width is known). */
export async function loaded(image: Locator, timeout = TIMEOUT): Promise<void> {
  await expect
    .poll(
      () =>
        image.first().evaluate((img) => {
          // Runs in the page: the element is an <img>.
          const picture = img as unknown as { complete: boolean; naturalWidth: number };
          return picture.complete ? picture.naturalWidth : 0;
        }),
      { timeout },
    )
    .toBeGreaterThan(0);
}
