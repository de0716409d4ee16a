import { holdStopSignals } from '../../process/stop-signals';
import { createS3Client } from '../../clients/aws';
import { getConfig } from '../../config';
import { startPlatformServices } from './services';

// The platform sandbox as a process of the stack (so a busy sandbox never slows the process that
// supervises the stack, a test runner among them); the events receiver is another (events/main.ts).
async function main() {
  const config = getConfig();
  const services = await startPlatformServices(config, createS3Client(config));
  process.stdout.write(`${JSON.stringify({ ready: true, sandboxUrl: services.sandboxUrl })}\n`);
  const stop = () => {
    services.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  const stops = holdStopSignals();
  void stops.requested.then(stop);
  stops.onRepeat(() => process.exit(130));
}

main().catch((e) => {
  process.stderr.write(`platform services failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
