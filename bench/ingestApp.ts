// The service's web process for bench/ingest.ts, on DATABASE_URL, reporting its port to the parent.

import { createContext, startWeb } from '../src/app/runtime.ts';
import { config } from '../src/config.ts';

const context = await createContext(config(), process.env.DATABASE_URL!, 'web');
const web = await startWeb(context, 0);
process.send?.({ port: web.port });
process.on('SIGTERM', () => process.exit(0));
