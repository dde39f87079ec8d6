import { startEmbeddedDatabase } from './src/db/embedded.ts';
const db = await startEmbeddedDatabase({ dataDir: '/tmp/xpg/data', port: 55777, persistent: true,
  settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'] });
console.log('URL', db.url);
process.on('SIGTERM', async () => { await db.stop(); process.exit(0); });
setInterval(() => {}, 1 << 30);
