// What the bundler gives for `react` and `react-dom` (web/vite.config.ts): Preact's compat layer,
// plus the one React 19 hook it lacks that a library imports.
// @ts-expect-error -- the module is ESM with named exports; only its type declarations use `export =`.
export * from 'preact/compat';
export { default } from 'preact/compat';

/**
 * React's useOptimistic, for react-router's RouterProvider (which the app does not use, but whose
 * module imports it). An optimistic value shows only while a transition is pending, and Preact's
 * transitions run at once, so the value is always the committed one.
 */
export function useOptimistic<S>(state: S): [S, (action: unknown) => void] {
  return [state, () => undefined];
}
