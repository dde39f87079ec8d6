// Password hashing with argon2id (Node 24's crypto.argon2) at OWASP's parameters: 19 MiB, t=2, p=1.
// Stored in PHC string form, parameters included, so a hash is checked with the parameters it was
// made with: raising them later, or a test run's cheaper memory (PASSWORD_HASH_MEMORY_KIB, refused
// below OWASP's in production), breaks no stored hash.
// Every derivation goes through one bounded queue (hashingQueue.ts): argon2 runs on libuv's small
// thread pool, so unbounded hashing (a registration flood) would make every sign-in wait behind it.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { passwordHashing } from './hashingQueue.ts';

const PARAMETERS = { passes: 2, parallelism: 1, tagLength: 32 };

type Parameters = typeof PARAMETERS & { memory: number };

function derive(password: string, nonce: Buffer, parameters: Parameters): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2('argon2id', { message: password, nonce, ...parameters }, (error, key) =>
      error ? reject(error) : resolve(Buffer.from(key)),
    );
  });
}

/** A new hash of `password`, its derivation holding `memoryKib` (PASSWORD_HASH_MEMORY_KIB). */
export async function hashPassword(password: string, memoryKib: number): Promise<string> {
  const salt = randomBytes(16);
  const parameters = { ...PARAMETERS, memory: memoryKib };
  const hash = await passwordHashing().run('normal', () => derive(password, salt, parameters));
  const { memory, passes, parallelism } = parameters;
  return `$argon2id$v=19$m=${memory},t=${passes},p=${parallelism}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([\w-]+)\$([\w-]+)$/.exec(stored);
  if (!match) return false;
  const expected = Buffer.from(match[5], 'base64url');
  // Checking a password is what a waiting person needs now: it goes ahead of new hashes.
  const actual = await passwordHashing().run('urgent', () =>
    derive(password, Buffer.from(match[4], 'base64url'), {
      memory: Number(match[1]),
      passes: Number(match[2]),
      parallelism: Number(match[3]),
      tagLength: expected.length,
    }),
  );
  return timingSafeEqual(actual, expected);
}

// Verified against when the e-mail is unknown, so both cases take the same time: made with the
// memory new hashes get, which is what a known user's hash costs once the setting has settled.
const dummyHashes = new Map<number, Promise<string>>();
export function dummyPasswordHash(memoryKib: number): Promise<string> {
  let hash = dummyHashes.get(memoryKib);
  if (!hash) {
    hash = hashPassword(randomBytes(16).toString('hex'), memoryKib);
    dummyHashes.set(memoryKib, hash);
  }
  return hash;
}
