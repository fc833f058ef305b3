import { HttpProblem, invalidRequest } from '../server/problem.js';

/** A file refused at a line: the 400 names the line and the reason, so the operator can fix the file. */
export function malformed(line: number, reason: string): HttpProblem {
  return invalidRequest(
    [{ name: 'body', in: 'body', reason: `line ${line}: ${reason}` }],
    `The file is malformed at line ${line}: ${reason}. Nothing of it was imported.`,
  );
}

/** A file over the import cap: 413, with the cap in the sentence. */
export function tooLarge(maxBytes: number): HttpProblem {
  return new HttpProblem('payload-too-large', `The file is over ${Math.round(maxBytes / (1024 * 1024))} MB, the most one import takes.`);
}
