import { homedir } from 'node:os';
import { runCli, type UnreadableDirectory } from './run-cli.js';

/** process.cwd(), or why it cannot be read: a removed directory makes Node throw (uv_cwd), and runCli says so plainly. */
function workingDirectory(): string | UnreadableDirectory {
  try {
    return process.cwd();
  } catch (error) {
    return { unreadable: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
}

/** The process edge: signals, broken pipes, exit code. Everything else is in runCli. */
async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts += 1;
    // A second Ctrl-C means "now": exit without waiting for the abort to unwind.
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // `ferry … | head`: a closed stdout ends the process quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  const code = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: workingDirectory(),
    homeDir: homedir(),
    euid: process.geteuid?.(),
    signal: controller.signal,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    // performance.now() counts from the process's start (its timeOrigin).
    startupMs: () => performance.now(),
  });
  process.exitCode = controller.signal.aborted && code !== 0 ? 130 : code;
}

await main();
