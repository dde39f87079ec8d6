// The server-drawn line chart: its value axis in whole steps, its bucket labels, a point per
// bucket, escaped names, and the table that says the same.
import { expect } from 'chai';
import { bucketLabel, lineChart, tickStep } from '../../src/console/charts.ts';

describe('console: line charts', () => {
  it('steps the value axis in 1, 2 or 5 × 10ⁿ, never below 1', () => {
    expect([0, 1, 4, 5, 9, 40, 41, 333, 1_000_001].map(tickStep)).to.deep.equal([
      1, 1, 1, 2, 5, 10, 20, 100, 500_000,
    ]);
  });

  it('labels buckets by UTC day or hour', () => {
    const at = new Date('2026-11-27T14:00:00Z');
    expect(bucketLabel(at, 'day')).to.equal('11-27');
    expect(bucketLabel(at, 'hour')).to.equal('11-27 14:00');
  });

  it('draws a point per bucket for each series, names the chart, and tables the figures', () => {
    const buckets = [0, 1, 2].map((d) => new Date(Date.UTC(2026, 10, 25 + d)));
    const svg = lineChart({
      title: 'Opens <b>',
      buckets,
      bucket: 'day',
      series: [
        { label: 'People', values: [1, 7, 2] },
        { label: '"><script>', values: [0, 0, 1] },
      ],
    }).toString();
    expect(svg).to.contain('aria-label="Opens &lt;b&gt;, per day: People 10, &quot;&gt;&lt;script&gt; 1"');
    expect(svg).to.not.contain('<script>');
    const lines = [...svg.matchAll(/<polyline[^>]* points="([^"]+)"/g)].map((m) => m[1].split(' '));
    expect(lines.map((points) => points.length)).to.deep.equal([3, 3]);
    // 7 tops an axis of 4 steps of 2 (0…8): the highest point sits below the top line.
    expect(svg).to.contain('>8</text>');
    expect(svg).to.contain('<td>11-26</td><td class="num">7</td><td class="num">0</td>');
  });
});
