// Waits on the flow diagram read as words: months before the T, minutes after it.
import { expect } from 'chai';
import { durationWords } from '../../src/campaigns/consoleFlow.ts';

describe('campaigns: durations in words on the flow', () => {
  it('names each part, singular or plural, months apart from minutes', () => {
    expect(durationWords('P2D')).to.equal('2 days');
    expect(durationWords('PT1M')).to.equal('1 minute');
    expect(durationWords('P1M')).to.equal('1 month');
    expect(durationWords('P1Y2M3W4DT5H6M7S')).to.equal(
      '1 year 2 months 3 weeks 4 days 5 hours 6 minutes 7 seconds',
    );
  });
});
