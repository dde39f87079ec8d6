// The composition's one list of features (src/app/features.ts): in FEATURE_ORDER, and the effects
// it hands every context each provided by exactly one feature.
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { FEATURES, featureEffects, foundationsFirst } from '../../src/app/features.ts';

const require = createRequire(import.meta.url);
const { FEATURE_ORDER } = require('../../.dependency-cruiser.cjs') as { FEATURE_ORDER: string[] };

describe('the list of features', () => {
  it('is FEATURE_ORDER, top to bottom, one entry per feature', () => {
    expect(FEATURES.map((feature) => feature.name)).to.deep.equal(FEATURE_ORDER);
  });

  it('installs routes, pages, jobs and commands foundations first', () => {
    expect(foundationsFirst(FEATURES).map((feature) => feature.name)).to.deep.equal(
      FEATURE_ORDER.toReversed(),
    );
  });

  it('gives every context each effect, from one feature', () => {
    const effects = featureEffects();
    expect(Object.keys(effects).sort()).to.deep.equal(['accounts', 'contacts', 'segments']);
    expect(effects.contacts.contactsChanged).to.be.a('function');
    expect(effects.segments.membershipChanged).to.be.a('function');
    expect(effects.accounts.accountReady).to.be.a('function');
  });

  it('refuses an effect provided twice, or by nobody', () => {
    const campaigns = FEATURES.find((feature) => feature.name === 'campaigns')!;
    expect(() => featureEffects([...FEATURES, { ...campaigns, name: 'twice' }])).to.throw(/provided twice/);
    expect(() => featureEffects(FEATURES.filter((feature) => feature !== campaigns))).to.throw(
      /effects\.contacts: no feature provides it/,
    );
  });
});
