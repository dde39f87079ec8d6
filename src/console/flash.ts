// The message a form's POST leaves for the page after its 303 redirect ("Contact saved."), kept in
// the session and shown once: sendPage takes it when it renders, so a redirect in between (such as
// /app/{ws} → its first section) does not lose it.
//
//   redirectWithFlash(req, res, `${workspacePath(res)}/contacts/${id}`, 'Contact saved.');
//   redirectWithFlash(req, res, back, 'This email is taken.', 'error');
import type { Request, Response } from 'express';
import type { Flash } from './state.ts';

declare module 'express-session' {
  interface SessionData {
    /** The message the next console page shows once (set before a 303). */
    flash?: Flash;
  }
}

/** The 303 that ends a POST; the message shows once on the next page rendered. */
export function redirectWithFlash(
  req: Request,
  res: Response,
  location: string,
  message: string,
  kind: Flash['kind'] = 'success',
): void {
  if (req.session) req.session.flash = { kind, message };
  res.redirect(303, location);
}

/** The flash message of the session, removed as it is read. */
export function takeFlash(req: Request): Flash | null {
  const flash = req.session?.flash ?? null;
  if (flash && req.session) delete req.session.flash;
  return flash;
}
