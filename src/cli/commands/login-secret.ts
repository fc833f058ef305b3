import { CliError, EXIT, usageError } from '../errors.js';

/** Reads everything piped to stdin, trimmed: `printf %s "$SECRET" | memory login --client-secret-stdin`. */
export async function readSecretFromStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const secret = Buffer.concat(chunks).toString('utf8').trim();
  if (secret === '') throw usageError('--client-secret-stdin read an empty secret.', 'pipe the secret in: printf %s "$SECRET" | memory login --client-secret-stdin ...');
  return secret;
}

const ENTER = new Set(['\r', '\n']);
const ERASE = new Set(['\u007f', '\b']);

/**
 * Asks for the secret on the terminal without echoing it. Only called when stdin is a terminal: a pipe or a CI job
 * is never prompted, it gets an error saying how to pass the secret.
 */
export async function promptSecret(question: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WritableStream = process.stderr): Promise<string> {
  output.write(question);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  let secret = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (text: string) => {
        for (const char of text) {
          if (ENTER.has(char)) {
            input.off('data', onData);
            return resolve();
          }
          if (char === '\u0003' || char === '\u0004') {
            input.off('data', onData);
            return reject(new CliError('Sign-in cancelled.', { exitCode: EXIT.auth }));
          }
          secret = ERASE.has(char) ? secret.slice(0, -1) : secret + char;
        }
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
    output.write('\n');
  }
  if (secret.trim() === '') throw usageError('No client secret was entered.');
  return secret.trim();
}
