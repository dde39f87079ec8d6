// Every request example in docs/guides is replayed against the real server, in order, and its
// response held against what the guide shows (test/docs/examples.ts says how). A guide whose
// example no longer holds fails here, with the line of the example.
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { SCOPES } from '../../src/http/scopes.ts';
import { keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { readExchanges, Substitutions } from './examples.ts';

const GUIDES = new URL('../../docs/guides/', import.meta.url);
const guides = readdirSync(GUIDES).filter((name) => name.endsWith('.md'));

describe('docs/guides: every request example holds against the real server', () => {
  it('finds guides with examples', () => {
    expect(guides).to.not.be.empty;
  });

  for (const guide of guides) {
    it(guide, async function () {
      this.timeout(60_000);
      const exchanges = readExchanges(readFileSync(new URL(guide, GUIDES), 'utf8'));
      expect(exchanges, `${guide} has no request examples`).to.not.be.empty;
      const { client: admin, workspaceId } = await workspaceWithAdmin('Guide');
      const { key } = await keyClient(admin, workspaceId, [...SCOPES]);
      const substitutions = new Substitutions();
      for (const exchange of exchanges) {
        const where = `docs/guides/${guide}:${exchange.line}`;
        const shownWorkspace = /\bws_[0-9A-Z]{26}\b/.exec(exchange.path)?.[0];
        if (shownWorkspace) substitutions.set(shownWorkspace, workspaceId);
        const headers = Object.fromEntries(
          Object.entries(exchange.headers).map(([name, value]) => [name, substitutions.apply(value)]),
        );
        // A key the guide created earlier is that key; any other stands for the guide's own.
        const shownKey = exchange.headers.authorization;
        if (shownKey?.startsWith('Bearer ') && headers.authorization === shownKey) {
          headers.authorization = `Bearer ${key}`;
        }
        const body =
          exchange.body === undefined ? undefined : substitutions.apply(JSON.stringify(exchange.body));
        const send = () =>
          admin.request(exchange.method, substitutions.apply(exchange.path), {
            headers,
            body,
            key: headers.authorization ? undefined : '',
          });
        const holds = async () => {
          const response = await send();
          if (response.status !== exchange.status)
            return `${where}: status ${response.status}: ${response.text}`;
          if (exchange.responseBody === undefined) return;
          const problem = substitutions.match(exchange.responseBody, response.body);
          return problem && `${where}: ${problem}`;
        };
        let problem = await holds();
        for (
          const deadline = Date.now() + 10_000;
          problem && exchange.eventually && Date.now() < deadline;
        ) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          problem = await holds();
        }
        expect(problem, problem).to.equal(undefined);
      }
    });
  }
});
