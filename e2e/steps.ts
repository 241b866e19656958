// Steps of one story told across several tests (sign up, then post, then comment…). When a step
// fails, the steps after it cannot mean anything: they are reported as skipped with the name of
// the step that failed, so the run shows the one real failure instead of a cascade of unrelated
// ones. The failed step itself still fails the run.
import { it } from 'vitest';

/** A test-registering function whose tests are skipped once an earlier one of the chain failed. */
export function storySteps(): (name: string, body: () => Promise<void> | void, timeout?: number) => void {
  let failed: string | null = null;
  return (name, body, timeout) => {
    it(
      name,
      async (context) => {
        if (failed !== null) context.skip(`an earlier step of this story failed: "${failed}"`);
        try {
          await body();
        } catch (error) {
          failed = name;
          throw error;
        }
      },
      timeout,
    );
  };
}
