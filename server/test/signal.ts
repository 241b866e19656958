/** A promise and the function that settles it: a step one side of a test waits for and the other gives. */
export interface Signal {
  promise: Promise<void>;
  resolve: () => void;
}

/** A new, unsettled signal (what `Promise.withResolvers` gives, outside the ES2023 library). */
export function signal(): Signal {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
