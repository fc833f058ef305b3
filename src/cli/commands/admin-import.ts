import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { Transform } from 'node:stream';
import { z } from 'zod';
import type { AdminClient } from '../../client/admin-client.js';
import { MemoryApiError } from '../../client/errors.js';
import { ImportMeetingInput, SetPeopleInput } from '../../contract/admin-params.js';
import type { MeetingImportResult } from '../../contract/admin-records.js';
import { resolveConnection, type GlobalOptions } from '../connection.js';
import { CliError, usageError } from '../errors.js';
import { toCliError } from '../output/api-errors.js';
import { ProgressBar } from '../output/progress.js';
import { printResult } from '../output/render.js';
import { processTerminal, type Terminal } from '../output/terminal.js';
import { explainAdminFailure, openAdminClient } from './admin-action.js';

/** The flags of `memory admin import`. */
export interface ImportFlags extends GlobalOptions {
  title?: string;
  startedAt?: string;
  endedAt?: string;
  platform?: string;
  organizer?: string;
  externalId?: string;
  people?: string;
  json?: boolean;
}

/** What a sidecar `<name>.meta.json` next to a transcript may say about its meeting. */
const Sidecar = z.strictObject({
  title: z.string().optional(),
  started_at: z.string().optional(),
  ended_at: z.string().optional(),
  platform: z.string().optional(),
  organizer: z.string().optional(),
  external_id: z.string().optional(),
});
type Sidecar = z.infer<typeof Sidecar>;

/** One file's outcome, as `--json` prints it. */
type FileOutcome =
  | { file: string; ok: true; created: boolean; meeting_id: string; external_id: string; statements: number }
  | { file: string; ok: false; error: string };

const CONTEXT = { command: 'admin import', noun: 'admin deployments', listable: true, write: true, flagOf: (name: string) => name };

async function readJsonFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(`Cannot read ${what} ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usageError(`${what} ${path} is not JSON: ${(error as Error).message}`);
  }
}

/**
 * A people file: `[{ "idp_id": "...", "display_name": "..." }]`, or `{ "<display name>": "<idp id>" }`. Speakers of
 * these names are attributed to these ids; others get an id made from their name.
 */
export async function readPeopleFile(path: string): Promise<z.infer<typeof SetPeopleInput>> {
  const raw = await readJsonFile(path, 'the people file');
  const people =
    raw !== null && typeof raw === 'object' && !Array.isArray(raw)
      ? Object.entries(raw).map(([display_name, idp_id]) => ({ display_name, idp_id }))
      : raw;
  const parsed = SetPeopleInput.safeParse({ people });
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.slice(1).join('.') || 'people'}: ${issue.message}`);
  throw usageError(`The people file ${path} is refused: ${problems.join('; ')}`, 'see `memory admin people set --help`');
}

/** text/vtt or application/json, by extension, else by the first bytes. */
async function contentTypeOf(path: string): Promise<'text/vtt' | 'application/json'> {
  const extension = extname(path).toLowerCase();
  if (extension === '.vtt') return 'text/vtt';
  if (extension === '.json') return 'application/json';
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(16), 0, 16, 0);
    const head = buffer.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
    if (head.startsWith('WEBVTT')) return 'text/vtt';
    if (head.trimStart().startsWith('{')) return 'application/json';
  } finally {
    await handle.close();
  }
  throw usageError(`${path} is neither a WebVTT transcript nor a JSON meeting document.`, 'name it .vtt or .json');
}

