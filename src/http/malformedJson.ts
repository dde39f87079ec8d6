// Stands in for a request body that is not valid JSON where a route must still see the request
// (inbound webhooks record every receipt at a known endpoint, malformed ones included).
export const MALFORMED_JSON: unique symbol = Symbol('malformed JSON');

/**
 * Stands in for an inbound webhook body over the size limit: it is not read, but the route sees
 * the request, so a known endpoint records the refused receipt (its size, never its body).
 */
export class OversizedBody {
  readonly bytes: number | null;
  constructor(bytes: number | null) {
    this.bytes = bytes;
  }
}
