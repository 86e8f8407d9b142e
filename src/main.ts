import { ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { parseRoles, startService, type RunningService } from './service.js';

/**
 * Process entry (`npm start`): `--role api|projector|worker` (repeatable or comma-separated; all three by
 * default). SIGTERM/SIGINT drain and stop everything, then exit 0; a second signal exits at once.
 */
async function main(): Promise<void> {
  let logger: Logger | undefined;
  try {
    const config = loadConfig();
    const roles = parseRoles(process.argv.slice(2));
    logger = createLogger({ level: config.logLevel });
    const service = await startService({ config, logger, roles });
    if (!service.server && !service.projector) {
      // Only the worker role was asked for, and it has nothing to run yet: say so and end cleanly.
      logger.info('nothing long-running in this process; exiting');
      await service.stop();
      return;
    }
    handleShutdownSignals(service, logger);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
    } else if (logger) {
      logger.fatal({ err: error }, 'failed to start');
    } else {
      process.stderr.write(`failed to start: ${String(error)}\n`);
    }
    process.exit(1);
  }
}

function handleShutdownSignals(service: RunningService, logger: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.fatal({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

await main();
