// The two-proportion z-test of split paths, against values computed independently (SciPy's
// norm.sf for the p-values, the pooled z by hand).
import { expect } from 'chai';
import { compareProportions, erfc, twoSidedPValue } from '../../src/campaigns/significance.ts';

describe('campaigns: significance of a split (two-proportion z-test)', () => {
  it('gives the two-sided p-value of the normal distribution', () => {
    expect(twoSidedPValue(1.96)).to.be.closeTo(0.04999579029644087, 1e-7);
    expect(twoSidedPValue(-1.96)).to.be.closeTo(0.04999579029644087, 1e-7);
    expect(twoSidedPValue(3.5)).to.be.closeTo(0.00046525815807105003, 1e-9);
    expect(twoSidedPValue(6) / 1.973175290075389e-9).to.be.closeTo(1, 1e-6);
    expect(twoSidedPValue(0)).to.equal(1);
    expect(erfc(0)).to.be.closeTo(1, 1e-7);
    expect(erfc(-1)).to.be.closeTo(1.8427007929497148, 1e-7);
  });

  it('matches known results: 20 % against 25 % of 1,000 each is significant', () => {
    const result = compareProportions({ converted: 200, total: 1000 }, { converted: 250, total: 1000 });
    expect(result.difference).to.be.closeTo(0.05, 1e-12);
    expect(result.z).to.be.closeTo(2.677397763008329, 1e-9);
    expect(result.pValue).to.be.closeTo(0.007419649261025687, 1e-8);
    expect(result.significant).to.equal(true);
    expect(result.testable).to.equal(true);
  });

  it('calls 9 % against 12 % of 500 each not significant (p ≈ 0.122)', () => {
    const result = compareProportions({ converted: 45, total: 500 }, { converted: 60, total: 500 });
    expect(result.z).to.be.closeTo(1.547337646055907, 1e-9);
    expect(result.pValue).to.be.closeTo(0.12178184842585672, 1e-7);
    expect(result.significant).to.equal(false);
  });

  it('finds no difference between equal rates, and a negative one when the second path does worse', () => {
    const same = compareProportions({ converted: 30, total: 100 }, { converted: 30, total: 100 });
    expect(same).to.deep.equal({ difference: 0, z: 0, pValue: 1, significant: false, testable: true });
    const worse = compareProportions({ converted: 250, total: 1000 }, { converted: 200, total: 1000 });
    expect(worse.difference).to.be.closeTo(-0.05, 1e-12);
    expect(worse.z).to.be.closeTo(-2.677397763008329, 1e-9);
    expect(worse.pValue).to.be.closeTo(0.007419649261025687, 1e-8);
  });

  it('does not test paths too small for the normal approximation, nor empty ones', () => {
    // 6 conversions in 78: the pooled rate expects under 5 in each path.
    const small = compareProportions({ converted: 5, total: 40 }, { converted: 1, total: 38 });
    expect(small).to.deep.include({ z: null, pValue: null, significant: false, testable: false });
    expect(small.difference).to.be.closeTo(1 / 38 - 5 / 40, 1e-12);
    const empty = compareProportions({ converted: 0, total: 0 }, { converted: 3, total: 10 });
    expect(empty).to.deep.include({ pValue: null, testable: false });
    const none = compareProportions({ converted: 0, total: 500 }, { converted: 0, total: 500 });
    expect(none).to.deep.include({ difference: 0, pValue: null, testable: false });
  });
});
