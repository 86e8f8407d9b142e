import { ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { parseRoles, startService, type RunningService } from './service.js';

/**
 * A signal repeated within this long is the same request to stop: a terminal's Ctrl-C reaches both npm and
 * this process, and npm relays it once more.
 */
const REPEATED_SIGNAL_WINDOW_MS = 1_000;

/**
 * Process entry (`npm start`): `--role api|projector|worker` (repeatable or comma-separated; all three by
 * default). SIGTERM/SIGINT drain and stop everything within SHUTDOWN_TIMEOUT_MS, then exit: 0 when the stop
 * was clean, 1 when connections had to be cut, a step failed or the deadline passed. A second signal (after
 * REPEATED_SIGNAL_WINDOW_MS) exits at once with 1.
 */
async function main(): Promise<void> {
  let logger: Logger | undefined;
  try {
    const config = loadConfig();
    const roles = parseRoles(process.argv.slice(2));
    logger = createLogger({ level: config.logLevel });
    const service = await startService({ config, logger, roles });
    handleShutdownSignals(service, config.shutdownTimeoutMs, logger);
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

function handleShutdownSignals(service: RunningService, shutdownTimeoutMs: number, logger: Logger): void {
  let firstSignalAt: number | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== null) {
      if (performance.now() - firstSignalAt < REPEATED_SIGNAL_WINDOW_MS) return;
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    firstSignalAt = performance.now();
    logger.info({ signal, shutdownTimeoutMs }, 'shutting down');
    // The deadline holds even when a step after the HTTP drain hangs (a store that stopped answering).
    setTimeout(() => {
      logger.fatal({ shutdownTimeoutMs }, 'shutdown deadline passed before the stop finished; exiting');
      process.exit(1);
    }, shutdownTimeoutMs).unref();
    service.shutdown().then(
      (outcome) => process.exit(outcome.clean ? 0 : 1),
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
