// Whether two split paths convert differently by more than chance: the two-proportion z-test
// (pooled), with its two-sided p-value. Pure, so it is tested against known values.
//
//   compareProportions({ converted: 200, total: 1000 }, { converted: 250, total: 1000 })
//     → { difference: 0.05, z: 2.6774, pValue: 0.00742, significant: true, testable: true }
//
// The normal approximation holds when each path has at least MIN_EXPECTED conversions and as many
// non-conversions expected under the pooled rate; below that the test is not run (`testable`
// false, no p-value) rather than shown with a confidence it has not earned.

/** The level a difference must reach to be called significant: p < 0.05. */
export const SIGNIFICANCE_LEVEL = 0.05;
/** The usual rule of thumb for the normal approximation: n·p and n·(1−p) of at least 5. */
export const MIN_EXPECTED = 5;

export type Proportion = { converted: number; total: number };

export type Comparison = {
  /** b's rate minus a's (a fraction: 0.05 is five percentage points). */
  difference: number;
  z: number | null;
  pValue: number | null;
  significant: boolean;
  /** False when either path is too small for the test to mean anything. */
  testable: boolean;
};

const rate = (p: Proportion) => (p.total === 0 ? 0 : p.converted / p.total);

/**
 * The complementary error function, by the Chebyshev fit of Numerical Recipes (erfcc): fractional
 * error below 1.2e-7 everywhere, enough for p-values shown to three significant figures.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -z * z -
    1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t *
                      (0.27886807 +
                        t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const value = t * Math.exp(poly);
  return x >= 0 ? value : 2 - value;
}

/** P(|Z| ≥ |z|) for a standard normal Z. */
export function twoSidedPValue(z: number): number {
  return Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
}

export function compareProportions(a: Proportion, b: Proportion): Comparison {
  const difference = rate(b) - rate(a);
  const total = a.total + b.total;
  const pooled = total === 0 ? 0 : (a.converted + b.converted) / total;
  const expected = (n: number) => Math.min(n * pooled, n * (1 - pooled));
  const testable =
    a.total > 0 && b.total > 0 && expected(a.total) >= MIN_EXPECTED && expected(b.total) >= MIN_EXPECTED;
  if (!testable) return { difference, z: null, pValue: null, significant: false, testable };
  const standardError = Math.sqrt(pooled * (1 - pooled) * (1 / a.total + 1 / b.total));
  const z = difference / standardError;
  const pValue = twoSidedPValue(z);
  return { difference, z, pValue, significant: pValue < SIGNIFICANCE_LEVEL, testable };
}
