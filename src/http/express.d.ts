// Request properties our middleware adds.
declare global {
  namespace Express {
    interface Request {
      /** Request id: the caller's X-Request-Id when well-formed, else generated. Echoed back. */
      id: string;
      /** The exact body bytes, kept for HMAC verification of inbound webhooks. */
      rawBody?: Buffer;
      /**
       * API requests read who is signed in with one query when they authenticate (session.ts,
       * readSignedIn) rather than through express-session: the id from their verified session
       * cookie, null without one. Undefined where express-session loaded `req.session`.
       */
      sessionCookieId?: string | null;
    }
  }
}

export {};
