// The message a form's POST leaves for the page after its 303 redirect ("Contact saved."), kept in
// the session and shown once: sendPage takes it when it renders, so a redirect in between (such as
// /app/{ws} → its first section) does not lose it.
//
//   await redirectWithFlash(req, res, `${workspacePath(res)}/contacts/${id}`, 'Contact saved.');
//   await redirectWithFlash(req, res, back, 'This email is taken.', 'error');
import type { Request, Response } from 'express';
import type { Flash } from './state.ts';

declare module 'express-session' {
  interface SessionData {
    /** The message the next console page shows once (set before a 303). */
    flash?: Flash;
  }
}

/**
 * The 303 that ends a POST; the message shows once on the next page rendered. The session is saved
 * before the redirect is sent: express-session would otherwise save it as the response ends, and
 * a quick browser's next GET could read the session before the message is in it.
 */
export async function redirectWithFlash(
  req: Request,
  res: Response,
  location: string,
  message: string,
  kind: Flash['kind'] = 'success',
): Promise<void> {
  const session = req.session;
  if (session) {
    session.flash = { kind, message };
    await new Promise<void>((resolve, reject) =>
      session.save((error) => (error ? reject(error) : resolve())),
    );
  }
  res.redirect(303, location);
}

/** The flash message of the session, removed as it is read. */
export function takeFlash(req: Request): Flash | null {
  const flash = req.session?.flash ?? null;
  if (flash && req.session) delete req.session.flash;
  return flash;
}
