import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../../src/core/store/store.js';
import type { TestCore } from '../../helpers/core.js';

/** Waits until the core's worker has embedded everything queued (or fails the test after `ms`). */
export async function waitForEmbeddings(store: Store, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const backlog = await store.searchIndex!.embeddingBacklog();
    if (backlog.pending === 0) return;
    if (Date.now() > deadline) throw new Error(`embedding did not finish: ${JSON.stringify(backlog)}`);
    await sleep(100);
  }
}

export interface SearchAnswer {
  status: number;
  body: any;
}

/** GET search on the core as demo principal `principal`, with query parameters. */
export async function searchCall(t: TestCore, params: Record<string, string>, principal = 0, deployment = 0): Promise<SearchAnswer> {
  const query = new URLSearchParams(params).toString();
  const response = await fetch(`${t.core.baseUrl}/deployments/${t.creds.deployments[deployment]!.id}/search?${query}`, {
    headers: { authorization: `Bearer ${await t.token(principal)}` },
  });
  return { status: response.status, body: await response.json() };
}
