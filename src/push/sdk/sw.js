/*
 * Switchboard web push: the service worker part. Your site's own service worker loads it with
 *   importScripts('https://YOUR-SWITCHBOARD/sdk/sw.js');
 * It shows Switchboard's notifications, acknowledges their delivery and clicks (with the
 * message's signed token), opens the message's URL on click, and re-registers the browser when
 * the push service replaces its subscription. Pushes that are not Switchboard's are left alone.
 */
(() => {
  const CONFIG_CACHE = 'switchboard-push';
  const CONFIG_URL = '/__switchboard/push-config';

  function ack(data, event) {
    if (!data?.ackUrl || !data.ackToken) return Promise.resolve();
    return fetch(data.ackUrl, {
      method: 'POST',
      mode: 'cors',
      credentials: 'omit',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: data.ackToken, event: event }),
    }).catch(() => undefined);
  }

  function parse(event) {
    try {
      return event.data ? event.data.json() : null;
    } catch (_error) {
      return null;
    }
  }

  self.addEventListener('push', (event) => {
    const data = parse(event);
    if (!data?.messageId || !data.ackToken) return;
    const options = {
      body: data.body || '',
      tag: data.messageId,
      data: {
        switchboard: true,
        messageId: data.messageId,
        url: data.url,
        ackUrl: data.ackUrl,
        ackToken: data.ackToken,
      },
    };
    if (data.icon) options.icon = data.icon;
    // userVisibleOnly: every push must show a notification before the handler's promise settles.
    event.waitUntil(
      Promise.all([self.registration.showNotification(data.title || '', options), ack(data, 'delivered')]),
    );
  });

  self.addEventListener('notificationclick', (event) => {
    const data = event.notification.data;
    if (!data?.switchboard) return;
    event.notification.close();
    const open = data.url && /^https?:\/\//i.test(data.url) ? self.clients.openWindow(data.url) : null;
    event.waitUntil(Promise.all([ack(data, 'clicked'), open]));
  });

  /** What /sdk/push.js stored when the page subscribed: where to post, with which key and identity. */
  function storedConfig() {
    return caches
      .open(CONFIG_CACHE)
      .then((cache) => cache.match(CONFIG_URL))
      .then((response) => (response ? response.json() : null));
  }

  function base64UrlToBytes(text) {
    const padded = (text + '==='.slice((text.length + 3) % 4)).replace(/-/g, '+').replace(/_/g, '/');
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  self.addEventListener('pushsubscriptionchange', (event) => {
    event.waitUntil(
      storedConfig().then((config) => {
        if (!config) return undefined;
        const renewed = event.newSubscription
          ? Promise.resolve(event.newSubscription)
          : self.registration.pushManager.subscribe({
              userVisibleOnly: true,
              applicationServerKey: base64UrlToBytes(config.publicKey),
            });
        return renewed.then((subscription) =>
          fetch(`${config.apiBase}/api/public/push/subscriptions`, {
            method: 'POST',
            mode: 'cors',
            credentials: 'omit',
            headers: { 'Content-Type': 'application/json', 'X-Publishable-Key': config.key },
            body: JSON.stringify(Object.assign({ subscription: subscription.toJSON() }, config.visitor)),
          }),
        );
      }),
    );
  });
})();
