import type { Command } from 'commander';
import { exitAfterwards, leaf, output, withRuntime, type JsonOption } from '../command.ts';
import { progressLogger, withHeartbeat } from '../io.ts';

/** `slipway configs …`: upkeep of the configuration values at rest, across every account. */
export function configsCommands(program: Command): void {
  const configs = program.command('configs').description('configuration values');
  leaf(configs, 'reencrypt', 're-seal every secret configuration value with the current data key')
    .addHelpText(
      'after',
      '\nRun it after `keys rotate-data` once every instance has restarted. When by_key lists only the current key,\nolder data keys may be removed from keys/data-keys.json.',
    )
    .action(async (o: JsonOption) => {
      const { progress } = progressLogger();
      progress('re-encrypting secret configuration values…');
      const result = await withRuntime((rt) => withHeartbeat(rt.services.configurations.reencryptSecrets(), (s) => progress(`still re-encrypting (${s} s)…`)));
      const remaining = Object.entries(result.by_key)
        .filter(([kid]) => kid !== result.current_key)
        .reduce((n, [, count]) => n + count, 0);
      output(
        o.json,
        result,
        `re-encrypted ${result.reencrypted} secret value(s) with ${result.current_key}` +
          (result.skipped ? `; ${result.skipped} changed meanwhile (run again)` : '') +
          (result.failed.length ? `; ${result.failed.length} could not be decrypted: ${result.failed.map((f) => f.id).join(', ')}` : '') +
          (remaining ? `; ${remaining} still under older keys` : '; no value uses an older key'),
      );
      if (result.failed.length) exitAfterwards(1);
    });
}
