// A campaign's flow without a database: step keys, the order steps run in, split draws, and what
// the definition schema lets through (shapes, nesting, limits), so the engine can trust what it reads.
import { expect } from 'chai';
import { allSteps, drawPath, firstIn, nextStepKey, type Step, stepAt } from '../../src/campaigns/flow.ts';
import {
  CreateCampaignBody,
  MAX_NESTING,
  MAX_TOTAL_STEPS,
  type SendStep,
} from '../../src/campaigns/schemas.ts';

type Branch = Extract<Step, { type: 'branch' }>;

/** A send step is a leaf: it fits in a list at any depth. */
const send = (subject: string): SendStep => ({ type: 'send', channel: 'email', subject, body: 'Hi' });

/**
 * A branch step, built in one place: its arms are named then and else, as in the API. Its arms are
 * a nested level's steps (a subset of the top level's type), hence the cast of hand-built ones.
 */
function branch(condition: unknown, arm: unknown[], otherwise: unknown[] = []): Step {
  // biome-ignore lint/suspicious/noThenProperty: the branch step's arm
  return { type: 'branch', if: condition, then: arm, else: otherwise } as Step;
}

// 0 send · 1 branch (then: 1.then.0, 1.then.1; else: empty) · 2 split (paths 0: 2.paths.0.0; 1: empty) · 3 exit
const steps: Step[] = [
  send('welcome'),
  branch({ segment: 'seg_1' }, [send('then a'), send('then b')], []),
  {
    type: 'split',
    paths: [
      { weight: 1, steps: [send('path a')] },
      { weight: 1, steps: [] },
    ],
  } as Step,
  { type: 'exit' },
];

describe('campaigns: flow', () => {
  it('names each step by its path, in flow order', () => {
    expect(allSteps(steps).map(({ key }) => key)).to.deep.equal([
      '0',
      '1',
      '1.then.0',
      '1.then.1',
      '2',
      '2.paths.0.0',
      '3',
    ]);
    expect(stepAt(steps, '1.then.1')).to.deep.include({ subject: 'then b' });
    expect(stepAt(steps, '2.paths.0.0')).to.deep.include({ subject: 'path a' });
  });

  it('finds no step for a key that names none', () => {
    for (const key of [
      '4',
      '-1',
      '1.5',
      '1.then.2',
      '1.else.0',
      '2.paths.1.0',
      '2.paths.3.0',
      '0.then.0',
      'x',
    ]) {
      expect(stepAt(steps, key), key).to.equal(undefined);
    }
  });

  it('goes to the next sibling, else out of the branch or split that holds the step', () => {
    expect(nextStepKey(steps, '0')).to.equal('1');
    expect(nextStepKey(steps, '1.then.0')).to.equal('1.then.1');
    expect(nextStepKey(steps, '1.then.1')).to.equal('2');
    expect(nextStepKey(steps, '2.paths.0.0')).to.equal('3');
    expect(nextStepKey(steps, '3')).to.equal(null);
    expect(nextStepKey(steps, 'nonsense')).to.equal(null);
  });

  it('leaves several levels at once from the last step of a nested branch', () => {
    const nested: Step[] = [
      branch({ segment: 's' }, [{ type: 'split', paths: [{ weight: 1, steps: [send('deep')] }] }]),
      send('after'),
    ];
    expect(nextStepKey(nested, '0.then.0.paths.0.0')).to.equal('1');
  });

  it('enters a nested list only when it has a step', () => {
    expect(firstIn('1.then', (steps[1] as Branch).then)).to.equal('1.then.0');
    expect(firstIn('1.else', (steps[1] as Branch).else)).to.equal(undefined);
    expect(firstIn('1.none', undefined)).to.equal(undefined);
  });

  it('draws split paths in proportion to their weights', () => {
    expect(drawPath([1, 3], 0)).to.equal(0);
    expect(drawPath([1, 3], 0.2499)).to.equal(0);
    expect(drawPath([1, 3], 0.25)).to.equal(1);
    expect(drawPath([1, 3], 0.9999)).to.equal(1);
    expect(drawPath([2, 0, 2], 0.5)).to.equal(2);
    const drawn = [0, 0, 0];
    for (let i = 0; i < 1000; i++) drawn[drawPath([1, 2, 7], i / 1000)]++;
    expect(drawn).to.deep.equal([100, 200, 700]);
  });
});

