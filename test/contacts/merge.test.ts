import { expect } from 'chai';
import { createCampaign } from '../campaigns/support.ts';
import { createContact, outgoing, track, workspace } from '../events/support.ts';
import { expectProblem } from '../support/factories.ts';

describe('contacts: merge and identify', () => {
  it('merges the secondary into the primary: fields, events, attributes, alias and contact.merged', async () => {
    const { admin, base, workspaceId } = await workspace();
    const primary = await createContact(admin, base, { email: 'p@example.com', attributes: { plan: 'pro' } });
    const secondary = await createContact(admin, base, {
      anonymousId: 'anon-1',
      firstName: 'Sam',
      phone: '123',
      attributes: { plan: 'free', device: 'ios' },
    });
    await track(admin, base, { type: 'page_view', contactId: secondary.id });
    const merged = await admin.post(`${base}/contacts/merge`, {
      primaryContactId: primary.id,
      secondaryContactId: secondary.id,
    });
    expect(merged.status, merged.text).to.equal(200);
    expect(merged.body).to.include({
      id: primary.id,
      email: 'p@example.com',
      firstName: 'Sam',
      phone: '123',
      anonymousId: 'anon-1',
    });
    expect(merged.body.attributes).to.deep.equal({ plan: 'pro', device: 'ios' });
    const events = await admin.get(`${base}/events?contactId=${primary.id}`);
    expect(events.body.map((event: { type: string }) => event.type)).to.deep.equal(['page_view']);
    const viaAlias = await admin.get(`${base}/contacts/${secondary.id}`);
    expect(viaAlias.body.id).to.equal(primary.id);
    const listed = await admin.get(`${base}/contacts`);
    expect(listed.body.total).to.equal(1);
    const [data] = (await outgoing(workspaceId, 'contact.merged')) as { mergedContact: { id: string } }[];
    expect(data).to.include({ primaryContactId: primary.id, secondaryContactId: secondary.id });
    expect(data.mergedContact.id).to.equal(primary.id);
  });

  it('keeps one active enrollment per campaign unless its reentry is "always"', async () => {
    const { admin, base } = await workspace();
    const campaigns = new Map<string, string>();
    for (const reentry of ['never', 'after_completion', 'always']) {
      const { id } = await createCampaign(admin, base, {
        name: reentry,
        trigger: { type: 'event', eventType: 'mev' },
        reentry,
      });
      expect((await admin.post(`${base}/campaigns/${id}/activate`)).status).to.equal(200);
      campaigns.set(reentry, id);
    }
    const primary = await createContact(admin, base, { email: 'p@example.com' });
    const secondary = await createContact(admin, base, { email: 's@example.com' });
    await track(admin, base, { type: 'mev', contactId: primary.id });
    await track(admin, base, { type: 'mev', contactId: secondary.id });
    const merged = await admin.post(`${base}/contacts/merge`, {
      primaryContactId: primary.id,
      secondaryContactId: secondary.id,
    });
    expect(merged.status, merged.text).to.equal(200);
    const statuses = async (reentry: string) => {
      const listed = await admin.get(
        `${base}/campaigns/${campaigns.get(reentry)}/enrollments?contactId=${primary.id}`,
      );
      expect(listed.status, listed.text).to.equal(200);
      return listed.body.data.map((enrollment: { status: string }) => enrollment.status).sort();
    };
    expect(await statuses('never')).to.deep.equal(['active', 'exited']);
    expect(await statuses('after_completion')).to.deep.equal(['active', 'exited']);
    expect(await statuses('always')).to.deep.equal(['active', 'active']);
  });

  it("keeps a merged contact's anonymousId: its device's later events reach the merged contact", async () => {
    const { admin, base } = await workspace();
    const known = await createContact(admin, base, { email: 'k@example.com', anonymousId: 'dev-old' });
    await createContact(admin, base, { anonymousId: 'dev-new' });
    const login = await track(admin, base, { type: 'login', anonymousId: 'dev-new', email: 'k@example.com' });
    expect(login.contact.id).to.equal(known.id);
    const visit = await track(admin, base, { type: 'visit', anonymousId: 'dev-new' });
    expect(visit.contact.id).to.equal(known.id);
    const x = await createContact(admin, base, { anonymousId: 'x' });
    const y = await createContact(admin, base, { anonymousId: 'y' });
    await admin.post(`${base}/contacts/merge`, { primaryContactId: x.id, secondaryContactId: y.id });
    await admin.post(`${base}/contacts/merge`, { primaryContactId: known.id, secondaryContactId: x.id });
    for (const anonymousId of ['x', 'y']) {
      const event = await track(admin, base, { type: 'visit', anonymousId });
      expect(event.contact.id, anonymousId).to.equal(known.id);
    }
    expect((await admin.get(`${base}/contacts`)).body.total).to.equal(1);
    expectProblem(await admin.post(`${base}/contacts`, { anonymousId: 'y' }), 409);
    const own = await admin.patch(`${base}/contacts/${known.id}`, { anonymousId: 'y' });
    expect(own.status, own.text).to.equal(200);
    const other = await createContact(admin, base, { email: 'o@example.com' });
    expectProblem(await admin.patch(`${base}/contacts/${other.id}`, { anonymousId: 'dev-new' }), 409);
  });

  it('answers 404 for unknown ids and 409 for the same contact twice', async () => {
    const { admin, base } = await workspace();
    const a = await createContact(admin, base, { email: 'a@example.com' });
    const b = await createContact(admin, base, { email: 'b@example.com' });
    expectProblem(
      await admin.post(`${base}/contacts/merge`, { primaryContactId: a.id, secondaryContactId: 'ct_x' }),
      404,
    );
    expectProblem(
      await admin.post(`${base}/contacts/merge`, { primaryContactId: a.id, secondaryContactId: a.id }),
      400,
    );
    await admin.post(`${base}/contacts/merge`, { primaryContactId: a.id, secondaryContactId: b.id });
    // b is now an alias of a.
    expectProblem(
      await admin.post(`${base}/contacts/merge`, { primaryContactId: a.id, secondaryContactId: b.id }),
      409,
    );
  });

  it('identifies on ingest: an anonymous contact with a known email merges into the known one', async () => {
    const { admin, base } = await workspace();
    const anonymous = await track(admin, base, { type: 'page_view', anonymousId: 'device-9' });
    const known = await createContact(admin, base, { email: 'known@example.com' });
    const event = await track(admin, base, {
      type: 'signup',
      anonymousId: 'device-9',
      email: 'Known@example.com',
    });
    expect(event.contact.id).to.equal(known.id);
    const history = await admin.get(`${base}/events?contactId=${known.id}`);
    expect(history.body.map((e: { type: string }) => e.type)).to.deep.equal(['signup', 'page_view']);
    expect((await admin.get(`${base}/contacts/${anonymous.contact.id}`)).body.id).to.equal(known.id);
    expect((await admin.get(`${base}/contacts/${known.id}`)).body.anonymousId).to.equal('device-9');
  });

  it('identifies on ingest: an anonymous contact takes an unknown email', async () => {
    const { admin, base } = await workspace();
    const first = await track(admin, base, { type: 'page_view', anonymousId: 'device-1' });
    const second = await track(admin, base, {
      type: 'signup',
      anonymousId: 'device-1',
      email: 'new@example.com',
    });
    expect(second.contact).to.deep.include({ id: first.contact.id, email: 'new@example.com' });
  });

  it('never merges a contact that already has an email', async () => {
    const { admin, base } = await workspace();
    const owner = await createContact(admin, base, {
      email: 'owner@example.com',
      anonymousId: 'shared-device',
    });
    const other = await createContact(admin, base, { email: 'other@example.com' });
    const event = await track(admin, base, {
      type: 'login',
      anonymousId: 'shared-device',
      email: 'other@example.com',
    });
    expect(event.contact.id).to.equal(other.id);
    expect((await admin.get(`${base}/contacts/${owner.id}`)).body.email).to.equal('owner@example.com');
  });

  it('identifies through POST …/contacts with anonymousId and email (200)', async () => {
    const { admin, base } = await workspace();
    const anonymous = await createContact(admin, base, { anonymousId: 'web-1' });
    const known = await createContact(admin, base, { email: 'k@example.com' });
    const identified = await admin.post(`${base}/contacts`, { anonymousId: 'web-1', email: 'k@example.com' });
    expect(identified.status, identified.text).to.equal(200);
    expect(identified.body.id).to.equal(known.id);
    expect((await admin.get(`${base}/contacts/${anonymous.id}`)).body.id).to.equal(known.id);
  });

  it('applies the rest of the POST …/contacts body to the identified contact', async () => {
    const { admin, base } = await workspace();
    await createContact(admin, base, { anonymousId: 'web-1', attributes: { device: 'ios', plan: 'free' } });
    const taking = await admin.post(`${base}/contacts`, {
      anonymousId: 'web-1',
      email: 'new@example.com',
      firstName: 'First',
      lastName: 'Last',
      phone: '+1',
      attributes: { plan: 'pro' },
    });
    expect(taking.status, taking.text).to.equal(200);
    expect(taking.body).to.include({
      email: 'new@example.com',
      firstName: 'First',
      lastName: 'Last',
      phone: '+1',
    });
    expect(taking.body.attributes).to.deep.equal({ device: 'ios', plan: 'pro' });
    const known = await createContact(admin, base, { email: 'k@example.com', firstName: 'Old' });
    await createContact(admin, base, { anonymousId: 'web-2' });
    const merging = await admin.post(`${base}/contacts`, {
      anonymousId: 'web-2',
      email: 'k@example.com',
      firstName: 'Kay',
      attributes: { plan: 'pro' },
    });
    expect(merging.status, merging.text).to.equal(200);
    expect(merging.body).to.include({ id: known.id, firstName: 'Kay' });
    expect(merging.body.attributes).to.deep.equal({ plan: 'pro' });
  });
});
