// Password hashes: argon2id in PHC string form, carrying the parameters each was made with, so a
// hash is checked with its own parameters whatever PASSWORD_HASH_MEMORY_KIB says now.
import { expect } from 'chai';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../src/accounts/password.ts';
import { OWASP_MEMORY_KIB } from '../../src/config.ts';

const PASSWORD = 'correct horse battery staple';
const PHC = /^\$argon2id\$v=19\$m=(\d+),t=2,p=1\$([\w-]{22})\$([\w-]{43})$/;

describe('accounts: password hashes', () => {
  it("makes argon2id hashes at OWASP's parameters, salted afresh each time", async () => {
    const first = await hashPassword(PASSWORD, OWASP_MEMORY_KIB);
    const second = await hashPassword(PASSWORD, OWASP_MEMORY_KIB);
    expect(first).to.match(PHC);
    expect(PHC.exec(first)?.[1]).to.equal('19456');
    expect(second).not.to.equal(first);
    expect(PHC.exec(second)?.[2]).not.to.equal(PHC.exec(first)?.[2]);
  });

  it('checks a hash with the memory it was made with, whatever the setting now', async () => {
    const cheap = await hashPassword(PASSWORD, 64);
    const owasp = await hashPassword(PASSWORD, OWASP_MEMORY_KIB);
    expect(PHC.exec(cheap)?.[1]).to.equal('64');
    expect(await verifyPassword(PASSWORD, cheap)).to.equal(true);
    expect(await verifyPassword(PASSWORD, owasp)).to.equal(true);
    expect(await verifyPassword(`${PASSWORD} `, cheap)).to.equal(false);
    expect(await verifyPassword(`${PASSWORD} `, owasp)).to.equal(false);
  });

  it('refuses a hash whose parameters, salt or digest were changed, and anything that is no hash', async () => {
    const hash = await hashPassword(PASSWORD, 64);
    expect(await verifyPassword(PASSWORD, hash.replace('m=64,', 'm=72,'))).to.equal(false);
    expect(await verifyPassword(PASSWORD, hash.replace(',t=2,', ',t=3,'))).to.equal(false);
    const [, , , , salt, digest] = hash.split('$');
    const other = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
    expect(await verifyPassword(PASSWORD, hash.replace(salt, other(salt)))).to.equal(false);
    expect(await verifyPassword(PASSWORD, hash.replace(digest, other(digest)))).to.equal(false);
    for (const stored of ['', PASSWORD, hash.replace('argon2id', 'argon2i'), `${hash}$x`]) {
      expect(await verifyPassword(PASSWORD, stored), stored).to.equal(false);
    }
  });

  it('keeps a dummy hash per memory setting, so an unknown email costs what a known one does', async () => {
    const cheap = await dummyPasswordHash(64);
    expect(PHC.exec(cheap)?.[1]).to.equal('64');
    expect(await dummyPasswordHash(64)).to.equal(cheap);
    expect(PHC.exec(await dummyPasswordHash(128))?.[1]).to.equal('128');
  });
});
