// A request naming a contact that a concurrent merge is taking away waits for the merge's lock and
// then must find the surviving contact, never answer 404.
import { expect } from 'chai';
import { createContact, workspace } from '../events/support.ts';
import type { TestResponse } from '../support/client.ts';

const ROUNDS = 25;
const EVENTS_PER_ROUND = 4;

describe('contacts: merge racing lookups', () => {
  it('puts events posted with the contactId being merged away on the surviving contact', async () => {
    const { admin, base } = await workspace();
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const primary = await createContact(admin, base, { email: `p${round}@example.com` });
      const secondary = await createContact(admin, base, { email: `s${round}@example.com` });
      const event = () => admin.post(`${base}/events`, { type: 'race', contactId: secondary.id });
      const [merged, ...events] = await Promise.all([
        admin.post(`${base}/contacts/merge`, {
          primaryContactId: primary.id,
          secondaryContactId: secondary.id,
        }),
        ...Array.from({ length: EVENTS_PER_ROUND }, event),
      ]);
      expect(merged.status, merged.text).to.equal(200);
      for (const response of events)
        if (response.status !== 201) failures.push(`round ${round}: ${response.status} ${response.text}`);
      // An event stored before the merge moved with the secondary's history; one after it, landed there.
      const stored = await admin.get(`${base}/events?type=race&contactId=${primary.id}&limit=200`);
      if (stored.body.length !== EVENTS_PER_ROUND)
        failures.push(`round ${round}: ${stored.body.length} stored`);
    }
    expect(failures).to.deep.equal([]);
  });

  it('updates the surviving contact when a PATCH races the merge', async () => {
    const { admin, base } = await workspace();
    const answers: TestResponse[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const primary = await createContact(admin, base, { email: `p${round}@example.com` });
      const secondary = await createContact(admin, base, { email: `s${round}@example.com` });
      const [merged, patched] = await Promise.all([
        admin.post(`${base}/contacts/merge`, {
          primaryContactId: primary.id,
          secondaryContactId: secondary.id,
        }),
        admin.patch(`${base}/contacts/${secondary.id}`, { firstName: 'Raced' }),
      ]);
      expect(merged.status, merged.text).to.equal(200);
      answers.push(patched);
    }
    expect(answers.map((answer) => answer.status)).to.deep.equal(answers.map(() => 200));
  });
});
