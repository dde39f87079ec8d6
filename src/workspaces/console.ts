// The console's page outside any workspace: /app/new, where a signed-in person creates a workspace
// (the page /app leads to when they have none). Same service and same name rule as
// POST /api/workspaces; the creator becomes its ADMIN.
import type { Router } from 'express';
import {
  consoleForm,
  consoleState,
  csrfField,
  formText,
  html,
  redirectWithFlash,
  sendPage,
} from '../console/index.ts';
import type { AppContext } from '../core/context.ts';
import { ValidationError } from '../core/errors.ts';
import { CreateWorkspaceBody } from './schemas.ts';
import { createWorkspace } from './service.ts';

function newWorkspacePage(res: Parameters<typeof sendPage>[0], value = '', error?: string) {
  const none = consoleState(res).workspaces.length === 0;
  sendPage(res, {
    title: 'New workspace',
    status: error ? 400 : 200,
    body: html`${none ? html`<p>You are not a member of any workspace yet. Create one (you will be its ADMIN), or ask a workspace's ADMIN to invite you.</p>` : ''}
${error ? html`<p class="flash flash-error" role="alert">${error}</p>` : ''}
<form method="post" action="/app/new" class="panel">${csrfField(res)}
<label for="name">Name</label><input id="name" name="name" required maxlength="100" value="${value}" autocomplete="organization">
<p><button type="submit">Create workspace</button></p></form>`,
  });
}

export function installWorkspaceConsole(router: Router, context: AppContext): void {
  router.get('/new', (_req, res) => newWorkspacePage(res));
  router.post('/new', consoleForm(), async (req, res) => {
    const parsed = CreateWorkspaceBody.safeParse({ name: formText(req, 'name') });
    if (!parsed.success) {
      const error = new ValidationError([{ path: 'name', message: parsed.error.issues[0].message }]);
      return newWorkspacePage(res, formText(req, 'name'), `Name ${error.errors[0].message}.`);
    }
    const workspace = await createWorkspace(context.db, {
      name: parsed.data.name,
      creatorId: consoleState(res).user.id,
    });
    await redirectWithFlash(
      req,
      res,
      `/app/${encodeURIComponent(workspace.id)}`,
      `Workspace “${workspace.name}” created.`,
    );
  });
}
