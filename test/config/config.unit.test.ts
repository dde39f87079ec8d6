// Configuration parsing: a unit of our own, called directly with environments.
import { expect } from 'chai';
import { ConfigError, configWarnings, parseConfig } from '../../src/config.ts';

function failure(environment: NodeJS.ProcessEnv): string {
  try {
    parseConfig(environment);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

const SECRET = 's'.repeat(32);
const KEY = 'a'.repeat(64); // 32 bytes in hex: production needs ENCRYPTION_KEY too

describe('configuration', () => {
  it('has working defaults for development', () => {
    const config = parseConfig({});
    expect(config).to.include({
      NODE_ENV: 'development',
      PORT: 3000,
      DATA_DIR: '.data',
      SESSION_IDLE_TIMEOUT_MS: 24 * 3_600_000,
      SESSION_ABSOLUTE_TIMEOUT_MS: 14 * 24 * 3_600_000,
      trustProxy: false,
    });
    expect(config.DATABASE_URL).to.equal(undefined);
  });

  it('names the variable and the problem for each bad value', () => {
    const cases: [NodeJS.ProcessEnv, RegExp][] = [
      [{ PORT: 'eighty' }, /PORT: /],
      [{ PORT: '70000' }, /PORT: /],
      [{ DATABASE_URL: 'mysql://localhost/db' }, /DATABASE_URL: /],
      [{ NODE_ENV: 'staging' }, /NODE_ENV: /],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL: /],
      [{ SESSION_SECRET: 'short' }, /SESSION_SECRET: must be at least 32 characters/],
      [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY: /],
      [{ SESSION_IDLE_TIMEOUT_MS: '0' }, /SESSION_IDLE_TIMEOUT_MS: /],
      [{ SIGNIN_MAX_FAILURES_PER_EMAIL: '-1' }, /SIGNIN_MAX_FAILURES_PER_EMAIL: /],
      [{ WEBHOOK_RETRY_SCHEDULE: '1,x' }, /WEBHOOK_RETRY_SCHEDULE: must be comma-separated whole seconds/],
    ];
    for (const [environment, expected] of cases) expect(failure(environment)).to.match(expected);
  });

  it('says what each variable expects, in words, naming it', () => {
    const cases: [NodeJS.ProcessEnv, string][] = [
      [{ PORT: 'abc' }, 'PORT: must be a whole number from 0 to 65535'],
      [{ PORT: '80.5' }, 'PORT: must be a whole number from 0 to 65535'],
      [{ DATABASE_POOL_SIZE: '1e3' }, 'DATABASE_POOL_SIZE: must be a whole number from 1 to 200'],
      [
        { SHUTDOWN_TIMEOUT_MS: '-5' },
        'SHUTDOWN_TIMEOUT_MS: must be a whole number of milliseconds of at least 1',
      ],
      [
        { DATABASE_STATEMENT_TIMEOUT_MS: 'soon' },
        'DATABASE_STATEMENT_TIMEOUT_MS: must be a whole number of milliseconds',
      ],
      [
        { DATABASE_ACQUIRE_TIMEOUT_MS: '0' },
        'DATABASE_ACQUIRE_TIMEOUT_MS: must be a whole number of milliseconds',
      ],
      [
        { DATABASE_CONNECT_TIMEOUT_MS: '1s' },
        'DATABASE_CONNECT_TIMEOUT_MS: must be a whole number of milliseconds',
      ],
      [
        { SEGMENT_REFRESH_CRON: 'every minute' },
        'SEGMENT_REFRESH_CRON: must be a cron expression of five fields',
      ],
      [{ SEGMENT_REFRESH_CRON: '61 * * * *' }, 'SEGMENT_REFRESH_CRON: must be a cron expression'],
      [{ SEGMENT_REFRESH_CRON: '* * * * * *' }, 'SEGMENT_REFRESH_CRON: must be a cron expression'],
      [{ NODE_ENV: 'staging' }, 'NODE_ENV: must be one of development, test, production'],
      [{ WEBHOOK_ALLOW_HTTP: 'maybe' }, 'WEBHOOK_ALLOW_HTTP: must be true or false'],
      [
        { WEBHOOK_DISABLE_AFTER_MS: 'never' },
        'WEBHOOK_DISABLE_AFTER_MS: must be a whole number of milliseconds',
      ],
      [{ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL: must be a postgres:// or postgresql:// URL'],
      [{ PUBLIC_URL: 'switchboard.example.com' }, 'PUBLIC_URL: must be an http:// or https:// URL'],
    ];
    for (const [environment, expected] of cases) expect(failure(environment)).to.contain(expected);
  });

  it('accepts valid cron expressions and numbers with surrounding spaces', () => {
    expect(parseConfig({ SEGMENT_REFRESH_CRON: '*/5 * * * *' }).SEGMENT_REFRESH_CRON).to.equal('*/5 * * * *');
    expect(parseConfig({ PORT: ' 8080 ' }).PORT).to.equal(8080);
    expect(parseConfig({ WEBHOOK_DISABLE_AFTER_MS: '43200000' }).WEBHOOK_DISABLE_AFTER_MS).to.equal(
      43_200_000,
    );
    expect(parseConfig({}).DATABASE_STATEMENT_TIMEOUT_MS).to.be.a('number');
  });

  it('bounds a query client-side past the statement timeout, and refuses a bound that would cut first', () => {
    expect(parseConfig({}).DATABASE_QUERY_TIMEOUT_MS).to.equal(15_000 + 2_000);
    expect(parseConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '30000' }).DATABASE_QUERY_TIMEOUT_MS).to.equal(
      32_000,
    );
    expect(parseConfig({ DATABASE_QUERY_TIMEOUT_MS: '20000' }).DATABASE_QUERY_TIMEOUT_MS).to.equal(20_000);
    expect(failure({ DATABASE_QUERY_TIMEOUT_MS: '15000' })).to.contain(
      'DATABASE_QUERY_TIMEOUT_MS: must be longer than DATABASE_STATEMENT_TIMEOUT_MS (15000)',
    );
    expect(failure({ DATABASE_QUERY_TIMEOUT_MS: 'soon' })).to.contain(
      'DATABASE_QUERY_TIMEOUT_MS: must be a whole number of milliseconds',
    );
  });

  it('lists every bad variable at once', () => {
    const message = failure({ PORT: 'x', LOG_LEVEL: 'loud' });
    expect(message)
      .to.match(/PORT/)
      .and.match(/LOG_LEVEL/);
  });

  it('requires SESSION_SECRET in production', () => {
    expect(failure({ NODE_ENV: 'production' })).to.contain('SESSION_SECRET: required in production');
    expect(
      parseConfig({ NODE_ENV: 'production', SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY }).SESSION_SECRET,
    ).to.equal(SECRET);
  });

  it('trusts the proxy in production by default (Heroku’s router), and lets TRUST_PROXY decide', () => {
    expect(
      parseConfig({ NODE_ENV: 'production', SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY }).trustProxy,
    ).to.equal(true);
    expect(
      parseConfig({
        NODE_ENV: 'production',
        SESSION_SECRET: SECRET,
        ENCRYPTION_KEY: KEY,
        TRUST_PROXY: 'false',
      }).trustProxy,
    ).to.equal(false);
    expect(parseConfig({ TRUST_PROXY: 'yes' }).trustProxy).to.equal(true);
  });

  it('treats empty strings as unset', () => {
    const config = parseConfig({ PORT: '', DATABASE_URL: '' });
    expect(config.PORT).to.equal(3000);
    expect(config.DATABASE_URL).to.equal(undefined);
  });

  it('accepts postgres:// and postgresql:// URLs', () => {
    for (const url of ['postgres://u:p@db.example.com:5432/app', 'postgresql://u:p@localhost/app']) {
      expect(parseConfig({ DATABASE_URL: url }).DATABASE_URL).to.equal(url);
    }
  });
});

describe('outbound targets and secrets at rest', () => {
  it('requires ENCRYPTION_KEY in production and names a malformed one', () => {
    const production = { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32) };
    expect(failure(production)).to.contain('ENCRYPTION_KEY: required in production');
    expect(
      parseConfig({ ...production, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).ENCRYPTION_KEY,
    ).to.have.length(1);
    expect(failure({ ENCRYPTION_KEY: 'too-short' })).to.contain('ENCRYPTION_KEY: must be 32 bytes');
  });
  it('ALLOW_PRIVATE_TARGETS governs every target, WEBHOOK_ALLOW_PRIVATE_TARGETS is its old name', () => {
    expect(parseConfig({}).ALLOW_PRIVATE_TARGETS).to.equal(false);
    const viaOldName = parseConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    expect(viaOldName.ALLOW_PRIVATE_TARGETS).to.equal(true);
    const newWins = parseConfig({ ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    expect(newWins.ALLOW_PRIVATE_TARGETS).to.equal(false);
    const production = { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32), ENCRYPTION_KEY: KEY };
    expect(failure({ ...production, ALLOW_PRIVATE_TARGETS: 'true' })).to.contain(
      'ALLOW_PRIVATE_TARGETS: may not be true',
    );
    expect(failure({ ...production, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes' })).to.contain(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS (now ALLOW_PRIVATE_TARGETS): may not be true',
    );
  });

  it('reads SMTP_ALLOWED_HOSTS as a comma-separated, case-insensitive list', () => {
    expect(
      parseConfig({ SMTP_ALLOWED_HOSTS: ' Relay.internal ,10.0.0.5,[fd00::1]' }).SMTP_ALLOWED_HOSTS,
    ).to.deep.equal(['relay.internal', '10.0.0.5', 'fd00::1']);
  });
});

describe('configuration: password hashing', () => {
  it("keeps OWASP's argon2id memory by default, and allows less only outside production", () => {
    const production = { NODE_ENV: 'production', SESSION_SECRET: SECRET, ENCRYPTION_KEY: KEY };
    expect(parseConfig({}).PASSWORD_HASH_MEMORY_KIB).to.equal(19_456);
    expect(parseConfig(production).PASSWORD_HASH_MEMORY_KIB).to.equal(19_456);
    expect(
      parseConfig({ NODE_ENV: 'test', PASSWORD_HASH_MEMORY_KIB: '64' }).PASSWORD_HASH_MEMORY_KIB,
    ).to.equal(64);
    expect(
      parseConfig({ ...production, PASSWORD_HASH_MEMORY_KIB: '65536' }).PASSWORD_HASH_MEMORY_KIB,
    ).to.equal(65_536);
    expect(failure({ ...production, PASSWORD_HASH_MEMORY_KIB: '19455' })).to.contain(
      'PASSWORD_HASH_MEMORY_KIB: may not be below 19456 in production',
    );
    // argon2 itself needs 8 KiB per lane; a GiB per derivation is past any sensible setting.
    for (const value of ['7', '1048577', '19.5', 'lots']) {
      expect(failure({ PASSWORD_HASH_MEMORY_KIB: value }), value).to.contain(
        'PASSWORD_HASH_MEMORY_KIB: must be a whole number of KiB from 8 to 1048576',
      );
    }
  });
});

describe('configuration: deprecated names', () => {
  it('reads a duration under its old name, converted to milliseconds, with one warning', () => {
    const environment = { SESSION_IDLE_TIMEOUT_MINUTES: '30', RETENTION_EVENTS_DAYS: '365' };
    const config = parseConfig(environment);
    expect(config.SESSION_IDLE_TIMEOUT_MS).to.equal(30 * 60_000);
    expect(config.RETENTION_EVENTS_MS).to.equal(365 * 86_400_000);
    expect(configWarnings(environment)).to.deep.equal([
      'SESSION_IDLE_TIMEOUT_MINUTES is deprecated: use SESSION_IDLE_TIMEOUT_MS (30 minutes is SESSION_IDLE_TIMEOUT_MS=1800000)',
      'RETENTION_EVENTS_DAYS is deprecated: use RETENTION_EVENTS_MS (365 days is RETENTION_EVENTS_MS=31536000000)',
    ]);
  });

  it('lets the new name win when both are set, and warns', () => {
    const environment = { JOB_SUPERVISE_SECONDS: '5', JOB_SUPERVISE_MS: '2000' };
    expect(parseConfig(environment).JOB_SUPERVISE_MS).to.equal(2_000);
    expect(configWarnings(environment)).to.deep.equal([
      'JOB_SUPERVISE_SECONDS and JOB_SUPERVISE_MS are both set: JOB_SUPERVISE_MS wins; remove JOB_SUPERVISE_SECONDS',
    ]);
  });

  it('names the old variable when its value is wrong', () => {
    expect(failure({ PUSH_TTL_SECONDS: 'a day' })).to.contain(
      'PUSH_TTL_SECONDS: must be a number of seconds (it is now PUSH_TTL_MS, in milliseconds)',
    );
    expect(failure({ TELEGRAM_LINK_TTL_MINUTES: '0' })).to.contain(
      'TELEGRAM_LINK_TTL_MINUTES (now TELEGRAM_LINK_TTL_MS): ',
    );
  });

  it('keeps WEBHOOK_ALLOW_PRIVATE_TARGETS as the old name of ALLOW_PRIVATE_TARGETS', () => {
    expect(configWarnings({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).to.deep.equal([
      'WEBHOOK_ALLOW_PRIVATE_TARGETS is deprecated: use ALLOW_PRIVATE_TARGETS',
    ]);
    expect(configWarnings({})).to.deep.equal([]);
  });
});
