// What other features may use of publishable keys: the public-route helper (publishable key, CORS,
// rate limits), the same check for routes outside /api, and identity verification.
export { type Identity, type IdentityClaim, identityToken, verifyIdentity } from './identity.ts';
export {
  answerPreflight,
  authenticatePublicRequest,
  PUBLISHABLE_KEY_HEADER,
  type PublicCaller,
} from './publicAccess.ts';
export {
  PUBLIC_ERRORS,
  type PublicHandlerContext,
  PublishableKeyHeader,
  publicRoute,
} from './publicRoute.ts';
export { limitRequests } from './rateLimit.ts';
