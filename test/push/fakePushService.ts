// A local push service over HTTPS (certificate from a test CA the service trusts through
// PUSH_CA_FILE), receiving what web-push sends as FCM or Mozilla would: it decrypts the aes128gcm
// body with the browser's keys (made in Node, as PushManager.subscribe makes them) and verifies
// the VAPID JWT (RFC 8292: aud, exp, ES256 signature under the `k` key). Each subscription answers
// what the test asks: 201 (default), 410, or 429 with Retry-After.
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

export type BrowserKeys = { ecdh: crypto.ECDH; auth: Buffer };

export type BrowserSubscription = {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
};

export type VapidClaims = { aud: string; exp: number; sub: string };

export type Received = {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  vapid: { claims: VapidClaims; publicKey: string; signatureValid: boolean };
};

type Answer = { status: number; headers?: Record<string, string> };

export type FakePushService = {
  origin: string;
  received: Received[];
  /** A browser: its keys (kept to decrypt) and the subscription the page would post. */
  browser: (name?: string) => { keys: BrowserKeys; subscription: BrowserSubscription };
  answer: (endpoint: string, answer: Answer) => void;
  decrypt: (received: Received, keys: BrowserKeys) => unknown;
  close: () => Promise<void>;
};

/** RFC 8291 + RFC 8188, one record: what a browser does with the body. */
export function decryptAes128gcm(body: Buffer, { ecdh, auth }: BrowserKeys): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20];
  const serverKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  if (record.length > recordSize) throw new Error('more than one record');
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), serverKey]);
  const ikm = Buffer.from(crypto.hkdfSync('sha256', ecdh.computeSecret(serverKey), auth, info, 32));
  const cek = Buffer.from(
    crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
  );
  const nonce = Buffer.from(
    crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12),
  );
  const decipher = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(-16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, -16)), decipher.final()]);
  let end = plain.length - 1;
  while (plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error('bad padding delimiter');
  return plain.subarray(0, end);
}

/** `Authorization: vapid t=<JWT>, k=<key>`: the claims, the key and whether the key signed them. */
export function verifyVapid(authorization: string) {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization);
  if (!match) throw new Error(`not a VAPID Authorization header: ${authorization}`);
  const [, jwt, publicKey] = match;
  const [header, payload, signature] = jwt.split('.');
  const raw = Buffer.from(publicKey, 'base64url');
  const key = crypto.createPublicKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33, 65).toString('base64url'),
    },
  });
  const signatureValid = crypto.verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as VapidClaims;
  return { claims, publicKey, signatureValid };
}

export async function startFakePushService(): Promise<FakePushService> {
  const received: Received[] = [];
  const answers = new Map<string, Answer>();
  const server = https.createServer(
    { key: fixture('server-key.pem'), cert: fixture('server.pem') },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '';
        received.push({
          path,
          headers: req.headers,
          body: Buffer.concat(chunks),
          vapid: verifyVapid(String(req.headers.authorization)),
        });
        const answer = answers.get(path) ?? { status: 201, headers: { Location: `${origin}/m${path}` } };
        res.writeHead(answer.status, answer.headers).end();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let count = 0;
  return {
    origin,
    received,
    browser: (name = `sub-${++count}-${crypto.randomUUID()}`) => {
      const ecdh = crypto.createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = crypto.randomBytes(16);
      return {
        keys: { ecdh, auth },
        subscription: {
          endpoint: `${origin}/push/${name}`,
          expirationTime: null,
          keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
        },
      };
    },
    answer: (endpoint, answer) => answers.set(new URL(endpoint).pathname, answer),
    decrypt: (message, keys) => JSON.parse(decryptAes128gcm(message.body, keys).toString('utf8')),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
