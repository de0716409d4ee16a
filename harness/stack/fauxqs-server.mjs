// Local S3 + SQS for the dev stack and tests. fauxqs's own startFauxqs() binds 0.0.0.0 (its `host`
// option only names the host in the URLs it returns); this launcher builds the same app through the
// package's public buildApp() and binds loopback only. Usage: node harness/stack/fauxqs-server.mjs <port>
import { buildApp } from 'fauxqs';

const port = Number(process.argv[2] ?? process.env.FAUXQS_PORT ?? 4566);
const app = buildApp({
  logger: false,
  host: '127.0.0.1',
  defaultRegion: process.env.FAUXQS_DEFAULT_REGION,
});
const address = await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(JSON.stringify({ ready: true, address }) + '\n');
const stop = () => app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
