/*
 * Switchboard web push: the page part.
 *   <script src="https://YOUR-SWITCHBOARD/sdk/push.js"></script>
 *   Switchboard.push.init({ key: 'pk_…', identity: { email, identityToken } });   // identity optional
 *   button.onclick = () => Switchboard.push.subscribe();   // on a user gesture
 * subscribe() registers your /sw.js (which importScripts /sdk/sw.js), asks for permission, subscribes
 * with the workspace's VAPID key and stores the subscription. Resolves to 'subscribed', 'denied' or
 * 'unsupported'.
 */
(() => {
  const script = document.currentScript;
  const apiBase = script ? new URL(script.src).origin : '';
  const CONFIG_CACHE = 'switchboard-push';
  const CONFIG_URL = '/__switchboard/push-config';
  const ANONYMOUS_ID = 'switchboard.anonymousId';
  let settings = null;

  function anonymousId() {
    let id = localStorage.getItem(ANONYMOUS_ID);
    if (!id) {
      id = crypto.randomUUID();
      localStorage.setItem(ANONYMOUS_ID, id);
    }
    return id;
  }

  function visitor() {
    const identity = settings.identity || {};
    if (identity.identityToken && (identity.email || identity.contactId)) {
      return identity.email
        ? { email: identity.email, identityToken: identity.identityToken }
        : { contactId: identity.contactId, identityToken: identity.identityToken };
    }
    return { anonymousId: settings.anonymousId || anonymousId() };
  }

  function call(method, path, body) {
    return fetch(apiBase + path, {
      method: method,
      mode: 'cors',
      credentials: 'omit',
      headers: Object.assign(
        { 'X-Publishable-Key': settings.key },
        body ? { 'Content-Type': 'application/json' } : {},
      ),
      body: body ? JSON.stringify(body) : undefined,
    }).then((response) => {
      if (!response.ok) throw new Error(`Switchboard push: ${path} answered ${response.status}`);
      return response.json();
    });
  }

  function base64UrlToBytes(text) {
    const padded = (text + '==='.slice((text.length + 3) % 4)).replace(/-/g, '+').replace(/_/g, '/');
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  function isSupported() {
    return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
  }

  /** Kept for the service worker, which re-registers the browser on pushsubscriptionchange. */
  function remember(publicKey) {
    const config = { apiBase: apiBase, key: settings.key, publicKey: publicKey, visitor: visitor() };
    return caches
      .open(CONFIG_CACHE)
      .then((cache) =>
        cache.put(
          CONFIG_URL,
          new Response(JSON.stringify(config), { headers: { 'Content-Type': 'application/json' } }),
        ),
      );
  }

  function subscribe() {
    if (!settings) return Promise.reject(new Error('Switchboard.push.init({ key }) first'));
    if (!isSupported()) return Promise.resolve('unsupported');
    return Notification.requestPermission().then((permission) => {
      if (permission !== 'granted') return 'denied';
      return Promise.all([
        navigator.serviceWorker
          .register(settings.serviceWorker || '/sw.js')
          .then(() => navigator.serviceWorker.ready),
        call('GET', '/api/public/push/config'),
      ]).then((results) => {
        const registration = results[0];
        const publicKey = results[1].publicKey;
        return registration.pushManager
          .subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlToBytes(publicKey) })
          .then((subscription) =>
            call(
              'POST',
              '/api/public/push/subscriptions',
              Object.assign({ subscription: subscription.toJSON() }, visitor()),
            ),
          )
          .then(() => remember(publicKey))
          .then(() => 'subscribed');
      });
    });
  }

  window.Switchboard = window.Switchboard || {};
  window.Switchboard.push = {
    /** key: a publishable key; identity: { email | contactId, identityToken } from your backend;
     *  anonymousId: your own visitor id; serviceWorker: the path of your service worker (/sw.js). */
    init: (options) => {
      settings = Object.assign({}, options);
    },
    isSupported: isSupported,
    permission: () => (isSupported() ? Notification.permission : 'unsupported'),
    subscribe: subscribe,
  };
})();
