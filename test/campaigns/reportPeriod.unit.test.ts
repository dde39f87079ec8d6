// The periods of reports: rolling ones end with the bucket holding now and count back whole
// buckets; custom ones are whole UTC days, both ends included; what does not fit is refused.
import { expect } from 'chai';
import { ReportQuery, resolvePeriod } from '../../src/campaigns/reportPeriod.ts';
import { csvCell, toCsv } from '../../src/console/csv.ts';

const NOW = new Date('2026-11-27T14:35:10Z');
const resolve = (query: Record<string, string>) => resolvePeriod(ReportQuery.parse(query), NOW);
const iso = (d: Date) => d.toISOString();

describe('campaigns: report periods', () => {
  it('counts the last 24 hours in hours, ending with the current one', () => {
    const period = resolve({ period: '24h' });
    expect(period.bucket).to.equal('hour');
    expect(period.buckets).to.have.length(24);
    expect(iso(period.from)).to.equal('2026-11-26T15:00:00.000Z');
    expect(iso(period.to)).to.equal('2026-11-27T15:00:00.000Z');
    expect(iso(period.buckets.at(-1)!)).to.equal('2026-11-27T14:00:00.000Z');
  });

  it('counts 7, 30 and 90 days in days (today included), 7 days in hours when asked', () => {
    const week = resolve({ period: '7d' });
    expect([week.bucket, week.buckets.length, iso(week.from), iso(week.to)]).to.deep.equal([
      'day',
      7,
      '2026-11-21T00:00:00.000Z',
      '2026-11-28T00:00:00.000Z',
    ]);
    expect(resolve({ period: '30d' }).buckets).to.have.length(30);
    expect(resolve({ period: '90d' }).buckets).to.have.length(90);
    expect(resolve({}).name).to.equal('30d');
    const hourly = resolve({ period: '7d', bucket: 'hour' });
    expect(hourly.buckets).to.have.length(168);
    expect(iso(hourly.to)).to.equal('2026-11-27T15:00:00.000Z');
  });

  it('takes a custom range of whole UTC days, both ends included', () => {
    const period = resolve({ period: 'custom', from: '2026-02-27', to: '2026-03-01' });
    expect(period.buckets.map(iso)).to.deep.equal([
      '2026-02-27T00:00:00.000Z',
      '2026-02-28T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
    expect(
      resolve({ period: 'custom', from: '2026-03-01', to: '2026-03-01', bucket: 'hour' }).buckets,
    ).to.have.length(24);
  });

  it('refuses what does not fit, naming the field', () => {
    const refused = (query: Record<string, string>) =>
      ReportQuery.safeParse(query).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(refused({ period: 'custom' })).to.deep.equal([
      'from: is required with period=custom',
      'to: is required with period=custom',
    ]);
    expect(refused({ period: 'custom', from: '2026-02-30', to: '2026-03-01' })).to.deep.equal([
      'from: is not a calendar date',
    ]);
    expect(refused({ period: 'custom', from: '2026-03-02', to: '2026-03-01' })).to.deep.equal([
      'to: must not be before from',
    ]);
    expect(refused({ period: 'custom', from: '2025-01-01', to: '2026-03-01' })).to.deep.equal([
      'to: must be at most 367 days after from',
    ]);
    expect(refused({ period: 'custom', from: '2026-01-01', to: '2026-03-01', bucket: 'hour' })).to.deep.equal(
      ['bucket: must be day for a period longer than 31 days'],
    );
    expect(refused({ period: '24h', bucket: 'day' })).to.deep.equal(['bucket: must be hour for period=24h']);
    expect(refused({ period: '7d', from: '2026-01-01' })).to.deep.equal([
      'from: is only read with period=custom',
    ]);
    expect(refused({ period: '1y' })).to.have.length(1);
  });
});

describe('console: CSV cells', () => {
  it('quotes what needs it and makes formula-like text inert, leaving numbers as numbers', () => {
    expect(csvCell('plain')).to.equal('plain');
    expect(csvCell('a,b')).to.equal('"a,b"');
    expect(csvCell('say "hi"\n')).to.equal('"say ""hi""\n"');
    for (const formula of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
      expect(csvCell(formula).replace(/^"/, '')).to.match(/^'/);
    expect(csvCell('=HYPERLINK("x")')).to.equal(`"'=HYPERLINK(""x"")"`);
    expect(csvCell(-0.05)).to.equal('-0.05');
    expect(csvCell(null)).to.equal('');
    expect(
      toCsv([
        ['a', 1],
        ['b', null],
      ]),
    ).to.equal('a,1\r\nb,\r\n');
  });
});
