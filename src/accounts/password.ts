// Password hashing with argon2id (Node 24's crypto.argon2) at OWASP's parameters: 19 MiB, t=2, p=1.
// Stored in PHC string form so parameters can be raised later without breaking old hashes.
// Every derivation goes through one bounded queue (hashingQueue.ts): argon2 runs on libuv's small
// thread pool, so unbounded hashing (a registration flood) would make every sign-in wait behind it.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { passwordHashing } from './hashingQueue.ts';

const PARAMETERS = { memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 };

function derive(password: string, nonce: Buffer, parameters: typeof PARAMETERS): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2('argon2id', { message: password, nonce, ...parameters }, (error, key) =>
      error ? reject(error) : resolve(Buffer.from(key)),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await passwordHashing().run('normal', () => derive(password, salt, PARAMETERS));
  const { memory, passes, parallelism } = PARAMETERS;
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

// Verified against when the e-mail is unknown, so both cases take the same time.
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
}
