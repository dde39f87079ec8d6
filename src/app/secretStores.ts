// Every table that holds sealed secrets (each feature's `secretStores`) and what is done to all of
// them: `switchboard secrets rotate-key`.
import type { Command } from 'commander';
import { print, run, withDatabase } from '../cli/context.ts';
import type { Db } from '../db/pool.ts';
import { currentKeyRing, type SecretStore } from '../secrets/index.ts';
import { FEATURES, foundationsFirst } from './features.ts';

function allSecretStores(): SecretStore[] {
  return foundationsFirst(FEATURES).flatMap((feature) => feature.secretStores ?? []);
}

export type RotationReport = { keyId: string; stores: { name: string; resealed: number; left: number }[] };

/**
 * Re-seals every secret under the current key (the first of ENCRYPTION_KEY), in batches of one
 * short transaction each, so the service keeps running meanwhile. Stateless, so an interrupted run
 * is resumed by running it again: it finds only what is still under another key.
 */
export async function rotateKey(
  db: Db,
  batchSize: number,
  progress: (store: string, resealed: number) => void = () => {},
): Promise<RotationReport> {
  const stores: RotationReport['stores'] = [];
  for (const store of allSecretStores()) {
    let resealed = 0;
    for (;;) {
      const done = await store.resealBatch(db, batchSize);
      resealed += done;
      if (done > 0) progress(store.name, resealed);
      if (done < batchSize) break;
    }
    stores.push({ name: store.name, resealed, left: await store.countStale(db) });
  }
  return { keyId: currentKeyRing().current.id, stores };
}

export function installSecretCommands(program: Command): void {
  const secrets = program.command('secrets').description('secrets at rest (ENCRYPTION_KEY)');
  secrets
    .command('rotate-key')
    .description(
      're-encrypt every stored secret under the first key of ENCRYPTION_KEY (online, in batches; run again to resume)',
    )
    .option('--batch-size <n>', 'rows per transaction', '100')
    .option('--json', 'machine-readable output')
    .action(
      run(async (options: { batchSize: string; json?: boolean }) => {
        const batchSize = Number(options.batchSize);
        if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
          throw new Error('--batch-size: must be a whole number from 1 to 10000');
        const report = await withDatabase(({ db }) =>
          rotateKey(db, batchSize, (store, resealed) =>
            process.stderr.write(`${store}: ${resealed} re-encrypted\n`),
          ),
        );
        print(!!options.json, report, () => rotationText(report));
        if (report.stores.some((store) => store.left > 0)) process.exitCode = 1;
      }),
    );
}

function rotationText(report: RotationReport): string {
  const lines = report.stores.map(
    (store) => `${store.name}: ${store.resealed} re-encrypted, ${store.left} left under other keys`,
  );
  const left = report.stores.some((store) => store.left > 0);
  lines.push(
    left
      ? 'some secrets are still under other keys (changed meanwhile?): run rotate-key again'
      : `every secret is encrypted under key ${report.keyId}: the other keys may now be removed from ENCRYPTION_KEY`,
  );
  return lines.join('\n');
}