describe('campaigns: flow validation', () => {
  const trigger = { type: 'event', eventType: 'signup' };
  const errorsOf = (body: unknown) =>
    CreateCampaignBody.safeParse(body).error?.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    ) ?? [];
  const campaign = (flow: unknown[]) => ({ name: 'Welcome', trigger, steps: flow });

  it('accepts a flow of every step type and fills in a branch without else', () => {
    const parsed = CreateCampaignBody.parse(
      campaign([
        send('hello'),
        { type: 'wait', duration: 'P1D' },
        { type: 'wait', until: { time: '09:30', timezone: 'Europe/Paris' } },
        branch({ attribute: 'plan', op: 'eq', value: 'pro' }, [send('pro')]),
        {
          type: 'split',
          paths: [
            { weight: 1, steps: [] },
            { weight: 9, steps: [{ type: 'exit' }] },
          ],
        },
      ]),
    );
    expect(parsed.steps[3]).to.deep.equal(
      branch({ attribute: 'plan', op: 'eq', value: 'pro' }, [send('pro')], []),
    );
    expect(parsed.reentry).to.equal('never');
  });

  it('refuses a flow without steps, and names the field of a bad step', () => {
    expect(errorsOf(campaign([]))).to.deep.equal(['steps: must hold at least one step']);
    expect(errorsOf(campaign([{ type: 'send', channel: 'email', subject: ' ', body: 'x' }]))).to.deep.equal([
      'steps.0.subject: must not be blank',
    ]);
    expect(errorsOf(campaign([{ type: 'jump' }]))[0]).to.match(
      /^steps\.0.*send, wait, branch, split or exit/,
    );
  });

  it('refuses a wait with both or neither of duration and until, or an unknown time zone', () => {
    const both = errorsOf(campaign([{ type: 'wait', duration: 'P1D', until: { time: '09:00' } }]));
    expect(both).to.deep.equal(['steps.0: must have either duration or until, not both']);
    expect(errorsOf(campaign([{ type: 'wait' }]))).to.deep.equal([
      'steps.0: must have either duration or until, not both',
    ]);
    expect(errorsOf(campaign([{ type: 'wait', until: { time: '24:00' } }]))[0]).to.match(
      /^steps\.0\.until\.time: must be a time of day/,
    );
    expect(
      errorsOf(campaign([{ type: 'wait', until: { time: '09:00', timezone: 'Mars/Olympus' } }])),
    ).to.deep.equal(['steps.0.until.timezone: must be an IANA time zone such as Europe/Paris']);
  });

  it('refuses a split of one path and a weight of zero', () => {
    expect(errorsOf(campaign([{ type: 'split', paths: [{ weight: 1, steps: [] }] }]))).to.deep.equal([
      'steps.0.paths: must hold at least two paths',
    ]);
    const zero = errorsOf(
      campaign([
        {
          type: 'split',
          paths: [
            { weight: 0, steps: [] },
            { weight: 1, steps: [] },
          ],
        },
      ]),
    );
    expect(zero).to.have.length(1);
    expect(zero[0]).to.match(/^steps\.0\.paths\.0\.weight: /);
  });

  it(`nests branches ${MAX_NESTING} levels deep and no deeper`, () => {
    const nest = (levels: number): unknown =>
      levels === 0 ? { type: 'exit' } : branch({ segment: 's' }, [nest(levels - 1)]);
    expect(errorsOf(campaign([nest(MAX_NESTING)]))).to.deep.equal([]);
    const tooDeep = errorsOf(campaign([nest(MAX_NESTING + 1)]));
    expect(tooDeep).to.have.length(1);
    expect(tooDeep[0]).to.match(/^steps\.0\.then\.0\.then\.0\.then\.0.*nest 3 levels deep at most/);
  });

  it(`counts nested steps towards the limit of ${MAX_TOTAL_STEPS} in all`, () => {
    const exits = (count: number) =>
      branch(
        { segment: 's' },
        Array.from({ length: count }, () => ({ type: 'exit' })),
      );
    // Three branches of 99 steps each: 300 steps in all, then 303.
    expect(errorsOf(campaign([exits(99), exits(99), exits(99)]))).to.deep.equal([]);
    expect(errorsOf(campaign([exits(100), exits(100), exits(100)]))).to.deep.equal([
      `steps: must hold at most ${MAX_TOTAL_STEPS} steps in all, nested ones included`,
    ]);
  });

  it('tells a branch condition by its keys: a segment, an event since enrollment, or a rule', () => {
    const branchIf = (condition: unknown) => errorsOf(campaign([branch(condition, [])]));
    expect(branchIf({ segment: 'seg_1' })).to.deep.equal([]);
    expect(branchIf({ event: 'purchase', since: 'enrollment' })).to.deep.equal([]);
    expect(branchIf({ event: 'purchase', within: 'P7D' })).to.deep.equal([]);
    expect(branchIf({ event: 'purchase', since: 'yesterday' })[0]).to.match(/^steps\.0\.if\.since: /);
    expect(branchIf({ attribute: 'plan', op: 'gt', value: 'pro' })[0]).to.match(/^steps\.0\.if\.value: /);
  });
});
