// `switchboard import contacts`: CSV and NDJSON, upserted by email, side effects set-wise.
import { expect } from 'chai';
import { createContact, workspace } from '../events/support.ts';
import { countRows, importFileOf, importJson, ndjson, outboxTypes, runImport } from './support.ts';

describe('import contacts', function () {
  this.timeout(60_000);

  it('upserts a CSV by email: new contacts created, known ones updated, extra columns as attributes', async () => {
    const { admin, base, workspaceId } = await workspace();
    const known = await createContact(admin, base, { email: 'known@example.com', firstName: 'Old' });
    await admin.post(`${base}/webhooks`, {
      name: 'all',
      url: 'https://example.com/hook',
      direction: 'OUTBOUND',
    });
    const file = importFileOf(
      'csv',
      'email,firstName,last_name,plan\n' +
        'Ada@Example.com ,Ada,Lovelace,pro\n' +
        'known@example.com,New,,free\n' +
        '"grace@example.com","Grace","Hopper, RA",\n',
    );
    const summary = await importJson('contacts', file, workspaceId);
    expect(summary).to.include({
      kind: 'contacts',
      rows: 3,
      created: 2,
      updated: 1,
      unchanged: 0,
      invalid: 0,
    });
    const list = await admin.get(`${base}/contacts?email=ada@example.com`);
    expect(list.body.data[0]).to.include({
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    expect(list.body.data[0].attributes).to.deep.equal({ plan: 'pro' });
    const updated = await admin.get(`${base}/contacts/${known.id}`);
    expect(updated.body).to.include({ firstName: 'New' });
    expect(updated.body.attributes).to.deep.equal({ plan: 'free' });
    const grace = await admin.get(`${base}/contacts?email=grace@example.com`);
    expect(grace.body.data[0]).to.include({ lastName: 'Hopper, RA' });
    expect(await outboxTypes(workspaceId)).to.deep.include({ 'contact.created': 3, 'contact.updated': 1 });

    // The same file again changes nothing and emits nothing.
    const again = await importJson('contacts', file, workspaceId);
    expect(again).to.include({ created: 0, updated: 0, unchanged: 3 });
    expect(await outboxTypes(workspaceId)).to.deep.include({ 'contact.created': 3, 'contact.updated': 1 });
  });

  it('reads NDJSON (by extension), the last row of an email winning, and enters segments', async () => {
    const { admin, base, workspaceId } = await workspace();
    const segment = await admin.post(`${base}/segments`, {
      name: 'Pro',
      rules: { attribute: 'plan', op: 'eq', value: 'pro' },
    });
    expect(segment.status, segment.text).to.equal(201);
    const file = importFileOf(
      'ndjson',
      ndjson([
        { email: 'a@example.com', attributes: { plan: 'free' } },
        { email: 'b@example.com', firstName: 'B', attributes: { plan: 'pro' } },
        { email: 'A@example.com', attributes: { plan: 'pro' } },
      ]),
    );
    const summary = await importJson('contacts', file, workspaceId);
    expect(summary).to.include({ rows: 3, created: 2, duplicates: 1, entered: 2 });
    const members = await admin.get(`${base}/contacts?segmentId=${segment.body.id}`);
    expect(members.body.data.map((c: { email: string }) => c.email).sort()).to.deep.equal([
      'a@example.com',
      'b@example.com',
    ]);
  });

  it('refuses the whole file for one bad row, naming its line; --skip-invalid imports the rest', async () => {
    const { workspaceId } = await workspace();
    const file = importFileOf(
      'csv',
      'email,firstName\nok@example.com,Ok\nnot-an-email,Bad\nfine@example.com,Fine\n',
    );
    const refused = await runImport('contacts', file, workspaceId);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain('1 invalid row; nothing was imported');
    expect(refused.stderr).to.contain('line 3: email: must be an email address');
    expect(await countRows('contacts', workspaceId)).to.equal(0);

    const skipped = await importJson('contacts', file, workspaceId, ['--skip-invalid']);
    expect(skipped).to.include({ created: 2, invalid: 1, rejectsFile: `${file}.rejects` });
    expect(await countRows('contacts', workspaceId)).to.equal(2);
  });
});
