// The request log never holds an API key, however the `key` parameter's name is spelt.
import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import { Client } from '../support/client.ts';
import { eventually, keyClient, workspaceWithAdmin } from '../support/factories.ts';
import { server } from '../support/server.ts';

/** Swaps the server's logger for one that keeps its lines here, for the duration of `run`. */
async function captureLog(run: (lines: string[]) => Promise<void>) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const { context } = server();
  const original = context.log;
  context.log = pino({ level: 'info' }, sink);
  try {
    await run(lines);
  } finally {
    context.log = original;
  }
}

describe('request log redaction', () => {
  for (const name of ['key', '%6bey', 'k%65y', '%6B%65%79']) {
    it(`logs ?${name}= (which authenticates) with its value redacted`, async () => {
      const { client: admin, workspaceId } = await workspaceWithAdmin();
      const { key } = await keyClient(admin, workspaceId, ['contacts:read']);
      await captureLog(async (lines) => {
        const response = await new Client().get(
          `/api/workspaces/${workspaceId}/contacts?${name}=${encodeURIComponent(key)}&limit=5`,
        );
        expect(response.status, response.text).to.equal(200);
        const line = await eventually(async () => lines.find((text) => text.includes('/contacts?')));
        expect(line).to.contain(`${name}=[redacted]`).and.contain('limit=5');
        expect(line).to.not.contain(key.slice(3));
      });
    });
  }
});
