// API key format: `sb_` + 32 random bytes (base64url, 43 chars) + a 6-character base62 CRC-32
// checksum of what precedes it. Secret scanners can recognise the shape, and the server rejects a
// mistyped key without a database round-trip. Only the SHA-256 of the whole key is stored.
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = /^sb_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/;

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), 6);
}

export function generateApiKey(): string {
  const body = `sb_${randomBytes(32).toString('base64url')}`;
  return body + checksum(body);
}

export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_SHAPE.test(key)) return false;
  return checksum(key.slice(0, -6)) === key.slice(-6);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function keyDisplayParts(key: string): { prefix: string; last4: string } {
  return { prefix: key.slice(0, 7), last4: key.slice(-4) };
}

export function maskKey(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}
