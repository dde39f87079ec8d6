import { expect } from 'chai';
import {
  alternate,
  benchRounds,
  type Goal,
  goalLine,
  judge,
  median,
  pairedRatios,
} from '../../bench/support/goals.ts';

const ratio: Goal = { figure: 'ratio', at: 'least', target: 0.9, unit: '×' };

describe('bench goals: judged on the median of at least five alternating rounds', () => {
  it('takes the median, not the best run', () => {
    expect(median([0.7, 0.95, 0.8, 0.99, 0.85])).to.equal(0.85);
    expect(median([1, 3, 2, 4])).to.equal(2.5);
    const verdict = judge(ratio, [0.7, 0.95, 0.8, 0.99, 0.85]);
    expect(verdict).to.deep.equal({ runs: 5, median: 0.85, min: 0.7, max: 0.99, met: false });
  });

  it('does not judge fewer than five runs, however good', () => {
    expect(judge(ratio, [1.2, 1.3]).met).to.equal(null);
    expect(goalLine(ratio, [1.2, 1.3])).to.match(/not judged: 2 runs, a goal needs 5/);
  });

  it('prints the goal, the median and the spread, and judges "at most" goals the other way', () => {
    expect(goalLine(ratio, [0.91, 0.93, 0.88, 0.97, 0.92])).to.equal(
      'goal: ratio ≥ 0.90×   median 0.92× (0.88×–0.97×, 5 runs)   met',
    );
    const latency: Goal = { figure: 'p99', at: 'most', target: 1000, unit: ' ms', digits: 0 };
    expect(judge(latency, [900, 1200, 950, 980, 1100]).met).to.equal(true);
    expect(judge(latency, [900, 1200, 1050, 980, 1100]).met).to.equal(false);
  });

  it('alternates ours and the baseline, ours first, and pairs the ratios by round', async () => {
    const order: string[] = [];
    const results = await alternate(
      3,
      async (round) => {
        order.push(`ours ${round}`);
        return 10 + round;
      },
      async (round) => {
        order.push(`baseline ${round}`);
        return 10;
      },
    );
    expect(order).to.deep.equal(['ours 0', 'baseline 0', 'ours 1', 'baseline 1', 'ours 2', 'baseline 2']);
    expect(pairedRatios(results.ours, results.baseline)).to.deep.equal([1, 1.1, 1.2]);
  });

  it('runs five rounds unless BENCH_ROUNDS says otherwise', () => {
    expect(benchRounds({})).to.equal(5);
    expect(benchRounds({ BENCH_ROUNDS: '7' })).to.equal(7);
    expect(() => benchRounds({ BENCH_ROUNDS: 'two' })).to.throw(/BENCH_ROUNDS/);
  });
});
