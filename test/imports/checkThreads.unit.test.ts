// The checkers of an NDJSON import: threads only for a file of more than one chunk, the checked
// chunks in file order whichever checker read them.
import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { idSeed } from '../../src/imports/bulkIds.ts';
import type { CheckSetup } from '../../src/imports/checkChunk.ts';
import { checkedChunks } from '../../src/imports/checkThreads.ts';

const SETUP: CheckSetup = {
  kind: 'events',
  seed: idSeed(),
  keepRecords: false,
  limits: { maxDepth: 32, maxArrayItems: 1000, maxObjectKeys: 1000 },
};

/** Checks the file with three checkers: the chunks' rows, and how many threads were started. */
async function check(content: string) {
  const directory = mkdtempSync(path.join(tmpdir(), 'switchboard-check-'));
  const file = path.join(directory, 'events.ndjson');
  writeFileSync(file, content);
  let threads = 0;
  const counted = () => threads++;
  // Node publishes every new Worker on this channel.
  diagnostics.subscribe('worker_threads', counted);
  try {
    const chunks = [];
    for await (const chunk of checkedChunks(file, SETUP, { bytes: 0 }, 3)) chunks.push(chunk);
    return {
      ids: chunks.map((chunk) => chunk.id),
      rows: chunks.reduce((sum, c) => sum + c.rows, 0),
      threads,
    };
  } finally {
    diagnostics.unsubscribe('worker_threads', counted);
    rmSync(directory, { recursive: true, force: true });
  }
}

const line = (i: number) =>
  `${JSON.stringify({ type: 'visit', email: `r${i}@example.com`, metadata: { i } })}\n`;

describe('imports: checking threads', function () {
  // A thread loads the row schemas: seconds on a busy machine.
  this.timeout(60_000);

  it('checks a file of one chunk on the calling thread alone, starting no thread', async () => {
    const checked = await check(Array.from({ length: 50 }, (_, i) => line(i)).join(''));
    expect(checked).to.deep.equal({ ids: [0], rows: 50, threads: 0 });
  });

  it('starts the other checkers for a file of several chunks, and answers in file order', async () => {
    // 128 KB a chunk: some 360 KB make three.
    const lines = Array.from({ length: 6000 }, (_, i) => line(i));
    const checked = await check(lines.join(''));
    expect(checked.threads).to.equal(2);
    expect(checked.rows).to.equal(6000);
    expect(checked.ids).to.deep.equal([...checked.ids.keys()]);
    expect(checked.ids.length).to.be.greaterThan(2);
  });
});
