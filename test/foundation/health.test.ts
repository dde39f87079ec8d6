import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { expectProblem } from '../support/factories.ts';

describe('health', () => {
  it('answers ok with a timestamp and the package version', async () => {
    const response = await new Client().get('/api/health');
    expect(response.status).to.equal(200);
    expect(response.body.status).to.equal('ok');
    expect(response.body.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(response.body.version).to.equal('0.1.0');
    expect(response.headers.get('x-request-id')).to.be.a('string');
  });

  it('answers unknown /api routes with a problem+json 404', async () => {
    expectProblem(await new Client().get('/api/nothing-here'), 404);
  });
});