async function sidecarOf(path: string): Promise<Sidecar> {
  const sidecar = `${path.slice(0, path.length - extname(path).length)}.meta.json`;
  const exists = await stat(sidecar).then(() => true, () => false);
  if (!exists) return {};
  const parsed = Sidecar.safeParse(await readJsonFile(sidecar, 'the sidecar'));
  if (!parsed.success) throw usageError(`The sidecar ${sidecar} is refused: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

/** The query of a transcript's import: flags win over its sidecar; the title defaults to the file's name. */
async function transcriptInput(path: string, deployment: string, flags: ImportFlags): Promise<Record<string, unknown>> {
  const sidecar = await sidecarOf(path);
  const input = {
    deployment_id: deployment,
    title: flags.title ?? sidecar.title ?? basename(path, extname(path)),
    started_at: flags.startedAt ?? sidecar.started_at,
    ended_at: flags.endedAt ?? sidecar.ended_at,
    platform: flags.platform ?? sidecar.platform,
    organizer: flags.organizer ?? sidecar.organizer,
    external_id: flags.externalId ?? sidecar.external_id,
  };
  if (input.started_at === undefined) {
    throw usageError(`${path}: when did the meeting start?`, `pass --started-at 2025-03-04T10:00:00Z, or put started_at in ${basename(path, extname(path))}.meta.json`);
  }
  const parsed = ImportMeetingInput.safeParse(input);
  if (parsed.success) return parsed.data;
  throw usageError(`${path}: ${parsed.error.issues.map((issue) => `--${String(issue.path[0]).replaceAll('_', '-')} ${issue.message}`).join('; ')}`);
}

/** Streams one file to the import route, drawing the progress bar as bytes leave. */
async function uploadFile(
  client: AdminClient,
  path: string,
  file: { contentType: string; input: Record<string, unknown> },
  terminal: Terminal,
) {
  const { size } = await stat(path);
  const bar = new ProgressBar(
    { isTTY: process.stderr.isTTY === true, columns: process.stderr.columns || 80, write: (text) => terminal.err(text) },
    basename(path),
    size,
  );
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bar.advance(chunk.length);
      done(null, chunk);
    },
  });
  try {
    return await client.importMeeting(file.input as never, {
      data: createReadStream(path).pipe(counted),
      contentType: file.contentType,
      length: size,
    });
  } finally {
    bar.finish();
  }
}

/** Refusals of one file (400, 413, 415) are reported with it; anything else (403, unreachable) stops the import. */
function failureText(error: unknown): string {
  if (!(error instanceof MemoryApiError) || ![400, 413, 415].includes(error.status)) {
    throw explainAdminFailure(error, CONTEXT) ?? toCliError(error, CONTEXT);
  }
  const params = error.invalidParams.map((param) => (param.name === 'body' ? param.reason : `${param.name}: ${param.reason}`));
  return params.length > 0 ? params.join('; ') : error.message;
}

async function importOne(client: AdminClient, path: string, deployment: string, flags: ImportFlags, terminal: Terminal): Promise<FileOutcome> {
  const contentType = await contentTypeOf(path);
  const input = contentType === 'text/vtt' ? await transcriptInput(path, deployment, flags) : { deployment_id: deployment };
  try {
    const result = (await uploadFile(client, path, { contentType, input }, terminal)) as MeetingImportResult;
    return {
      file: path,
      ok: true,
      created: result.created,
      meeting_id: result.meeting.id,
      external_id: result.external_id,
      statements: result.meeting.memory.statement,
    };
  } catch (error) {
    return { file: path, ok: false, error: failureText(error) };
  }
}

function report(outcome: FileOutcome): string {
  if (!outcome.ok) return `refused  ${outcome.file}: ${outcome.error}\n`;
  const what = outcome.created ? 'imported' : 'unchanged';
  return `${what.padEnd(9)}${outcome.file}: meeting ${outcome.meeting_id}, ${outcome.statements} statements${outcome.created ? '' : ' (imported before)'}\n`;
}

/**
 * `memory admin import <file...> --deployment <id>`: imports each file (WebVTT transcripts from Teams or Zoom, JSON
 * meeting documents) into the deployment, one after another, streaming each from disk. A refused file is reported
 * with its line and reason and the others still go in; the exit code is 1 when any file was refused.
 */
export async function runAdminImport(files: string[], flags: ImportFlags, terminal: Terminal = processTerminal()): Promise<void> {
  const connection = await resolveConnection(flags);
  const deployment = flags.deployment ?? connection.defaultDeployment;
  if (deployment === undefined) throw usageError('Which deployment?', 'pass --deployment <id> or set MEMORY_DEPLOYMENT');
  const people = flags.people === undefined ? undefined : await readPeopleFile(flags.people);
  const client = openAdminClient(connection);
  try {
    if (people) await client.setPeople(people).catch((error: unknown) => Promise.reject(explainAdminFailure(error, CONTEXT) ?? toCliError(error, CONTEXT)));
    const outcomes: FileOutcome[] = [];
    for (const file of files) {
      const outcome = await importOne(client, file, deployment, flags, terminal);
      outcomes.push(outcome);
      if (!flags.json && terminal.isTTY) terminal.out(report(outcome));
    }
    if (flags.json || !terminal.isTTY) terminal.out(`${JSON.stringify(outcomes, null, 2)}\n`);
    const refused = outcomes.filter((outcome) => !outcome.ok).length;
    if (refused > 0) {
      throw new CliError(`${refused} of ${files.length} files were refused; nothing of them was imported.`, {
        hint: 'fix the line named and import the file again (files imported before stay unchanged)',
      });
    }
  } finally {
    await client.close();
  }
}

/** `memory admin people set <file>`: adds or replaces speaker-name mappings from a people file. */
export async function runPeopleSet(file: string, flags: GlobalOptions & { json?: boolean }, terminal: Terminal = processTerminal()): Promise<void> {
  const people = await readPeopleFile(file);
  const client = openAdminClient(await resolveConnection(flags));
  const context = { ...CONTEXT, command: 'admin people set', noun: 'admin people' };
  try {
    const result = await client.setPeople(people);
    printResult(result, terminal, { json: flags.json === true, noun: 'people', done: `${people.people.length} mappings set.` });
  } catch (error) {
    throw explainAdminFailure(error, context) ?? toCliError(error, context);
  } finally {
    await client.close();
  }
}
