import { setTimeout as sleep } from 'node:timers/promises';
import type { AdminClient } from '../../client/admin-client.js';
import type { ReindexRecord, SearchStatusRecord } from '../../contract/admin-records.js';
import type { z } from 'zod';
import { resolveConnection, type GlobalOptions } from '../connection.js';
import { CliError } from '../errors.js';
import { toCliError } from '../output/api-errors.js';
import { ProgressBar, type ProgressSink } from '../output/progress.js';
import { processTerminal, type Terminal } from '../output/terminal.js';
import { explainAdminFailure, openAdminClient } from './admin-action.js';

export interface ReindexFlags extends GlobalOptions {
  /** False with --no-wait. */
  wait?: boolean;
  json?: boolean;
}

type Status = z.infer<typeof SearchStatusRecord>;

const CONTEXT = { command: 'admin reindex', noun: 'admin deployments', listable: true, write: true, flagOf: (name: string) => name };
const POLL_MS = 1000;
/** A reindex that makes no progress for this long is reported rather than waited on forever. */
const STALL_MS = 10 * 60_000;

function records(count: number): string {
  return count.toLocaleString('en-US');
}

/** Polls the status until nothing of the reindex is pending, advancing the bar; returns the final status. */
async function follow(client: AdminClient, started: z.infer<typeof ReindexRecord>, sink: ProgressSink): Promise<Status> {
  const bar = new ProgressBar(sink, 'embedding', started.pending, Date.now, records);
  let status: Status = started;
  let lastPending = started.pending;
  let progressAt = Date.now();
  try {
    while (status.pending > 0) {
      await sleep(POLL_MS);
      status = await client.getSearchStatus();
      if (status.pending < lastPending) {
        bar.advance(lastPending - status.pending);
        lastPending = status.pending;
        progressAt = Date.now();
      }
      if (Date.now() - progressAt > STALL_MS) {
        throw new CliError(`Embedding made no progress for ${STALL_MS / 60_000} minutes (${records(status.pending)} records still queued).`, {
          hint: "check the core's log for the embedding provider's errors; the queue is kept and resumes on its own",
        });
      }
    }
  } finally {
    bar.finish();
  }
  return status;
}

function summary(status: Status, queued: number): string {
  const failed = status.failed > 0 ? `; ${records(status.failed)} refused by the provider (see the core's log)` : '';
  return `Re-embedded ${records(queued)} records with ${status.model ?? 'no model'}: ${records(status.embedded)} records now searchable by meaning${failed}.\n`;
}

/**
 * `memory admin reindex`: queues the tenant's records (or one deployment's) to be embedded again, then follows the
 * core's progress with a bar on a terminal until the queue is empty (unless --no-wait).
 */
export async function runReindex(flags: ReindexFlags, terminal: Terminal = processTerminal()): Promise<void> {
  const connection = await resolveConnection(flags);
  const client = openAdminClient(connection);
  try {
    const started = await client.reindexSearch(flags.deployment === undefined ? {} : { deployment_id: flags.deployment });
    if (started.mode === 'keyword') {
      throw new CliError(`Queued ${records(started.queued)} records, but this core runs keyword-only search: nothing will embed them.`, {
        hint: 'restart `memory serve` with --embeddings-url and --embeddings-model; the queued records are embedded then',
      });
    }
    const sink = { isTTY: process.stderr.isTTY === true, columns: process.stderr.columns || 80, write: (text: string) => terminal.err(text) };
    const final = flags.wait === false ? started : await follow(client, started, sink);
    if (flags.json || !terminal.isTTY) terminal.out(`${JSON.stringify({ ...final, queued: started.queued }, null, 2)}\n`);
    else if (flags.wait === false) terminal.out(`Queued ${records(started.queued)} records; the core embeds them in the background.\n`);
    else terminal.out(summary(final, started.queued));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw explainAdminFailure(error, CONTEXT) ?? toCliError(error, CONTEXT);
  } finally {
    await client.close();
  }
}
