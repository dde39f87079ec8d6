// Request properties our middleware adds.
declare global {
  namespace Express {
    interface Request {
      /** Request id: the caller's X-Request-Id when well-formed, else generated. Echoed back. */
      id: string;
      /** The exact body bytes, kept for HMAC verification of inbound webhooks. */
      rawBody?: Buffer;
    }
  }
}

export {};
