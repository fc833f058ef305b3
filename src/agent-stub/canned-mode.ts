import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { lastUserMessage, type Responder } from './responder.js';

const CannedRule = z.union([
  z.strictObject({ contains: z.string().min(1), reply: z.string() }),
  z.strictObject({ pattern: z.string().min(1), flags: z.string().regex(/^[imsu]*$/).optional(), reply: z.string() }),
]);

/** The canned-replies file: rules tried in order against the last user message, and a reply when none match. */
export const CannedFile = z.strictObject({
  replies: z.array(CannedRule),
  default: z.string().optional(),
});

/** Canned replies ready to match: each rule as a predicate over the utterance. */
export interface CannedReplies {
  rules: { matches: (utterance: string) => boolean; reply: string }[];
  fallback: string;
}

const DEFAULT_CANNED_REPLY = 'I have no canned answer for that.';

/** A canned-replies file that is unreadable or malformed; the message names the file and the problem. */
export class CannedFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CannedFileError';
  }
}

/**
 * Reads and compiles a canned-replies file. `contains` matches case-insensitively; `pattern` is a JavaScript
 * regular expression with optional `flags`. Every problem is found here, at start, rather than on a call.
 */
export async function loadCannedReplies(path: string): Promise<CannedReplies> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new CannedFileError(`cannot read canned replies from ${path}: ${(error as Error).message}`);
  }
  const parsed = CannedFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CannedFileError(`canned replies in ${path} are malformed at ${issue?.path.join('.') ?? '(file)'}: ${issue?.message}`);
  }
  return compileCannedReplies(parsed.data, path);
}

/** Turns a parsed canned file into matchers; `source` names it in errors. */
export function compileCannedReplies(file: z.infer<typeof CannedFile>, source = 'canned replies'): CannedReplies {
  const rules = file.replies.map((rule, index) => {
    if ('contains' in rule) {
      const needle = rule.contains.toLowerCase();
      return { matches: (utterance: string) => utterance.toLowerCase().includes(needle), reply: rule.reply };
    }
    let regex: RegExp;
    try {
      regex = new RegExp(rule.pattern, rule.flags);
    } catch (error) {
      throw new CannedFileError(`${source}: replies.${index}.pattern is not a valid regular expression (${(error as Error).message})`);
    }
    return { matches: (utterance: string) => regex.test(utterance), reply: rule.reply };
  });
  return { rules, fallback: file.default ?? DEFAULT_CANNED_REPLY };
}

/** Answers with the first rule that matches the last user message, else the default reply. */
export function cannedResponder(replies: CannedReplies): Responder {
  return async (request) => {
    const utterance = lastUserMessage(request);
    const rule = replies.rules.find((candidate) => candidate.matches(utterance));
    return { content: rule?.reply ?? replies.fallback };
  };
}
