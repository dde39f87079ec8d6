// The webhooks section of the console over HTTP: the list with health, create (the secret shown
// once), edit, rotate, delete, the delivery log with its filters, paging and attempt details,
// retry and replay; MEMBER rules, CSRF, other workspaces, hostile names.
import { expect } from 'chai';
import { Client } from '../support/client.ts';
import { consolePage, followRedirect, postConsoleForm } from '../support/console.ts';
import { eventually, workspaceWithAdmin } from '../support/factories.ts';
import { memberOf } from '../support/helpers.ts';
import {
  createContact,
  createEndpoint,
  deliveries,
  useReceiver,
  waitForDeliveries,
  webhooksPath,
} from './support.ts';

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

describe('console: webhooks', () => {
  const receiver = useReceiver();

  it('creates an endpoint from the form and shows its secret once, with a copy button', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/app/${workspaceId}/webhooks`;
    const empty = await consolePage(client, base);
    expect(empty.text).to.contain('No webhook endpoints yet').and.contain(`href="${base}/new"`);
    const form = await consolePage(client, `${base}/new`);
    const created = await client.request('POST', base, {
      body: `_csrf=${form.token}&direction=OUTBOUND&name=CRM&url=${encodeURIComponent(receiver().url)}&events=contact.created&events=contact.updated&signed=yes`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(created.status, created.text).to.equal(201);
    const secret = /data-copy="(whsec_[^"]+)"/.exec(created.text)?.[1];
    expect(secret, created.text).to.be.a('string');
    expect(created.text).to.contain('shown only this once');
    const [endpoint] = (await client.get(webhooksPath(workspaceId))).body;
    expect(endpoint).to.include({ name: 'CRM', url: receiver().url, direction: 'OUTBOUND' });
    expect(endpoint.events).to.deep.equal(['contact.created', 'contact.updated']);
    const page = await consolePage(client, `${base}/${endpoint.id}`);
    expect(page.text).to.not.contain(secret);
    const list = await consolePage(client, base);
    expect(list.text).to.contain('CRM').and.not.contain(secret!);
  });

  it('creates an inbound endpoint, signed or not, and shows the URL senders post to', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/app/${workspaceId}/webhooks`;
    const form = await consolePage(client, `${base}/new`);
    const signed = await postConsoleForm(client, base, {
      _csrf: form.token,
      direction: 'INBOUND',
      name: 'From CRM',
      signed: 'yes',
      signatureScheme: 'standard',
    });
    expect(signed.status, signed.text).to.equal(201);
    const [endpoint] = (await client.get(webhooksPath(workspaceId))).body;
    expect(endpoint).to.include({ direction: 'INBOUND', signatureScheme: 'standard', url: null });
    expect(signed.text)
      .to.match(/data-copy="whsec_/)
      .and.contain(`/api/webhooks/inbound/${endpoint.id}`);
    const unsigned = await postConsoleForm(client, base, {
      _csrf: form.token,
      direction: 'INBOUND',
      name: 'Open',
    });
    expect(unsigned.text)
      .to.contain('not signed')
      .and.not.match(/data-copy="whsec_/);
  });

  it('refuses a bad form with the API’s message and creates nothing', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/app/${workspaceId}/webhooks`;
    const form = await consolePage(client, `${base}/new`);
    const refused = await postConsoleForm(client, base, {
      _csrf: form.token,
      _back: `${base}/new`,
      direction: 'OUTBOUND',
      url: 'javascript:alert(1)',
    });
    const back = await followRedirect(client, refused);
    expect(back.text).to.contain('flash-error').and.contain('url:');
    expect((await client.get(webhooksPath(workspaceId))).body).to.deep.equal([]);
  });

  it('edits an endpoint, rotates its secret (shown once) and deletes it after its name is typed', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(client, workspaceId, { url: receiver().url, name: 'Old' });
    const href = `/app/${workspaceId}/webhooks/${endpoint.id}`;
    const edit = await consolePage(client, `${href}/edit`);
    const saved = await postConsoleForm(client, href, {
      _csrf: edit.token,
      name: 'New name',
      url: `${receiver().url}/v2`,
      events: 'contact.deleted',
    });
    const page = await followRedirect(client, saved);
    expect(page.text).to.contain('Endpoint “New name” saved.').and.contain('disabled');
    const [changed] = (await client.get(webhooksPath(workspaceId))).body;
    expect(changed).to.include({ name: 'New name', url: `${receiver().url}/v2`, active: false });
    expect(changed.events).to.deep.equal(['contact.deleted']);

    const rotated = await postConsoleForm(client, `${href}/rotate`, { _csrf: edit.token });
    expect(rotated.status).to.equal(201);
    const secret = /data-copy="(whsec_[^"]+)"/.exec(rotated.text)?.[1];
    expect(secret).to.be.a('string').and.not.equal(endpoint.secret);
    expect(rotated.text).to.contain('keeps signing alongside');

    const wrong = await postConsoleForm(client, `${href}/delete`, { _csrf: edit.token, name: 'nope' });
    expect((await followRedirect(client, wrong)).text).to.contain('Type the endpoint’s name');
    expect((await client.get(webhooksPath(workspaceId))).body).to.have.length(1);
    const deleted = await postConsoleForm(client, `${href}/delete`, { _csrf: edit.token, name: 'New name' });
    expect((await followRedirect(client, deleted)).text).to.contain('Endpoint “New name” deleted.');
    expect((await client.get(webhooksPath(workspaceId))).body).to.deep.equal([]);
  });

  it('shows health, the delivery log with each attempt’s request and response, filtered and paged', async () => {
    receiver().answer = (_request, index) =>
      index % 2 === 0 ? { status: 200 } : { status: 500, body: 'broken <b>' };
    const { client, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(client, workspaceId, {
      url: receiver().url,
      events: ['contact.created'],
    });
    for (let i = 0; i < 4; i++) await createContact(client, workspaceId, `log${i}@example.com`);
    await waitForDeliveries(client, workspaceId, endpoint.id, 4);
    const href = `/app/${workspaceId}/webhooks/${endpoint.id}`;
    const list = await consolePage(client, `/app/${workspaceId}/webhooks`);
    expect(list.text).to.match(/badge-(danger|warning)">\d+ %/);
    const page = await consolePage(client, href);
    expect(page.text).to.contain('<details>').and.contain('Request headers');
    expect(page.text).to.contain('X-Webhook-Event: contact.created');
    expect(page.text).to.contain('log0@example.com');
    expect(page.text).to.contain('broken &lt;b&gt;');
    expect(page.text).to.contain('Last failure');
    const failed = await consolePage(client, `${href}?outcome=failed`);
    expect(failed.text.match(/<details>/g)?.length).to.equal(
      (await deliveries(client, workspaceId, '&success=false')).length,
    );
    const none = await consolePage(client, `${href}?event=contact.deleted`);
    expect(none.text).to.contain('No delivery matches.');
  });

  it('pages the log by keyset, each row once', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(client, workspaceId, {
      url: receiver().url,
      events: ['contact.created'],
    });
    for (let i = 0; i < 27; i++) await createContact(client, workspaceId);
    const all = await waitForDeliveries(client, workspaceId, endpoint.id, 27);
    const href = `/app/${workspaceId}/webhooks/${endpoint.id}`;
    const first = await consolePage(client, href);
    const next = /href="([^"]+)" rel="next"/.exec(first.text)?.[1].replaceAll('&amp;', '&');
    expect(next).to.be.a('string');
    const second = await consolePage(client, next!);
    const ids = (text: string) =>
      [...text.matchAll(/<dt>Delivery<\/dt><dd><code>([^<]+)<\/code>/g)].map((m) => m[1]);
    expect(ids(first.text)).to.have.length(25);
    expect([...ids(first.text), ...ids(second.text)].sort()).to.deep.equal(all.map((d) => d.id).sort());
    expect(second.text).to.not.contain('rel="next"');
  });

  it('retries one delivery and replays the failed ones (ADMIN)', async () => {
    receiver().answer = () => ({ status: 410 });
    const { client, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(client, workspaceId, {
      url: receiver().url,
      events: ['contact.created'],
    });
    await createContact(client, workspaceId);
    const [failed] = await waitForDeliveries(client, workspaceId, endpoint.id, 1);
    const href = `/app/${workspaceId}/webhooks/${endpoint.id}`;
    // 410 Gone disabled the endpoint: the page says why, and a retry is refused until it is active.
    const page = await consolePage(client, href);
    expect(page.text).to.contain('badge-danger">disabled');
    receiver().answer = () => ({ status: 200 });
    const refused = await postConsoleForm(
      client,
      `/app/${workspaceId}/webhooks/deliveries/${failed.id}/retry`,
      {
        _csrf: page.token,
        _back: href,
      },
    );
    expect((await followRedirect(client, refused)).text)
      .to.contain('flash-error')
      .and.contain('disabled');
    await client.patch(`${webhooksPath(workspaceId)}/${endpoint.id}`, { active: true });
    const retried = await postConsoleForm(
      client,
      `/app/${workspaceId}/webhooks/deliveries/${failed.id}/retry`,
      {
        _csrf: page.token,
        _back: href,
      },
    );
    expect((await followRedirect(client, retried)).text).to.contain('Retry queued');
    await eventually(async () =>
      (await deliveries(client, workspaceId)).some((d) => d.success) ? true : null,
    );
    receiver().answer = () => ({ status: 500 });
    await createContact(client, workspaceId);
    await waitForDeliveries(client, workspaceId, endpoint.id, 3);
    const replayed = await postConsoleForm(client, `${href}/replay`, { _csrf: page.token });
    const after = await followRedirect(client, replayed);
    expect(after.text).to.match(/0 failed messages queued again; 1 still waiting for their scheduled retry/);
  });

  it('shows a MEMBER the endpoints and the log without buttons, and refuses its crafted POSTs', async () => {
    const { client: admin, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(admin, workspaceId, {
      url: receiver().url,
      events: ['contact.created'],
    });
    await createContact(admin, workspaceId);
    const [delivery] = await waitForDeliveries(admin, workspaceId, endpoint.id, 1);
    const { client: member } = await memberOf(admin, workspaceId, 'MEMBER');
    const base = `/app/${workspaceId}/webhooks`;
    const list = await consolePage(member, base);
    expect(list.text).to.contain(endpoint.id).and.not.contain('New endpoint');
    const page = await consolePage(member, `${base}/${endpoint.id}`);
    expect(page.text)
      .to.contain('Delivery log')
      .and.not.contain('Retry now')
      .and.not.contain('Rotate secret');
    await consolePage(member, `${base}/new`, 403);
    await consolePage(member, `${base}/${endpoint.id}/edit`, 403);
    const token = page.token;
    const posts: [string, Record<string, string>][] = [
      [base, { url: receiver().url }],
      [`${base}/${endpoint.id}`, { name: 'Taken over', url: receiver().url, active: 'yes' }],
      [`${base}/${endpoint.id}/rotate`, {}],
      [`${base}/${endpoint.id}/delete`, { name: (await admin.get(webhooksPath(workspaceId))).body[0].name }],
      [`${base}/${endpoint.id}/replay`, {}],
      [`${base}/deliveries/${delivery.id}/retry`, {}],
    ];
    for (const [path, fields] of posts) {
      const refused = await postConsoleForm(member, path, { _csrf: token, ...fields });
      expect(refused.status, path).to.equal(403);
      expect(refused.text).to.contain('Only an ADMIN');
    }
    const [unchanged] = (await admin.get(webhooksPath(workspaceId))).body;
    expect(unchanged).to.include({ id: endpoint.id, active: true });
    expect(unchanged.name).to.not.equal('Taken over');
    expect(await deliveries(admin, workspaceId)).to.have.length(1);
  });

  it('refuses forms without CSRF and treats another workspace’s ids as not found', async () => {
    const { client: other, workspaceId: otherWorkspace } = await workspaceWithAdmin();
    const theirs = await createEndpoint(other, otherWorkspace, {
      url: receiver().url,
      events: ['contact.created'],
    });
    await createContact(other, otherWorkspace);
    const [theirDelivery] = await waitForDeliveries(other, otherWorkspace, theirs.id, 1);
    const { client, workspaceId } = await workspaceWithAdmin();
    const base = `/app/${workspaceId}/webhooks`;
    const page = await consolePage(client, base);
    await consolePage(client, `${base}/${theirs.id}`, 404);
    await consolePage(client, `${base}/${theirs.id}/edit`, 404);
    for (const path of [
      `${base}/${theirs.id}`,
      `${base}/${theirs.id}/rotate`,
      `${base}/${theirs.id}/replay`,
    ]) {
      expect((await postConsoleForm(client, path, { _csrf: page.token, name: 'x' })).status, path).to.equal(
        404,
      );
    }
    const retry = await postConsoleForm(client, `${base}/deliveries/${theirDelivery.id}/retry`, {
      _csrf: page.token,
    });
    expect(retry.status).to.equal(404);
    const forged = await postConsoleForm(client, base, { _csrf: 'x'.repeat(32), url: receiver().url });
    expect(forged.status).to.equal(403);
    expect(await new Client().get(base).then((r) => r.status)).to.equal(303);
    expect((await client.get(webhooksPath(workspaceId))).body).to.deep.equal([]);
    expect((await other.get(webhooksPath(otherWorkspace))).body[0].name).to.not.equal('x');
  });

  it('renders hostile names and URLs inert', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const endpoint = await createEndpoint(client, workspaceId, {
      url: `${receiver().url}?q="><script>alert(3)</script>`,
      name: HOSTILE,
    });
    const base = `/app/${workspaceId}/webhooks`;
    for (const path of [base, `${base}/${endpoint.id}`, `${base}/${endpoint.id}/edit`]) {
      const page = await consolePage(client, path);
      expect(page.text, path).to.not.contain('<script>alert').and.not.contain('<img src=x');
      expect(page.text, path).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });
});
