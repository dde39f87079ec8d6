// A body that is JSON but not an object or array (`null`, a string, a number) is refused by the
// strict parser: the answer says what is wrong with it, not that it is not JSON.
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { expectProblem } from '../support/factories.ts';

describe('http: JSON bodies', () => {
  for (const body of ['null', '"Ada"', '42', 'true']) {
    it(`answers ${body} as a body with "must be a JSON object or array"`, async () => {
      const response = await new Client().request('POST', '/api/auth/register', {
        body,
        headers: { 'content-type': 'application/json' },
      });
      const problem = expectProblem(response, 400);
      expect(problem.type).to.match(/malformed-json$/);
      expect(problem.detail).to.equal('The request body must be a JSON object or array.');
    });
  }

  it('still calls a body that does not parse not valid JSON', async () => {
    const response = await new Client().request('POST', '/api/auth/register', {
      body: 'nul',
      headers: { 'content-type': 'application/json' },
    });
    expect(expectProblem(response, 400).detail).to.equal('The request body is not valid JSON.');
  });
});
