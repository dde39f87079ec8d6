// One keep-alive HTTPS agent per process for every push service: connections to FCM, Mozilla and
// Apple are reused across sends. PUSH_CA_FILE adds authorities (a local push service) to the usual ones.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import type { Config } from '../../config.ts';

let current: { caFile: string | undefined; agent: https.Agent } | undefined;

export function pushAgent(config: Pick<Config, 'PUSH_CA_FILE'>): https.Agent {
  if (current && current.caFile === config.PUSH_CA_FILE) return current.agent;
  current?.agent.destroy();
  const caFile = config.PUSH_CA_FILE;
  const ca = caFile ? [...rootCertificates, readFileSync(caFile, 'utf8')] : undefined;
  const agent = new https.Agent({ keepAlive: true, maxSockets: 50, ca });
  current = { caFile, agent };
  return agent;
}

/** Closes the pooled connections (graceful shutdown). */
export async function closePushAgent(): Promise<void> {
  current?.agent.destroy();
  current = undefined;
}
