import path from 'node:path';
import { quantile } from './load.ts';
import { spawnTracked, stopChild } from './server.ts';

/**
 * The machine's pace during a run. On the shared machines the benchmark runs on, a core sometimes
 * works at two thirds of its speed for 2 to 15 s (another guest on the same physical core, say):
 * the same fixed work takes 1.5 times the CPU, and so does every answer of the server. A scenario
 * measured across such a window reads up to half as fast again as the same build on the same data
 * a minute later (bench/README.md, "Issue 23, seventeenth session"). The probe (`pace-probe.ts`)
 * times a fixed piece of work four times a second; a scenario during which too many samples were
 * slow is measured again. The decision looks only at the probe, never at the scenario's figures.
 */

/** A sample is slow above this multiple of the run's usual pace. */
export const SLOW_FACTOR = 1.3;
/** A scenario is measured again when more than this share of its samples were slow. */
export const SLOW_SHARE = 0.1;
/** The fast pace is this quantile of every sample of the run: slow windows are the minority. */
const USUAL_QUANTILE = 0.25;

/** What the probe saw during one measurement. */
export interface PaceReading {
  samples: number;
  /** Share of the samples slower than `SLOW_FACTOR` × the usual pace. */
  slow_share: number;
  /** The measurement's median sample over the usual pace. */
  pace: number;
}

/** Reads the probe's samples taken since `from` (an index into all of the run's samples). */
export function readPace(all: readonly number[], from: number): PaceReading | null {
  const window = all.slice(from);
  const usual = quantile(
    [...all].sort((a, b) => a - b),
    USUAL_QUANTILE,
  );
  if (window.length === 0 || usual === null || usual <= 0) return null;
  const slow = window.filter((sample) => sample > usual * SLOW_FACTOR).length;
  const middle = quantile(
    [...window].sort((a, b) => a - b),
    0.5,
  );
  return { samples: window.length, slow_share: slow / window.length, pace: (middle ?? usual) / usual };
}

/** Whether a measurement the probe read as `reading` should be taken again. */
export function slowMachine(reading: PaceReading | null): boolean {
  return reading !== null && reading.slow_share > SLOW_SHARE;
}

export interface PaceProbe {
  /** Where the next measurement's samples start. */
  mark(): number;
  /** What the probe saw since `mark`. */
  since(mark: number): PaceReading | null;
  stop(): Promise<void>;
}

/** Starts the probe process; it samples until `stop`. */
export function startPaceProbe(): PaceProbe {
  const script = path.join(import.meta.dirname, 'pace-probe.ts');
  const { child } = spawnTracked([script], { ...process.env }, 'pace');
  const samples: number[] = [];
  let rest = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const value = Number(line);
      if (Number.isFinite(value) && value > 0) samples.push(value);
    }
  });
  return {
    mark: () => samples.length,
    since: (mark) => readPace(samples, mark),
    stop: () => stopChild(child),
  };
}

/**
 * Which of a scenario's attempts is kept: the one the probe saw slow the least (the first of equals),
 * whatever its figures. `errorsElsewhere`: the errors of the others, which still count.
 */
export function keptAttempt(attempts: readonly { reading: PaceReading | null; errors: number }[]): {
  index: number;
  errorsElsewhere: number;
} {
  const slowShare = (at: number) => attempts[at]?.reading?.slow_share ?? 0;
  let index = 0;
  for (let at = 1; at < attempts.length; at += 1) if (slowShare(at) < slowShare(index)) index = at;
  const errorsElsewhere = attempts.reduce((sum, attempt, at) => sum + (at === index ? 0 : attempt.errors), 0);
  return { index, errorsElsewhere };
}
