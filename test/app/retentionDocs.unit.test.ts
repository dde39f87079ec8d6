// docs/operate/retention.md shows `switchboard prune --dry-run` as it prints on a fresh database: each
// table with its rule's own words. The words come from the rules (src/*/retention.ts), so the page
// is held to them: a renamed variable or a new rule fails here, not in a reader's terminal.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { retentionSteps } from '../../src/app/retention.ts';
import { ROOT } from '../support/cli.ts';

describe('docs/operate/retention.md', () => {
  it("shows every retention rule's table and words as `prune --dry-run` prints them", () => {
    const page = readFileSync(path.join(ROOT, 'docs/operate/retention.md'), 'utf8');
    const shown = new Map(
      [...page.matchAll(/^(\S+)\s+(?:\d+ would go|kept \(no limit set\))\s+·\s+(.+)$/gm)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    const missing = retentionSteps()
      .filter((step) => shown.get(step.table) !== step.rule)
      .map((step) => `${step.table}: page says "${shown.get(step.table)}", rule says "${step.rule}"`);
    expect(missing).to.deep.equal([]);
  });
});
