import { packageVersion } from '../contract/package-info.js';

const args = process.argv.slice(2);
// Asked for on every start of an editor's MCP entry and by scripts: answered before commander and the command
// table load, so it costs little more than starting node.
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${packageVersion()}\n`);
} else {
  const { runCli } = await import('./run.js');
  const exitCode = await runCli(process.argv);
  if (exitCode !== 0) process.exitCode = exitCode;
}
