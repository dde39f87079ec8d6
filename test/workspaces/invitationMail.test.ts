// Invitation mail (SYSTEM_SMTP_URL pointed at a local SMTP sink): who invited the person to which
// workspace and how to join, names escaped; without a mail server, the link to share instead.
import { expect } from 'chai';
import { useSystemMail } from '../accounts/systemMailSink.ts';
import { Client } from '../support/client.ts';
import { PASSWORD, signedInUser, uniqueEmail } from '../support/factories.ts';
import { postForm } from '../support/helpers.ts';
import { server } from '../support/server.ts';

const HOSTILE_WORKSPACE = '"><img src=x onerror=alert(1)> Ops\r\nBcc: victim@example.com';
const HOSTILE_INVITER = '<script>alert(1)</script> Eve';

async function hostileWorkspace() {
  const admin = new Client();
  const email = uniqueEmail('inviter');
  await admin.post('/api/auth/register', { name: HOSTILE_INVITER, email, password: PASSWORD });
  await admin.post('/api/auth/signin', { email, password: PASSWORD });
  const created = await admin.post('/api/workspaces', { name: HOSTILE_WORKSPACE });
  expect(created.status, created.text).to.equal(201);
  return { admin, adminEmail: email, workspaceId: created.body.id as string };
}

describe('invitation mail', () => {
  const mail = useSystemMail();

  it('tells a newcomer who invited them to what and how to join, every name escaped', async () => {
    const { admin, adminEmail, workspaceId } = await hostileWorkspace();
    const email = uniqueEmail('newcomer');
    const invited = await admin.post(`/api/workspaces/${workspaceId}/members`, { email, role: 'ADMIN' });
    expect(invited.status, invited.text).to.equal(201);
    expect(invited.body.emailed).to.equal(true);

    const message = await mail.nextMailTo(email);
    expect(message.subject).to.equal(
      `${HOSTILE_INVITER} invited you to "><img src=x onerror=alert(1)> Ops Bcc: victim@example.com on Switchboard`,
    );
    expect(message.bcc).to.equal(undefined);
    expect(message.text).to.contain(`${HOSTILE_INVITER} (${adminEmail}) invited you to the workspace`);
    expect(message.text).to.contain('as an administrator').and.contain('register with this address');
    const joinUrl = `http://localhost:${server().context.config.PORT}/auth/register?email=${encodeURIComponent(email)}`;
    expect(message.text).to.contain(joinUrl);
    expect(invited.body.joinUrl).to.equal(joinUrl);
    const html = String(message.html);
    expect(html).to.not.contain('<script>');
    expect(html).to.not.contain('<img');
    expect(html).to.contain('&#60;script&#62;alert(1)&#60;/script&#62; Eve');
    expect(html).to.contain(`href="${joinUrl}"`);

    // The link's page has the email filled in; registering there takes the person in.
    const newcomer = new Client();
    const page = await newcomer.get(new URL(joinUrl).pathname + new URL(joinUrl).search);
    expect(page.text).to.contain(`value="${email}"`);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const registered = await postForm(newcomer, '/auth/register', {
      _csrf: token,
      name: 'New',
      email,
      password: PASSWORD,
    });
    expect(registered.status, registered.text).to.equal(303);
    expect((await newcomer.get(`/api/workspaces/${workspaceId}`)).body.role).to.equal('ADMIN');
  });

  it('tells a person who has an account that they are a member now, and the admin nothing more', async () => {
    const { admin, workspaceId } = await hostileWorkspace();
    const { user } = await signedInUser('Known');
    const invited = await admin.post(`/api/workspaces/${workspaceId}/members`, {
      email: user.email,
      role: 'MEMBER',
    });
    expect(invited.status).to.equal(201);
    const message = await mail.nextMailTo(user.email);
    expect(message.subject).to.match(/^You joined .* on Switchboard$/);
    expect(message.text).to.contain('you are a member now').and.contain('as a member');
    expect(message.text).to.contain(`/auth/signin?email=${encodeURIComponent(user.email)}`);
  });
});

describe('invitations without a mail server', () => {
  it('answer emailed false with the link to share, also in the list of pending ones', async () => {
    const { admin, workspaceId } = await hostileWorkspace();
    const email = uniqueEmail('share');
    const invited = await admin.post(`/api/workspaces/${workspaceId}/members`, { email, role: 'MEMBER' });
    expect(invited.body.emailed).to.equal(false);
    expect(invited.body.joinUrl).to.match(/\/auth\/register\?email=share\./);
    const pending = await admin.get(`/api/workspaces/${workspaceId}/invitations`);
    expect(pending.body[0].joinUrl).to.equal(invited.body.joinUrl);
    expect(pending.body[0]).to.not.have.property('emailed');
  });
});
