import { ConfigError, loadConfig, type Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';

const EXIT_USAGE = 2;

/**
 * The shape every operator command shares: parse the arguments, then the configuration (a bad one is a
 * usage error, reported on stderr), then run with a logger; a failure is logged once and exits 1.
 */
export async function runCli<Arguments>(command: {
  name: string;
  usage: string;
  parse(argv: readonly string[]): Arguments | { error: string };
  run(config: Config, parsed: Arguments, logger: Logger): Promise<void>;
  failure: string;
}): Promise<number> {
  const parsed = command.parse(process.argv.slice(2));
  if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
    process.stderr.write(`${parsed.error}\n${command.usage}\n`);
    return EXIT_USAGE;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return EXIT_USAGE;
  }
  const logger = createLogger({ level: config.logLevel }).child({ component: command.name });
  try {
    await command.run(config, parsed as Arguments, logger);
    return 0;
  } catch (error) {
    logger.fatal({ err: error }, command.failure);
    return 1;
  }
}
