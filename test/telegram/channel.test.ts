// PUT/GET/DELETE …/channels/telegram against the fake Bot API: the token checked with getMe and
// never shown again, the webhook set with a random secret, both sealed at rest, and removed again.
import { expect } from 'chai';
import { z } from 'zod';
import { parseConfig } from '../../src/config.ts';
import { sql } from '../../src/db/pool.ts';
import { expectProblem, workspaceWithAdmin } from '../support/factories.ts';
import { fakeBotApi } from '../support/fakeBotApi.ts';
import { server } from '../support/server.ts';

const SecretsRow = z.object({ secrets: z.record(z.string(), z.unknown()) });

describe('Telegram channel configuration', () => {
  it('checks the token with getMe, sets the webhook with a secret, and never shows the token', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const { token, bot } = fakeBotApi().addBot();
    const path = `/api/workspaces/${workspaceId}/channels/telegram`;
    const put = await client.put(path, { botToken: token });
    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.include({
      channel: 'telegram',
      botId: bot.id,
      botUsername: bot.username,
      tokenSet: true,
      webhookUrl: `http://localhost:3000/api/telegram/updates/${workspaceId}`,
    });
    const webhook = fakeBotApi().webhooks.get(token)!;
    expect(webhook.url).to.equal(put.body.webhookUrl);
    expect(webhook.secret_token).to.match(/^[A-Za-z0-9_-]{32,256}$/);
    expect(webhook.allowed_updates).to.deep.equal(['message', 'my_chat_member']);
    const got = await client.get(path);
    expect(got.status).to.equal(200);
    expect(got.body).to.deep.equal(put.body);
    for (const text of [put.text, got.text]) {
      expect(text).not.to.contain(token.split(':')[1]);
      expect(text).not.to.contain(webhook.secret_token);
    }
    const stored = await server().context.db.one(sql.type(SecretsRow)`
      select secrets from channel_configs where workspace_id = ${workspaceId} and channel = 'telegram'
    `);
    const sealed = JSON.stringify(stored.secrets);
    expect(Object.keys(stored.secrets).sort()).to.deep.equal(['botToken', 'webhookSecret']);
    expect(sealed).not.to.contain(token.split(':')[1]);
    expect(sealed).not.to.contain(webhook.secret_token);
  });

  it('a token Telegram refuses is a 400 naming botToken, and nothing is stored', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/api/workspaces/${workspaceId}/channels/telegram`;
    const refused = await client.put(path, { botToken: '123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expectProblem(refused, 400);
    expect(refused.body.errors[0].path).to.equal('body.botToken');
    expect(refused.body.errors[0].message).to.contain('401 Unauthorized');
    const malformed = await client.put(path, { botToken: 'not a token' });
    expectProblem(malformed, 400);
    expect(malformed.body.errors[0].path).to.equal('body.botToken');
    expect((await client.get(path)).status).to.equal(404);
  });

  it('a second PUT with another bot removes the first bot’s webhook; a new secret each time', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/api/workspaces/${workspaceId}/channels/telegram`;
    const first = fakeBotApi().addBot();
    expect((await client.put(path, { botToken: first.token })).status).to.equal(200);
    const firstSecret = fakeBotApi().webhooks.get(first.token)!.secret_token;
    const second = fakeBotApi().addBot();
    expect((await client.put(path, { botToken: second.token })).status).to.equal(200);
    expect(fakeBotApi().webhooks.has(first.token)).to.equal(false);
    expect(fakeBotApi().webhooks.get(second.token)!.secret_token).not.to.equal(firstSecret);
  });

  it('DELETE removes the webhook and the channel', async () => {
    const { client, workspaceId } = await workspaceWithAdmin();
    const path = `/api/workspaces/${workspaceId}/channels/telegram`;
    const { token } = fakeBotApi().addBot();
    expect((await client.put(path, { botToken: token })).status).to.equal(200);
    const removed = await client.delete(path);
    expect(removed.status, removed.text).to.equal(204);
    expect(fakeBotApi().webhooks.has(token)).to.equal(false);
    expect((await client.get(path)).status).to.equal(404);
    expect((await client.delete(path)).status).to.equal(404);
  });

  it('TELEGRAM_* settings are checked by name at start-up', () => {
    expect(() => parseConfig({ TELEGRAM_API_ROOT: 'ftp://bots.example' })).to.throw(
      /TELEGRAM_API_ROOT: must be an http/,
    );
    expect(() => parseConfig({ TELEGRAM_LINK_TTL_MS: '0' })).to.throw(/TELEGRAM_LINK_TTL_MS/);
    expect(parseConfig({ TELEGRAM_API_ROOT: 'http://127.0.0.1:8081/' }).TELEGRAM_API_ROOT).to.equal(
      'http://127.0.0.1:8081',
    );
  });
});
