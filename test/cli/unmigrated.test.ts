// The CLI pointed at a database that is not the service's (most often a fresh embedded one, because
// DATA_DIR or EMBEDDED_PG_PORT was left out) says so and what to do, instead of raw SQL.
import { expect } from 'chai';
import pg from 'pg';
import { runCli } from '../support/cli.ts';
import { server } from '../support/server.ts';

describe('CLI on a database without Switchboard tables', () => {
  const name = `switchboard_empty_${process.pid}`;
  let emptyUrl = '';

  before(async () => {
    const admin = new pg.Client({ connectionString: server().databaseUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(server().databaseUrl);
    url.pathname = `/${name}`;
    emptyUrl = url.toString();
  });

  it('names the settings that find the service’s database, and migrate', async function () {
    this.timeout(60_000);
    const run = await runCli(['workspaces', 'list'], { env: { DATABASE_URL: emptyUrl } });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain('this database has no Switchboard tables');
    expect(run.stderr).to.contain('DATA_DIR, EMBEDDED_PG_PORT or DATABASE_URL');
    expect(run.stderr).to.contain('switchboard migrate');
  });
});
