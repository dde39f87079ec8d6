// The workspace's own settings in the console: /app/{ws}/settings/members (members and pending
// invitations; invite with a role, change a role, remove, leave) and /app/{ws}/settings/workspace
// (rename; delete, confirmed by typing the name). The same services and role rules as the API:
// a MEMBER sees the members without the ADMIN's buttons (and no invitations, which the API keeps
// from members), and a POST only an ADMIN may make is the 403 page even when crafted by hand.
// The last ADMIN cannot be demoted, removed or leave: the services refuse it (409) and the page
// says why as an error flash. Another workspace's member or invitation ids are the 404 page.
import type { Request, Response, Router } from 'express';
import {
  type ConsolePages,
  confirmForm,
  consoleForm,
  consoleState,
  copyButton,
  csrfField,
  emptyState,
  formText,
  html,
  isAdmin,
  pageWorkspace,
  parseForm,
  postForm,
  redirectWithFlash,
  requireAdmin,
  sendPage,
  table,
  tabs,
  time,
  workspacePath,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { inviteMember, listInvitations, revokeInvitation } from './invitations.ts';
import { listMembers } from './queries.ts';
import { AddMemberBody, ChangeMemberBody, RenameWorkspaceBody } from './schemas.ts';
import {
  changeMemberRole,
  deleteWorkspace,
  type Member,
  removeMember,
  renameWorkspace,
  toMember,
} from './service.ts';

const LAST_ADMIN_LEAVING =
  'You are the last ADMIN of this workspace: make another member ADMIN first, or delete the workspace.';

function settingsTabs(res: Response, current: 'members' | 'workspace') {
  const base = `${workspacePath(res)}/settings`;
  return tabs(
    [
      { label: 'Members', href: `${base}/members`, current: current === 'members' },
      { label: 'Workspace', href: `${base}/workspace`, current: current === 'workspace' },
    ],
    'Settings',
  );
}

function roleSelect(id: string, selected: string) {
  const options = ['MEMBER', 'ADMIN'].map(
    (role) => html`<option value="${role}"${role === selected ? html` selected` : ''}>${role}</option>`,
  );
  return html`<select id="${id}" name="role">${options}</select>`;
}

/** An ADMIN's controls for one member: the role form and the remove button; the viewer's own row: leave. */
function memberActions(res: Response, member: Member, admins: number) {
  const base = `${workspacePath(res)}/settings/members`;
  const back = `${base}`;
  const self = member.userId === consoleState(res).user.id;
  const lastAdmin = member.role === 'ADMIN' && admins <= 1;
  const leave = self
    ? postForm(res, { action: `${base}/leave`, label: 'Leave workspace', danger: true, back })
    : '';
  if (!isAdmin(res)) return leave;
  if (lastAdmin)
    return html`<span class="muted">The last ADMIN: make another member ADMIN before changing this one.</span>`;
  const id = `role-${member.userId}`;
  const roleForm = html`<form method="post" action="${base}/${member.userId}/role" class="inline">${csrfField(res)}
<input type="hidden" name="_back" value="${back}"><label for="${id}" class="visually-hidden">Role of ${member.email}</label>${roleSelect(id, member.role)}
<button type="submit">Change role</button></form>`;
  const remove = self
    ? ''
    : postForm(res, {
        action: `${base}/${member.userId}/remove`,
        label: `Remove ${member.name}`,
        danger: true,
        back,
      });
  return html`${roleForm} ${remove} ${leave}`;
}

async function membersPage(app: AppContext, res: Response) {
  const workspace = pageWorkspace(res);
  const members = (await listMembers(app.db, workspace.id)).map(toMember);
  const admins = members.filter((member) => member.role === 'ADMIN').length;
  const rows = members.map((member) => [
    member.name,
    member.email,
    member.role,
    time(member.createdAt),
    memberActions(res, member, admins),
  ]);
  const memberTable = table({
    caption: 'Members',
    columns: [
      { label: 'Name' },
      { label: 'Email' },
      { label: 'Role' },
      { label: 'Since' },
      { label: 'Actions', hidden: true },
    ],
    rows,
  });
  const admin = isAdmin(res)
    ? await adminPart(app, res)
    : html`<p class="muted">Only an ADMIN of this workspace invites, changes and removes members.</p>`;
  sendPage(res, {
    title: 'Members',
    section: 'settings/members',
    crumbs: [{ label: 'Settings' }],
    body: html`${settingsTabs(res, 'members')}${memberTable}${admin}`,
  });
}

/** What only an ADMIN sees: the invitation form and the pending invitations with their links. */
async function adminPart(app: AppContext, res: Response) {
  const workspace = pageWorkspace(res);
  const base = `${workspacePath(res)}/settings/members`;
  const invitations = await listInvitations(app, workspace.id);
  const pending =
    invitations.length === 0
      ? emptyState(
          'No pending invitations',
          'Invite someone by email above; they join as they register or sign in with it.',
        )
      : table({
          caption: 'Pending invitations',
          columns: [
            { label: 'Email' },
            { label: 'Role' },
            { label: 'Expires' },
            { label: 'Link to join' },
            { label: 'Actions', hidden: true },
          ],
          rows: invitations.map((invitation) => [
            invitation.email,
            invitation.role,
            time(invitation.expiresAt),
            copyButton(invitation.joinUrl, 'Copy link'),
            postForm(res, {
              action: `${base}/invitations/${invitation.id}/revoke`,
              label: `Revoke ${invitation.email}`,
              danger: true,
              back: base,
            }),
          ]),
        });
  return html`<section class="panel" aria-labelledby="invite-heading"><h2 id="invite-heading">Invite someone</h2>
<form method="post" action="${base}/invite">${csrfField(res)}<input type="hidden" name="_back" value="${base}">
<label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off">
<label for="invite-role">Role</label>${roleSelect('invite-role', 'MEMBER')}
<p><button type="submit">Invite</button></p></form></section>
<section aria-labelledby="pending-heading"><h2 id="pending-heading">Pending invitations</h2>${pending}</section>`;
}

async function invite(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const body = parseForm(AddMemberBody, { email: formText(req, 'email'), role: formText(req, 'role') });
  const invitation = await inviteMember(app, {
    workspaceId: pageWorkspace(res).id,
    email: body.email,
    role: body.role,
    invitedBy: consoleState(res).user.id,
  });
  // The same words whether or not the email has an account (invitations.ts).
  const how = invitation.emailed
    ? 'An invitation mail is on its way.'
    : `This server sends no mail: give them this link to join: ${invitation.joinUrl}`;
  redirectWithFlash(
    req,
    res,
    `${workspacePath(res)}/settings/members`,
    `Invited ${invitation.email} as ${invitation.role}. ${how}`,
  );
}

async function changeRole(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const { role } = parseForm(ChangeMemberBody, { role: formText(req, 'role') });
  const member = await changeMemberRole(app.db, pageWorkspace(res).id, String(req.params.userId), role);
  redirectWithFlash(req, res, `${workspacePath(res)}/settings/members`, `${member.name} is now ${role}.`);
}

async function remove(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  await removeMember(app.db, pageWorkspace(res).id, String(req.params.userId));
  redirectWithFlash(req, res, `${workspacePath(res)}/settings/members`, 'The member is removed.');
}

async function leave(app: AppContext, req: Request, res: Response) {
  const workspace = pageWorkspace(res);
  await removeMember(app.db, workspace.id, consoleState(res).user.id, LAST_ADMIN_LEAVING);
  redirectWithFlash(req, res, '/app', `You left “${workspace.name}”.`);
}

async function revoke(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  await revokeInvitation(app.db, pageWorkspace(res).id, String(req.params.invitationId));
  redirectWithFlash(req, res, `${workspacePath(res)}/settings/members`, 'The invitation is revoked.');
}

function workspacePage(res: Response) {
  const workspace = pageWorkspace(res);
  const base = `${workspacePath(res)}/settings/workspace`;
  const forms = isAdmin(res)
    ? html`<section class="panel" aria-labelledby="rename-heading"><h2 id="rename-heading">Name</h2>
<form method="post" action="${base}/rename">${csrfField(res)}<input type="hidden" name="_back" value="${base}">
<label for="workspace-name">Name</label><input id="workspace-name" name="name" required maxlength="100" value="${workspace.name}">
<p><button type="submit">Rename</button></p></form></section>
<section class="panel" aria-labelledby="delete-heading"><h2 id="delete-heading">Delete the workspace</h2>
<p>Everything in it goes, for good: contacts, events, segments, campaigns, keys, webhooks, members and invitations.</p>
${confirmForm(res, {
  action: `${base}/delete`,
  label: 'Delete this workspace',
  back: base,
  confirm: {
    name: 'confirmName',
    expected: workspace.name,
    prompt: `Type the workspace's name, ${workspace.name}, to confirm`,
  },
})}</section>`
    : html`<p>Name: <strong>${workspace.name}</strong></p><p class="muted">Only an ADMIN of this workspace renames or deletes it.</p>`;
  sendPage(res, {
    title: 'Workspace',
    section: 'settings/workspace',
    crumbs: [{ label: 'Settings' }],
    body: html`${settingsTabs(res, 'workspace')}${forms}`,
  });
}

async function rename(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const { name } = parseForm(RenameWorkspaceBody, { name: formText(req, 'name') });
  const renamed = await renameWorkspace(app.db, pageWorkspace(res).id, consoleState(res).user.id, name);
  redirectWithFlash(
    req,
    res,
    `${workspacePath(res)}/settings/workspace`,
    `The workspace is now “${renamed.name}”.`,
  );
}

async function destroy(app: AppContext, req: Request, res: Response) {
  requireAdmin(res);
  const workspace = pageWorkspace(res);
  await deleteWorkspace(app.db, workspace.id, formText(req, 'confirmName'));
  redirectWithFlash(req, res, '/app', `The workspace “${workspace.name}” is deleted.`);
}

export function workspaceSettingsConsole(app: AppContext): ConsolePages {
  return {
    sections: [
      // Members first: the Settings entry leads there, the one page of the group every member reads.
      { path: 'settings/members', label: 'Members', group: 'Settings', order: 79 },
      { path: 'settings/workspace', label: 'Workspace', group: 'Settings', order: 84 },
    ],
    install(router: Router) {
      const form = consoleForm();
      router.get('/settings/members', (_req, res) => membersPage(app, res));
      router.post('/settings/members/invite', form, (req, res) => invite(app, req, res));
      router.post('/settings/members/leave', form, (req, res) => leave(app, req, res));
      router.post('/settings/members/invitations/:invitationId/revoke', form, (req, res) =>
        revoke(app, req, res),
      );
      router.post('/settings/members/:userId/role', form, (req, res) => changeRole(app, req, res));
      router.post('/settings/members/:userId/remove', form, (req, res) => remove(app, req, res));
      router.get('/settings/workspace', (_req, res) => workspacePage(res));
      router.post('/settings/workspace/rename', form, (req, res) => rename(app, req, res));
      router.post('/settings/workspace/delete', form, (req, res) => destroy(app, req, res));
    },
  };
}
