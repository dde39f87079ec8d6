// A worker that lacks the key that sealed a channel's secrets (a key removed from ENCRYPTION_KEY
// too soon, or a worker started with another key) is misconfigured: its sends wait and are retried,
// never failed for good, and no attempt is spent on them.
import { expect } from 'chai';
import { sql } from '../../src/db/pool.ts';
import { eventually } from '../support/factories.ts';
import { server } from '../support/server.ts';
import { makeContact, messagingWorkspace, sendHi, suiteSink, waitForStatus } from './support.ts';

/** A sealed value as one made under a key this process does not have. */
const SEALED_UNDER_ANOTHER_KEY = { keyId: '0000000000000000', iv: 'AAAA', tag: 'AAAA', ciphertext: 'AAAA' };

describe('a send whose channel secrets this worker cannot open (a key it lacks)', () => {
  const sink = suiteSink();

  it('stays queued without spending attempts, says why, and is sent once the key is back', async () => {
    const { client, base, workspaceId } = await messagingWorkspace(sink);
    await server().context.db.query(sql.unsafe`
      update channel_configs set secrets = secrets || ${sql.jsonb({ password: SEALED_UNDER_ANOTHER_KEY })}
      where workspace_id = ${workspaceId} and channel = 'email'`);
    const email = `keyless.${Date.now()}@example.test`;
    const contactId = await makeContact(client, base, { email });
    const sent = await sendHi(client, base, contactId);
    // The test schedule (MESSAGE_RETRY_SCHEDULE=1,1) fails a message at its third attempt: three
    // retries show that none was spent.
    const waiting = await eventually(async () => {
      const message = (await client.get(`${base}/messages/${sent.body.id}`)).body;
      const retries = message.timeline.filter((entry: { type: string }) => entry.type === 'retrying');
      // Between tries, not while one is claimed (sending, its attempt counted until given back).
      return retries.length >= 3 && message.status === 'queued' ? message : null;
    }, 15_000);
    expect(waiting.status).to.equal('queued');
    expect(waiting.attempts).to.equal(0);
    expect(waiting.error).to.equal(
      'config: no ENCRYPTION_KEY with id 0000000000000000 is configured in this process',
    );
    expect(waiting.timeline.map((entry: { type: string }) => entry.type)).to.not.include('failed');

    // The key back (here: the value it sealed replaced by none): the next retry sends it, once.
    await server().context.db.query(sql.unsafe`
      update channel_configs set secrets = secrets - 'password'
      where workspace_id = ${workspaceId} and channel = 'email'`);
    const done = await waitForStatus(client, base, sent.body.id, 'sent');
    expect(done.attempts).to.equal(1);
    expect((await sink.received()).filter((r) => r.to.includes(email))).to.have.length(1);
  });
});
