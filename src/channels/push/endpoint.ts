// Which push service endpoints we send to. Endpoints come from browsers, that is from anyone, and
// web-push has no guard of its own: without this check a subscription could point the worker at
// any host (an internal service, cloud metadata). Checked when a subscription is stored and again
// before every send (a row stored under a development setting must not be dialled in production).
import type { Config } from '../../config.ts';

/** The push services of Chrome/Edge/Opera (FCM), Firefox (autopush), Safari (Apple) and Windows (WNS). */
const PUSH_SERVICE_HOSTS = [/^fcm\.googleapis\.com$/, /^updates\.push\.services\.mozilla\.com$/];
const PUSH_SERVICE_DOMAINS = ['.push.apple.com', '.notify.windows.com'];

export const PUSH_ENDPOINT_MAX_LENGTH = 2048;

function isKnownPushService(host: string): boolean {
  return (
    PUSH_SERVICE_HOSTS.some((pattern) => pattern.test(host)) ||
    PUSH_SERVICE_DOMAINS.some((domain) => host.endsWith(domain) && host.length > domain.length)
  );
}

/** Why we will not send to this endpoint, or null. */
export function pushEndpointRefusal(config: Pick<Config, 'PUSH_ALLOW_ANY_ENDPOINT'>, endpoint: string) {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https: URL';
  if (url.username || url.password) return 'must not carry a user or password';
  if (config.PUSH_ALLOW_ANY_ENDPOINT) return null;
  if (url.port !== '' || !isKnownPushService(url.hostname)) {
    return 'must be on a known push service (fcm.googleapis.com, updates.push.services.mozilla.com, *.push.apple.com, *.notify.windows.com)';
  }
  return null;
}
