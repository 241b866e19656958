/**
 * Runs at most `width` tasks at once; the others wait their turn in the order they came. What the
 * waiting tasks hold is only their closure, not a database connection or a thread: a crowd of heavy
 * tasks in one lane leaves the pool and the CPU to everything else (features/search/threads.ts).
 */
export class Lane {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly width: number) {}

  /** Tasks running or waiting. */
  get pending(): number {
    return this.running + this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.width) this.running += 1;
    // A task that ends hands its place to the first waiting one, so `running` stays as it is.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.running -= 1;
      else next();
    }
  }
}
