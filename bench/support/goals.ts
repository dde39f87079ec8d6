// How every bench states the goal it is held to and judges it. The machine's speed drifts by
// ±15 % within minutes (other work comes and goes), so one run, or the best of two, says little:
// ours and the baseline run in alternating rounds (ours, baseline, ours, baseline, …), each round
// gives one figure (usually the ratio of the two), and a goal is met only when the MEDIAN of at
// least MIN_RUNS rounds meets it. The spread (min–max) is printed beside the median, so a goal met
// with no margin reads as such. BENCH_ROUNDS sets the rounds (fewer than MIN_RUNS: "not judged").

export const MIN_RUNS = 5;

/** Rounds a bench runs: BENCH_ROUNDS, else MIN_RUNS. */
export function benchRounds(environment: NodeJS.ProcessEnv = process.env): number {
  const rounds = Number(environment.BENCH_ROUNDS ?? MIN_RUNS);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`BENCH_ROUNDS must be a whole number ≥ 1`);
  return rounds;
}

export type Goal = {
  /** What is measured, e.g. "deliveries/s, ratio to plain fetch". */
  figure: string;
  /** ≥ target or ≤ target. */
  at: 'least' | 'most';
  target: number;
  /** Unit printed after numbers ('×' for ratios, ' ms', ' MB'). */
  unit?: string;
  /** Decimals printed. */
  digits?: number;
};

/** A ratio of ours to the baseline that must reach `target` (× printed after it). */
export function ratioGoal(figure: string, target: number): Goal {
  return { figure, at: 'least', target, unit: '×' };
}

/** A memory bound: at most `megabytes` MB. */
export function memoryGoal(figure: string, megabytes: number): Goal {
  return { figure, at: 'most', target: megabytes, unit: ' MB', digits: 0 };
}

export type Verdict = {
  runs: number;
  median: number;
  min: number;
  max: number;
  /** null: fewer than MIN_RUNS runs, not judged. */
  met: boolean | null;
};

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function judge(goal: Goal, values: readonly number[]): Verdict {
  const middle = median(values);
  const met =
    values.length < MIN_RUNS ? null : goal.at === 'least' ? middle >= goal.target : middle <= goal.target;
  return { runs: values.length, median: middle, min: Math.min(...values), max: Math.max(...values), met };
}

export function goalText(goal: Goal): string {
  const number = goal.target.toFixed(goal.digits ?? 2);
  return `${goal.figure} ${goal.at === 'least' ? '≥' : '≤'} ${number}${goal.unit ?? ''}`;
}

/** "goal: ratio ≥ 0.90×   median 0.93× (0.88–0.97, 5 runs)   met" */
export function goalLine(goal: Goal, values: readonly number[]): string {
  const verdict = judge(goal, values);
  const format = (value: number) => `${value.toFixed(goal.digits ?? 2)}${goal.unit ?? ''}`;
  const status =
    verdict.met === null
      ? `not judged: ${verdict.runs} run${verdict.runs === 1 ? '' : 's'}, a goal needs ${MIN_RUNS}`
      : verdict.met
        ? 'met'
        : 'NOT MET';
  const spread = `${format(verdict.min)}–${format(verdict.max)}`;
  return `goal: ${goalText(goal)}   median ${format(verdict.median)} (${spread}, ${verdict.runs} runs)   ${status}`;
}

/** A figure no goal is set for, told the same way: "figure: median 1.92× (1.80×–2.01×, 5 runs); no goal". */
export function figureLine(figure: string, values: readonly number[], unit = '×', digits = 2): string {
  const format = (value: number) => `${value.toFixed(digits)}${unit}`;
  const verdict = judge({ figure, at: 'least', target: Number.NEGATIVE_INFINITY }, values);
  return `${figure}: median ${format(verdict.median)} (${format(verdict.min)}–${format(verdict.max)}, ${verdict.runs} runs); no goal is set`;
}

/** The goal the bench is held to, printed before it starts (so a run cut short still says it). */
export function announce(bench: string, goals: readonly Goal[], rounds: number): void {
  const lines = goals.map((goal) => `  goal: ${goalText(goal)}`);
  process.stdout.write(
    `${bench}: ${rounds} alternating round${rounds === 1 ? '' : 's'} (ours, baseline, …); ` +
      `a goal is judged on the median of ≥ ${MIN_RUNS}\n${lines.join('\n')}\n`,
  );
}

/**
 * Runs `ours` and `baseline` in alternating rounds, ours first, and returns each one's figures in
 * round order; `onRound` sees each round's pair as it completes (a progress line).
 */
export async function alternate<O, B>(
  rounds: number,
  ours: (round: number) => Promise<O>,
  baseline: (round: number) => Promise<B>,
  onRound?: (round: number, results: { ours: O; baseline: B }) => void,
): Promise<{ ours: O[]; baseline: B[] }> {
  const results = { ours: [] as O[], baseline: [] as B[] };
  for (let round = 0; round < rounds; round++) {
    const mine = await ours(round);
    const theirs = await baseline(round);
    results.ours.push(mine);
    results.baseline.push(theirs);
    onRound?.(round, { ours: mine, baseline: theirs });
  }
  return results;
}

/** Each round's ratio of two rates (ours / baseline), paired by round. */
export function pairedRatios(ours: readonly number[], baseline: readonly number[]): number[] {
  return ours.map((value, round) => value / baseline[round]);
}
