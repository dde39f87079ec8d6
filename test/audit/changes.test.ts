import { expect } from 'chai';
import { createCampaign } from '../campaigns/support.ts';
import { NEWSLETTER } from '../forms/support.ts';
import { Client } from '../support/client.ts';
import { signedInUser, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import { auditOf, entryCount, expectUser, onlyEntry, storedText } from './support.ts';

describe('Audit log: each kind of configuration change', () => {
  let admin: Client;
  let user: { id: string; email: string };
  let workspaceId: string;
  let base: string;
  beforeEach(async () => {
    ({ client: admin, user, workspaceId } = await workspaceWithAdmin());
    base = `/api/workspaces/${workspaceId}`;
  });

  it('webhooks: created, updated (before and after), secret rotated, deleted; the secret never stored', async () => {
    const created = await admin.post(`${base}/webhooks`, {
      name: 'CRM',
      url: 'https://crm.example.com/hook',
      events: ['contact.created'],
    });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id;
    const entry = await onlyEntry(admin, workspaceId, 'webhook.created');
    expectUser(entry, user);
    expect(entry.after).to.include({ id, name: 'CRM', url: 'https://crm.example.com/hook', active: true });

    expect((await admin.patch(`${base}/webhooks/${id}`, { name: 'CRM 2', active: false })).status).to.equal(
      200,
    );
    const updated = await onlyEntry(admin, workspaceId, 'webhook.updated');
    expect(updated.before).to.include({ name: 'CRM', active: true });
    expect(updated.after).to.include({ name: 'CRM 2', active: false });

    const rotated = await admin.post(`${base}/webhooks/${id}/rotate-secret`);
    expect(rotated.status, rotated.text).to.equal(200);
    expect((await onlyEntry(admin, workspaceId, 'webhook.secretRotated')).target).to.deep.equal({
      type: 'webhook',
      id,
    });

    expect((await admin.delete(`${base}/webhooks/${id}`)).status).to.equal(204);
    expect((await onlyEntry(admin, workspaceId, 'webhook.deleted')).before).to.include({ name: 'CRM 2' });

    const stored = await storedText(workspaceId);
    expect(stored).not.to.include(created.body.secret);
    expect(stored).not.to.include(rotated.body.secret);
  });

  it('segments, scoring rules and decay settings: created, updated with before and after, deleted', async () => {
    const segment = await admin.post(`${base}/segments`, {
      name: 'Pro',
      rules: { attribute: 'plan', op: 'eq', value: 'pro' },
    });
    expect(segment.status, segment.text).to.equal(201);
    await admin.patch(`${base}/segments/${segment.body.id}`, { name: 'Pro plan' });
    const changed = await onlyEntry(admin, workspaceId, 'segment.updated');
    expect(changed.before).to.deep.equal({
      name: 'Pro',
      description: null,
      rules: { attribute: 'plan', op: 'eq', value: 'pro' },
    });
    expect(changed.after.name).to.equal('Pro plan');
    expect((await admin.delete(`${base}/segments/${segment.body.id}`)).status).to.equal(204);
    expect((await onlyEntry(admin, workspaceId, 'segment.deleted')).before.name).to.equal('Pro plan');

    const rule = await admin.post(`${base}/scoring-rules`, { name: 'Buy', eventType: 'purchase', points: 5 });
    expect(rule.status, rule.text).to.equal(201);
    await admin.patch(`${base}/scoring-rules/${rule.body.id}`, { points: 7 });
    const ruleChange = await onlyEntry(admin, workspaceId, 'scoringRule.updated');
    expect([ruleChange.before.points, ruleChange.after.points]).to.deep.equal([5, 7]);
    expect(ruleChange.after).not.to.have.property('updatedAt');
    expect((await admin.delete(`${base}/scoring-rules/${rule.body.id}`)).status).to.equal(204);
    await onlyEntry(admin, workspaceId, 'scoringRule.deleted');

    const decay = await admin.put(`${base}/scoring-settings`, { decay: { points: 5, every: 'P7D' } });
    expect(decay.status, decay.text).to.equal(200);
    const settings = await onlyEntry(admin, workspaceId, 'scoringSettings.updated');
    expect(settings.before.decay).to.equal(null);
    expect(settings.after.decay).to.deep.equal({ points: 5, every: 'P7D' });
  });

  it('members: invited, joined, role changed, removed, left; the workspace renamed', async () => {
    const invitee = await signedInUser('Invitee');
    const invited = await admin.post(`${base}/members`, { email: invitee.user.email, role: 'MEMBER' });
    expect(invited.status, invited.text).to.equal(201);
    expect((await onlyEntry(admin, workspaceId, 'member.invited')).after).to.include({
      email: invitee.user.email,
      role: 'MEMBER',
    });
    const joined = await onlyEntry(admin, workspaceId, 'member.joined');
    expect(joined.target).to.deep.equal({ type: 'member', id: invitee.user.id });
    expectUser(joined, user);

    const later = `person.${Date.now()}@example.com`;
    await admin.post(`${base}/members`, { email: later, role: 'ADMIN' });
    const registered = new Client();
    await registered.post('/api/auth/register', {
      name: 'Later',
      email: later,
      password: 'correct horse battery',
    });
    const joins = await auditOf(admin, workspaceId, { action: 'member.joined' });
    expect(joins[0].actor).to.include({ type: 'user', name: later });

    const role = await admin.patch(`${base}/members/${invitee.user.id}`, { role: 'ADMIN' });
    expect(role.status, role.text).to.equal(200);
    const roleEntry = await onlyEntry(admin, workspaceId, 'member.roleChanged');
    expect([roleEntry.before.role, roleEntry.after.role]).to.deep.equal(['MEMBER', 'ADMIN']);

    expect((await invitee.client.post(`${base}/leave`)).status).to.be.oneOf([200, 204]);
    const left = await onlyEntry(admin, workspaceId, 'member.left');
    expect(left.actor.id).to.equal(invitee.user.id);

    const member = await memberOf(admin, workspaceId, 'MEMBER');
    expect((await admin.delete(`${base}/members/${member.user.id}`)).status).to.equal(204);
    expect((await onlyEntry(admin, workspaceId, 'member.removed')).target.id).to.equal(member.user.id);

    expect((await admin.patch(base, { name: 'Renamed' })).status).to.equal(200);
    const renamed = await onlyEntry(admin, workspaceId, 'workspace.renamed');
    expect([renamed.before.name, renamed.after.name]).to.deep.equal(['Test Workspace', 'Renamed']);
  });

  it('publishable keys and the identity secret; the secret never stored', async () => {
    const created = await admin.post(`${base}/publishable-keys`, {
      name: 'Shop',
      allowedOrigins: ['https://shop.example'],
    });
    expect(created.status, created.text).to.equal(201);
    await onlyEntry(admin, workspaceId, 'publishableKey.created');
    await admin.patch(`${base}/publishable-keys/${created.body.id}`, { name: 'Shop 2' });
    const changed = await onlyEntry(admin, workspaceId, 'publishableKey.updated');
    expect([changed.before.name, changed.after.name]).to.deep.equal(['Shop', 'Shop 2']);
    expect((await admin.delete(`${base}/publishable-keys/${created.body.id}`)).status).to.equal(204);
    await onlyEntry(admin, workspaceId, 'publishableKey.revoked');
    const rotated = await admin.post(`${base}/identity-secret/rotate`);
    expect(rotated.status, rotated.text).to.equal(200);
    await onlyEntry(admin, workspaceId, 'identitySecret.rotated');
    expect(await storedText(workspaceId)).not.to.include(rotated.body.secret);
  });

  it('channels: configured, updated, removed, with the SMTP password and DKIM key never stored', async () => {
    const password = 'smtp-pass-0123456789';
    const configured = await admin.put(`${base}/channels/email`, {
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      username: 'mailer',
      password,
      fromEmail: 'news@acme.test',
    });
    expect(configured.status, configured.text).to.equal(200);
    const first = await onlyEntry(admin, workspaceId, 'channel.configured');
    expect(first.target).to.deep.equal({ type: 'channel', id: 'email' });
    expect(first.after).to.include({ host: 'smtp.example.com', username: 'mailer' });
    expect(first.after.sealed).to.deep.equal({ set: ['password'], changed: ['password'] });
    await admin.put(`${base}/channels/email`, {
      smtpUrl: `smtp://mailer:${password}-2@smtp.example.com:587`,
      fromEmail: 'hello@acme.test',
    });
    const second = await onlyEntry(admin, workspaceId, 'channel.updated');
    expect([second.before.fromEmail, second.after.fromEmail]).to.deep.equal([
      'news@acme.test',
      'hello@acme.test',
    ]);
    expect(second.after.sealed.changed).to.deep.equal(['password']);
    expect((await admin.delete(`${base}/channels/email`)).status).to.equal(204);
    expect((await onlyEntry(admin, workspaceId, 'channel.removed')).before.host).to.equal('smtp.example.com');
    expect(await storedText(workspaceId)).not.to.include(password);
  });

  it('campaigns: created, updated, activated, paused, resumed, archived with their status before and after', async () => {
    const campaign = await createCampaign(admin, base);
    await onlyEntry(admin, workspaceId, 'campaign.created');
    await admin.patch(`${base}/campaigns/${campaign.id}`, { name: 'Welcome 2' });
    const edited = await onlyEntry(admin, workspaceId, 'campaign.updated');
    expect([edited.before.name, edited.after.name]).to.deep.equal(['Welcome', 'Welcome 2']);
    for (const [transition, action] of [
      ['activate', 'campaign.activated'],
      ['pause', 'campaign.paused'],
      ['resume', 'campaign.resumed'],
      ['archive', 'campaign.archived'],
    ]) {
      const moved = await admin.post(`${base}/campaigns/${campaign.id}/${transition}`);
      expect(moved.status, moved.text).to.equal(200);
      expect((await onlyEntry(admin, workspaceId, action)).after).to.deep.equal({
        status: moved.body.status,
      });
    }
  });

  it("the workspace's campaign pacing: updated with before and after", async () => {
    const pacing = { frequencyCap: { count: 2, per: 'P1D' }, quietHours: null, timezone: null };
    const put = await admin.put(`${base}/campaign-pacing`, pacing);
    expect(put.status, put.text).to.equal(200);
    const entry = await onlyEntry(admin, workspaceId, 'campaignPacing.updated');
    expect(entry.target).to.deep.equal({ type: 'campaignPacing', id: workspaceId });
    expect(entry.before.frequencyCap).to.equal(null);
    expect(entry.after.frequencyCap).to.deep.equal(pacing.frequencyCap);
  });

  it('forms: created, updated, deleted', async () => {
    const form = await admin.post(`${base}/forms`, NEWSLETTER);
    expect(form.status, form.text).to.equal(201);
    expect((await onlyEntry(admin, workspaceId, 'form.created')).after.name).to.equal('Newsletter');
    await admin.patch(`${base}/forms/${form.body.id}`, { name: 'Newsletter 2' });
    const edited = await onlyEntry(admin, workspaceId, 'form.updated');
    expect([edited.before.name, edited.after.name]).to.deep.equal(['Newsletter', 'Newsletter 2']);
    expect((await admin.delete(`${base}/forms/${form.body.id}`)).status).to.equal(204);
    await onlyEntry(admin, workspaceId, 'form.deleted');
  });

  it('a refused change records nothing', async () => {
    const before = await entryCount(workspaceId);
    const refusals = [
      await admin.post(`${base}/webhooks`, { url: 'not a url' }),
      await admin.patch(`${base}/segments/seg_nope`, { name: 'x' }),
      await admin.delete(`${base}/scoring-rules/scr_nope`),
      await admin.patch(`${base}/members/usr_nope`, { role: 'ADMIN' }),
      await admin.delete(`${base}/channels/email`),
      await admin.post(`${base}/campaigns/cmp_nope/activate`),
      await admin.patch(`${base}/forms/frm_nope`, { name: 'x' }),
    ];
    expect(refusals.map((response) => response.status >= 400)).to.deep.equal(refusals.map(() => true));
    // The last ADMIN may not leave: the 409 rolls its entry back with it.
    expect((await admin.post(`${base}/leave`)).status).to.equal(409);
    expect(await entryCount(workspaceId)).to.equal(before);
  });
});
