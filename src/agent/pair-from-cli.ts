import { formatPairingCode } from '../protocol/fingerprint';
import { isCountersignError } from '../protocol/errors';
import { Companion } from './companion';

/**
 * `<command> pair` of the package's commands (countersign-mcp, countersign-hook): connect, ask
 * Countersign to pair, print the code to type and the key fingerprint to check, and wait for the
 * person to confirm. Everything goes to stderr; returns the exit code.
 */
export async function pairFromCli(options: {
  /** The command's name, first on every error line. */
  command: string;
  /** What the command is, in "this <thing>'s key". */
  thing: string;
  agentName: string;
  configDir: string;
  env: Readonly<Record<string, string | undefined>>;
  stderr: { write(text: string): unknown };
  /** The line printed once paired: what to do next. */
  next: string;
}): Promise<number> {
  const { stderr } = options;
  let companion;
  try {
    companion = await Companion.connect({ agentName: options.agentName, configDir: options.configDir, env: options.env });
  } catch (error) {
    stderr.write(`${options.command}: could not reach Countersign: ${error instanceof Error ? error.message : String(error)}\nIs the browser with the Countersign extension open? Check with: countersign-bridge doctor\n`);
    return 1;
  }
  try {
    if (companion.paired) {
      stderr.write(`Already paired with Countersign (this ${options.thing}'s key: ${companion.fingerprint}).\n`);
      return 0;
    }
    const pairing = await companion.pair();
    stderr.write(
      `Countersign opened a window asking to pair "${options.agentName}".\n` +
        `Type this code there to confirm:  ${formatPairingCode(pairing.code)}\n` +
        `Check that the window shows the key fingerprint ${pairing.fingerprint}.\n`,
    );
    await pairing.confirmed;
    stderr.write(`${options.next}\n`);
    return 0;
  } catch (error) {
    stderr.write(`${options.command}: pairing did not complete: ${isCountersignError(error) ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await companion.close();
  }
}
