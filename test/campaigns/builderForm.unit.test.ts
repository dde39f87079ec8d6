// The campaign builder's form model without a server: a definition read into the draft and written
// back unchanged; refusals' paths as the form's field names and the nearest place shown; the
// buttons' changes, nesting limited as the schema limits it.
import { expect } from 'chai';
import {
  anchorFor,
  anchorsOf,
  applyAction,
  blankDraft,
  definitionToDraft,
  draftToDefinition,
  fieldOfPath,
  readDraft,
  stepKeyOf,
} from '../../src/campaigns/builderForm.ts';

const DEFINITION = {
  name: 'Onboarding',
  trigger: { type: 'event', eventType: 'signup', where: [{ key: 'plan', op: 'eq', value: 'pro' }] },
  steps: [
    { type: 'send', channel: 'push', title: 'Hi', body: 'Welcome', ttlSeconds: 60, urgency: 'high' },
    { type: 'wait', until: { time: '09:30', timezone: 'Europe/Paris' } },
    {
      type: 'branch',
      if: { all: [{ attribute: 'plan', op: 'eq', value: 'pro' }] },
      // biome-ignore lint/suspicious/noThenProperty: the branch step's arms are named then and else
      then: [{ type: 'wait', duration: 'P2W' }],
      // biome-ignore lint/suspicious/noThenProperty: the branch step's arms are named then and else
      else: [{ type: 'branch', if: { segment: 'seg_1' }, then: [], else: [{ type: 'exit' }] }],
    },
    {
      type: 'split',
      paths: [
        { weight: 2, steps: [{ type: 'send', channel: 'sms', text: 'Hello' }] },
        { weight: 5, steps: [] },
      ],
    },
  ],
  reentry: 'always',
  goal: { eventType: 'purchase' },
  tracking: { opens: false, clicks: true },
};

describe('campaigns: the builder form model', () => {
  it('reads a definition into the draft and writes it back the same', () => {
    const { definition, problems } = draftToDefinition(definitionToDraft(DEFINITION));
    expect(problems).to.deep.equal([]);
    expect(definition).to.deep.equal(DEFINITION);
  });

  it('reads line breaks as the browser sends them (CRLF) as they were written', () => {
    const draft = readDraft({
      name: 'Lines',
      'steps[0].type': 'send',
      'steps[0].channel': 'email',
      'steps[0].body': 'Hello,\r\nsee you\r\n',
    });
    expect(draft.steps[0]).to.deep.include({
      fields: { subject: '', body: 'Hello,\nsee you\n', preheader: '' },
    });
  });

  it('names the field a refusal is about, or the nearest step that holds it', () => {
    const draft = definitionToDraft(DEFINITION);
    const anchors = anchorsOf(draft);
    expect(fieldOfPath('body.steps.3.paths.0.steps.0.text')).to.equal('steps[3].paths[0].steps[0].text');
    expect(anchorFor(anchors, 'steps[3].paths[0].steps[0].text')).to.equal('steps[3].paths[0].steps[0].text');
    expect(anchorFor(anchors, 'steps[2].if.all[0].attribute')).to.equal('steps[2].if');
    expect(anchorFor(anchors, 'steps[3].paths')).to.equal('steps[3]');
    expect(anchorFor(anchors, 'steps[0].template.subject')).to.equal('steps[0]');
    expect(anchorFor(anchors, 'nowhere')).to.equal(null);
    expect(stepKeyOf('steps[3].paths[1].steps[0]')).to.equal('3.paths.1.0');
    expect(stepKeyOf('steps[2].else[0].then[1]')).to.equal('2.else.0.then.1');
  });

  it('adds steps where asked, moves and removes them, and nests branches three levels at most', () => {
    const draft = blankDraft();
    expect(applyAction(draft, 'add:steps@0:branch')).to.equal('steps[0]');
    expect(applyAction(draft, 'add:steps[0].then@0:split')).to.equal('steps[0].then[0]');
    expect(applyAction(draft, 'add:steps[0].then[0].paths[1].steps@0:branch')).to.equal(
      'steps[0].then[0].paths[1].steps[0]',
    );
    // A fourth level takes leaves only.
    expect(applyAction(draft, 'add:steps[0].then[0].paths[1].steps[0].else@0:split')).to.equal(null);
    expect(applyAction(draft, 'add:steps[0].then[0].paths[1].steps[0].else@0:exit')).to.equal(
      'steps[0].then[0].paths[1].steps[0].else[0]',
    );
    expect(applyAction(draft, 'add:steps@1:wait')).to.equal('steps[1]');
    expect(applyAction(draft, 'up:steps[1]')).to.equal('steps[0]');
    expect(draft.steps.map((s) => s.type)).to.deep.equal(['wait', 'branch']);
    expect(applyAction(draft, 'addPath:steps[1].then[0]')).to.equal('steps[1].then[0].paths[2].weight');
    applyAction(draft, 'removePath:steps[1].then[0]@0');
    const split = draft.steps[1]?.type === 'branch' ? draft.steps[1].yes[0] : undefined;
    expect(split?.type === 'split' && split.paths.length).to.equal(2);
    expect(applyAction(draft, 'remove:steps[0]')).to.equal('steps[0]');
    expect(applyAction(draft, 'remove:steps[5]')).to.equal(null);
    expect(applyAction(draft, 'add:elsewhere@0:exit')).to.equal(null);
    expect(draft.steps.map((s) => s.type)).to.deep.equal(['branch']);
  });
});
