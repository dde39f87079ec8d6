// Stands in for a request body that is not valid JSON where a route must still see the request
// (inbound webhooks record every receipt at a known endpoint, malformed ones included).
export const MALFORMED_JSON: unique symbol = Symbol('malformed JSON');
