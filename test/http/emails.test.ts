// Internationalised email addresses (RFC 6531) everywhere an address is taken: contacts, events,
// inbound webhooks, registration and sign-in, members. Stored trimmed, lowercased and in NFC.
import { expect } from 'chai';
import { workspace } from '../events/support.ts';
import { Client } from '../support/client.ts';
import { expectProblem, PASSWORD } from '../support/factories.ts';

const DECOMPOSED = 'Zoe\u0308@Exa\u0308mple.com'; // e + U+0308, a + U+0308
const MALFORMED = [
  'zoë@exämple',
  'zoë@@exämple.com',
  'zo ë@exämple.com',
  '.zoë@exämple.com',
  'zoë@-exämple.com',
];

function expectEmailRefused(response: Awaited<ReturnType<Client['post']>>, path: string) {
  const problem = expectProblem(response, 400) as unknown as { errors: { path: string }[] };
  expect(problem.errors.map((error) => error.path)).to.include(path);
}

describe('internationalised email addresses', () => {
  it('contacts and events take them; one address in any case or composition is one contact', async () => {
    const { admin, base } = await workspace();
    const created = await admin.post(`${base}/contacts`, { email: 'Zoë@Exämple.com' });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.email).to.equal('zoë@exämple.com');
    const event = await admin.post(`${base}/events`, { type: 'click', email: DECOMPOSED });
    expect(event.status, event.text).to.equal(201);
    expect(event.body.contact.id).to.equal(created.body.id);
    const batch = await admin.post(`${base}/events/batch`, {
      events: [{ type: 'b', email: '用户@例子.广告' }],
    });
    expect(batch.status, batch.text).to.equal(201);
    expect(batch.body.data[0].contact.email).to.equal('用户@例子.广告');
    const again = await admin.post(`${base}/contacts`, { email: DECOMPOSED });
    expectProblem(again, 409);
    for (const email of MALFORMED) {
      expectEmailRefused(await admin.post(`${base}/contacts`, { email }), 'body.email');
      expectEmailRefused(await admin.post(`${base}/events`, { type: 't', email }), 'body.email');
    }
  });

  it('inbound webhooks take them and refuse malformed ones', async () => {
    const { admin, base } = await workspace();
    const endpoint = await admin.post(`${base}/webhooks`, { direction: 'INBOUND', signed: false });
    expect(endpoint.status, endpoint.text).to.equal(201);
    const path = `/api/webhooks/inbound/${endpoint.body.id}`;
    const received = await new Client().post(path, { type: 'signup', email: 'Δοκιμή@Παράδειγμα.Δοκιμή' });
    expect(received.status, received.text).to.equal(200);
    const contacts = await admin.get(`${base}/contacts`);
    expect(contacts.status, contacts.text).to.equal(200);
    expect(contacts.text).to.include('δοκιμή@παράδειγμα.δοκιμή');
    const refused = await new Client().post(path, { type: 'signup', email: 'zoë@@exämple.com' });
    expect(refused.status, refused.text).to.equal(400);
  });

  it('registration, sign-in and members take them', async () => {
    const user = new Client();
    const unique = Date.now().toString(36);
    const email = `Zoë.${unique}@Exämple.com`;
    const registered = await user.post('/api/auth/register', { name: 'Zoë', email, password: PASSWORD });
    expect(registered.status, registered.text).to.equal(201);
    expect(registered.body.email).to.equal(`zoë.${unique}@exämple.com`);
    const decomposed = email.replace('ë', 'e\u0308').replace('ä', 'a\u0308');
    const signedIn = await user.post('/api/auth/signin', { email: decomposed, password: PASSWORD });
    expect(signedIn.status, signedIn.text).to.equal(200);
    const { admin, base } = await workspace();
    const added = await admin.post(`${base}/members`, { email: decomposed.toUpperCase(), role: 'MEMBER' });
    expect(added.status, added.text).to.equal(201);
    for (const bad of MALFORMED) {
      const refused = await new Client().post('/api/auth/register', {
        name: 'Z',
        email: bad,
        password: PASSWORD,
      });
      expectEmailRefused(refused, 'body.email');
    }
  });
});
