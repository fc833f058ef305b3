import { setTimeout as sleep } from 'node:timers/promises';
import type { EmbeddingTask, SearchIndex } from '../store/store.js';
import { EmbeddingError, embeddingSpace, type EmbeddingProvider } from './embedding-provider.js';

export interface EmbeddingWorkerOptions {
  index: SearchIndex;
  provider: EmbeddingProvider;
  /** Records per claim (the provider client splits them further by its own batch size). */
  batchSize?: number;
  /** How long a claim is held before another worker may take it (a worker that died mid-batch). */
  leaseMs?: number;
  /** Pause when the queue is empty. */
  idleMs?: number;
  /** Longest pause after the provider failed; pauses double up to it. */
  maxPauseMs?: number;
  /** One line per change of state: the provider failing, recovering, records refused. */
  log?: (line: string) => void;
}

export interface EmbeddingWorker {
  start(): void;
  /** Stops after the batch in flight. */
  stop(): Promise<void>;
  /**
   * Embeds until nothing is due (used by reindex and tests); `onBatch` hears how many records each batch stored.
   * Rejects when the provider fails, leaving the queue for a later run.
   */
  drain(onBatch?: (stored: number) => void): Promise<number>;
}

const FIRST_PAUSE_MS = 1000;

/**
 * The background worker that feeds the vector leg from the durable queue: claims due records, embeds them, stores
 * the vectors in the provider's space. A provider failure puts the batch back without counting it against the
 * records and pauses the worker, doubling the pause while it lasts; a refusal of specific texts is narrowed down
 * by halving the batch, so one bad record cannot hold up the rest.
 */
export function createEmbeddingWorker(options: EmbeddingWorkerOptions): EmbeddingWorker {
  const { index, provider } = options;
  const batchSize = options.batchSize ?? 64;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const idleMs = options.idleMs ?? 1000;
  const maxPauseMs = options.maxPauseMs ?? 5 * 60_000;
  const log = options.log ?? (() => {});
  let space: string | null = null;
  let pauseMs = 0;
  let running: Promise<void> | null = null;
  let stopping: AbortController | null = null;

  async function store(tasks: EmbeddingTask[], vectors: Float32Array[]): Promise<void> {
    const taskSpace = embeddingSpace(provider.model, vectors[0]?.length ?? 0);
    if (taskSpace !== space) {
      const { requeued } = await index.useEmbeddingSpace(taskSpace);
      if (requeued > 0) log(`search: embedding space is now ${taskSpace}; ${requeued} records queued to be embedded again`);
      space = taskSpace;
    }
    await index.saveEmbeddings(taskSpace, tasks.map((task, i) => ({ docId: task.docId, embedding: vectors[i]! })));
  }

  /** Embeds the tasks; texts the provider refuses are isolated by halving and deferred with an attempt counted. */
  async function embedTasks(tasks: EmbeddingTask[], signal?: AbortSignal): Promise<number> {
    try {
      const vectors = await provider.embed(tasks.map((task) => task.text), { signal });
      await store(tasks, vectors);
      return tasks.length;
    } catch (error) {
      if (!(error instanceof EmbeddingError) || error.kind !== 'input') throw error;
      if (tasks.length === 1) {
        await index.deferEmbeddingTasks([tasks[0]!.docId], error.message, Date.now() + 60_000, true);
        log(`search: the provider refused record ${tasks[0]!.docId}: ${error.message}`);
        return 0;
      }
      const half = Math.ceil(tasks.length / 2);
      return (await embedTasks(tasks.slice(0, half), signal)) + (await embedTasks(tasks.slice(half), signal));
    }
  }

  /** One claim and its embedding; returns how many were stored, or null when nothing was due. */
  async function step(signal?: AbortSignal): Promise<number | null> {
    const tasks = await index.claimEmbeddingTasks(batchSize, leaseMs);
    if (tasks.length === 0) return null;
    try {
      return await embedTasks(tasks, signal);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await index.deferEmbeddingTasks(tasks.map((task) => task.docId), reason, Date.now(), false);
      throw error;
    }
  }

  async function loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const stored = await step(signal);
        if (pauseMs > 0 && stored !== null) log('search: the embedding provider answers again');
        if (stored !== null) pauseMs = 0;
        await sleep(stored === null ? idleMs : 0, undefined, { signal });
      } catch (error) {
        if (signal.aborted) return;
        if (pauseMs === 0) log(`search: embedding paused: ${error instanceof Error ? error.message : String(error)}`);
        pauseMs = Math.min(maxPauseMs, pauseMs === 0 ? FIRST_PAUSE_MS : pauseMs * 2);
        await sleep(pauseMs, undefined, { signal }).catch(() => {});
      }
    }
  }

  return {
    start() {
      if (running) return;
      stopping = new AbortController();
      running = loop(stopping.signal).catch(() => {});
    },
    async stop() {
      stopping?.abort();
      await running;
      running = null;
    },
    async drain(onBatch) {
      let total = 0;
      for (let stored = await step(); stored !== null; stored = await step()) {
        total += stored;
        onBatch?.(stored);
      }
      return total;
    },
  };
}
