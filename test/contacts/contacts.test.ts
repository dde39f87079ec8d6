import { expect } from 'chai';
import { createContact, outgoing, workspace } from '../events/support.ts';
import { Client } from '../support/client.ts';
import { expectProblem } from '../support/factories.ts';

describe('contacts', () => {
  describe('happy paths', () => {
    it('creates a contact with a trimmed lowercase email and emits contact.created', async () => {
      const { admin, base, workspaceId } = await workspace();
      const contact = await createContact(admin, base, {
        email: '  Ada@Example.COM ',
        firstName: 'Ada',
        lastName: 'Lovelace',
        phone: '+44 20 7946 0000',
        attributes: { plan: 'pro' },
      });
      expect(contact).to.include({
        email: 'ada@example.com',
        firstName: 'Ada',
        leadScore: 0,
        anonymousId: null,
      });
      expect(contact.id).to.match(/^ct_/);
      expect(contact.attributes).to.deep.equal({ plan: 'pro' });
      expect(await outgoing(workspaceId, 'contact.created')).to.deep.equal([
        { contactId: contact.id, email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
      ]);
      const fetched = await admin.get(`${base}/contacts/${contact.id}`);
      expect(fetched.body).to.deep.equal(contact);
    });

    it('patches fields, merges attributes and removes null keys', async () => {
      const { admin, base, workspaceId } = await workspace();
      const contact = await createContact(admin, base, {
        email: 'p@example.com',
        attributes: { a: 1, b: 2 },
      });
      const patched = await admin.patch(`${base}/contacts/${contact.id}`, {
        firstName: 'Pat',
        attributes: { b: null, c: { d: true } },
      });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.body.firstName).to.equal('Pat');
      expect(patched.body.attributes).to.deep.equal({ a: 1, c: { d: true } });
      expect(await outgoing(workspaceId, 'contact.updated')).to.deep.equal([
        { contactId: contact.id, email: 'p@example.com', firstName: 'Pat', lastName: null },
      ]);
    });

    it('deletes a contact (204), emits contact.deleted, and then answers 404', async () => {
      const { admin, base, workspaceId } = await workspace();
      const contact = await createContact(admin, base, { email: 'gone@example.com' });
      const deleted = await admin.delete(`${base}/contacts/${contact.id}`);
      expect(deleted.status).to.equal(204);
      expect(await outgoing(workspaceId, 'contact.deleted')).to.deep.equal([
        { contactId: contact.id, email: 'gone@example.com' },
      ]);
      expectProblem(await admin.get(`${base}/contacts/${contact.id}`), 404);
    });

    it('lists with email, q, page and limit', async () => {
      const { admin, base } = await workspace();
      for (const [email, firstName] of [
        ['one@example.com', 'Grace'],
        ['two@example.com', 'Alan'],
        ['three@example.com', 'Grace'],
      ]) {
        await createContact(admin, base, { email, firstName });
      }
      const page = await admin.get(`${base}/contacts?limit=2&page=1`);
      expect(page.body).to.include({ page: 1, limit: 2, total: 3 });
      expect(page.body.data.map((c: { email: string }) => c.email)).to.deep.equal([
        'three@example.com',
        'two@example.com',
      ]);
      const second = await admin.get(`${base}/contacts?limit=2&page=2`);
      expect(second.body.data).to.have.length(1);
      const byEmail = await admin.get(`${base}/contacts?email=TWO@example.com`);
      expect(byEmail.body.total).to.equal(1);
      const byName = await admin.get(`${base}/contacts?q=grac`);
      expect(byName.body.total).to.equal(2);
      const percent = await admin.get(`${base}/contacts?q=${encodeURIComponent('%')}`);
      expect(percent.body.total).to.equal(0);
    });

    it('accepts an API key as ?key= on the list', async () => {
      const { admin, base, workspaceId } = await workspace();
      await createContact(admin, base, { email: 'k@example.com' });
      const created = await admin.post(`/api/workspaces/${workspaceId}/keys`, {
        name: 'k',
        scopes: ['contacts:read'],
      });
      const listed = await new Client().get(`${base}/contacts?key=${created.body.key}`);
      expect(listed.status, listed.text).to.equal(200);
      expect(listed.body.total).to.equal(1);
    });
  });

  describe('errors', () => {
    it('refuses a duplicate email case-insensitively with 409', async () => {
      const { admin, base } = await workspace();
      await createContact(admin, base, { email: 'dup@example.com' });
      const again = await admin.post(`${base}/contacts`, { email: 'DUP@example.com ' });
      expect(expectProblem(again, 409).detail).to.match(/email/);
      const other = await createContact(admin, base, { email: 'other@example.com' });
      expectProblem(await admin.patch(`${base}/contacts/${other.id}`, { email: 'dup@example.com' }), 409);
    });

    it('answers 400 for bad input, naming the field', async () => {
      const { admin, base } = await workspace();
      const cases: [unknown, string][] = [
        [{ email: 'not-an-email' }, 'body.email'],
        [{ attributes: [1, 2] }, 'body.attributes'],
        [{ firstName: 'x'.repeat(201) }, 'body.firstName'],
        [{ firstName: 'nul\u0000' }, 'body.firstName'],
        [{ unknownField: 1 }, 'body.unknownField'],
      ];
      for (const [body, path] of cases) {
        const problem = expectProblem(await admin.post(`${base}/contacts`, body), 400) as unknown as {
          errors: { path: string }[];
        };
        expect(problem.errors.map((error) => error.path)).to.include(path);
      }
      expectProblem(await admin.get(`${base}/contacts?limit=201`), 400);
      expectProblem(await admin.get(`${base}/contacts?page=0`), 400);
    });

    it('answers 404 for unknown contacts and segments', async () => {
      const { admin, base } = await workspace();
      expectProblem(await admin.get(`${base}/contacts/ct_nope`), 404);
      expectProblem(await admin.patch(`${base}/contacts/ct_nope`, { firstName: 'x' }), 404);
      expectProblem(await admin.delete(`${base}/contacts/ct_nope`), 404);
      expectProblem(await admin.get(`${base}/contacts?segmentId=seg_nope`), 404);
    });
  });

  describe('security', () => {
    it('refuses keys without the scope, naming it', async () => {
      const { base, withScopes } = await workspace();
      const reader = await withScopes(['contacts:read']);
      const writer = await withScopes(['contacts:write']);
      expect(
        expectProblem(await reader.post(`${base}/contacts`, { email: 'x@example.com' }), 403).detail,
      ).to.include('contacts:write');
      expect(expectProblem(await writer.get(`${base}/contacts`), 403).detail).to.include('contacts:read');
      expect((await writer.post(`${base}/contacts`, { email: 'x@example.com' })).status).to.equal(201);
    });

    it("answers 404 for another workspace's contacts", async () => {
      const mine = await workspace();
      const theirs = await workspace();
      const contact = await createContact(theirs.admin, theirs.base, { email: 'theirs@example.com' });
      expectProblem(await mine.admin.get(`${mine.base}/contacts/${contact.id}`), 404);
      expectProblem(await mine.admin.patch(`${mine.base}/contacts/${contact.id}`, { firstName: 'x' }), 404);
      expectProblem(await mine.admin.delete(`${mine.base}/contacts/${contact.id}`), 404);
      expectProblem(await theirs.admin.get(`${mine.base}/contacts`), 404);
      const key = await mine.withScopes(['contacts:read']);
      expectProblem(await key.get(`${theirs.base}/contacts`), 401);
    });
  });
});
