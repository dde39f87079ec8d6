// The console kit (docs/decisions/0012-console-without-a-build.md): server-rendered pages under /app
// that work with JavaScript off. It knows no feature; each feature's src/<feature>/console.ts builds
// its pages with these pieces and the composition (src/app/console.ts) mounts them.
//
//   html.ts        html`…` (escapes), raw(), safeUrl()
//   state.ts       who and where: consoleState(res), pageWorkspace(res), requireAdmin(res), ConsolePages
//   shell.ts       sendPage(res, { title, crumbs, section, actions, body }), sendErrorPage, CSP headers
//   forms.ts       consoleForm() (urlencoded + CSRF), formText, formList, parseForm (the API's schema)
//   flash.ts       redirectWithFlash (POST → 303 + a message shown once), takeFlash
//   paging.ts      keyset cursors: readCursor, pageOf, withQuery
//   components.ts  table, emptyState, pager, postForm, confirmForm, copyButton, badge, sparkline, …
//   errors.ts      consoleErrors: service errors as 404/403 pages or an error flash
//   assets.ts      console.css, console.js and htmx, hashed URLs, cached for a year
export * from './assets.ts';
export * from './components.ts';
export * from './errors.ts';
export * from './flash.ts';
export * from './forms.ts';
export * from './html.ts';
export * from './paging.ts';
export * from './shell.ts';
export * from './state.ts';
