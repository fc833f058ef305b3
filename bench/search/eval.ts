import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../processes.js';
import { parseArgs } from 'node:util';
import { SEARCHABLE_TYPES, type SearchResult } from '../../src/contract/index.js';
import { isStopword } from '../../src/core/search/stopwords.js';
import { createEmbeddingWorker } from '../../src/core/search/embedding-worker.js';
import { embeddingSpace, type EmbeddingProvider } from '../../src/core/search/embedding-provider.js';
import { createOpenAiEmbeddings } from '../../src/core/search/openai-embeddings.js';
import type { EmbeddingsConfig } from '../../src/core/search/search-runtime.js';
import { createSearchService, type SearchService } from '../../src/core/search/search-service.js';
import { resolveSecretReference } from '../../src/contract/secret-reference.js';
import type { Scope } from '../../src/core/store/store.js';
import { lightStem } from './concept-embedder.js';
import { CONCEPT_GROUPS } from './concepts.js';
import { openDemoFixture, type DemoFixture } from './demo-fixture.js';
import { startEmbeddingServer } from './embedding-server.js';

export interface EvalQuery {
  deployment: string;
  query: string;
  expected: string[];
}

export interface Metrics {
  queries: number;
  recallAt5: number;
  recallAt10: number;
  mrr: number;
}

export interface VariantResult {
  name: string;
  all: Metrics;
  /** Only the queries that share no content word with any record they expect. */
  paraphrased: Metrics;
}

const DEPTH = 10;

/** The labelled queries of test/search-eval. */
export async function loadQueries(file = join(ROOT, 'test', 'search-eval', 'queries.json')): Promise<EvalQuery[]> {
  return (JSON.parse(await readFile(file, 'utf8')) as { queries: EvalQuery[] }).queries;
}

function contentStems(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words.filter((word) => !isStopword(word)).map(lightStem));
}

/** Whether the query shares no content word (after light stemming) with any record it expects. */
export function sharesNoWord(query: string, expectedTexts: string[]): boolean {
  const stems = contentStems(query);
  return expectedTexts.every((text) => [...contentStems(text)].every((stem) => !stems.has(stem)));
}

/** Recall@5, recall@10 (share of expected records found) and reciprocal rank of the first, for one query. */
function scoreQuery(foundKeys: string[], expected: string[]): { r5: number; r10: number; rr: number } {
  const rank = (key: string) => foundKeys.indexOf(key);
  const within = (k: number) => expected.filter((key) => rank(key) >= 0 && rank(key) < k).length / expected.length;
  const first = Math.min(...expected.map((key) => (rank(key) < 0 ? Infinity : rank(key))));
  return { r5: within(5), r10: within(10), rr: Number.isFinite(first) ? 1 / (first + 1) : 0 };
}

function average(scores: { r5: number; r10: number; rr: number }[]): Metrics {
  const mean = (pick: (s: { r5: number; r10: number; rr: number }) => number) =>
    scores.length === 0 ? 0 : scores.reduce((sum, s) => sum + pick(s), 0) / scores.length;
  return { queries: scores.length, recallAt5: mean((s) => s.r5), recallAt10: mean((s) => s.r10), mrr: mean((s) => s.rr) };
}

type Ranker = (scope: Scope, text: string) => Promise<SearchResult[]>;

function serviceRanker(service: SearchService): Ranker {
  return async (scope, text) => (await service.search(scope, { text, types: SEARCHABLE_TYPES, limit: DEPTH })).results;
}

/** The semantic leg alone: nearest records by cosine, no keywords. */
function semanticRanker(fixture: DemoFixture, provider: EmbeddingProvider): Ranker {
  const index = fixture.store.searchIndex!;
  return async (scope, text) => {
    const [embedding] = await provider.embed([text]);
    const snapshot = await index.snapshot();
    const space = embeddingSpace(provider.model, embedding!.length);
    const docs = await index.vector(scope, { types: SEARCHABLE_TYPES, embedding: embedding!, space, neighbours: DEPTH, snapshot });
    const records = await index.load(scope, docs);
    return records.flatMap((record) => (record ? [{ ...record, score: 1 } as SearchResult] : []));
  };
}

const MATES_PER_WORD = 4;

/** Lexical expansion: each content word of the query followed by up to four words of its synonym groups. */
export function expandQuery(text: string): string {
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  const extra: string[] = [];
  for (const word of words) {
    if (isStopword(word)) continue;
    const stem = lightStem(word);
    const mates = Object.values(CONCEPT_GROUPS)
      .filter((group) => group.some((member) => lightStem(member) === stem))
      .flatMap((group) => group.filter((member) => lightStem(member) !== stem));
    extra.push(...[...new Set(mates)].slice(0, MATES_PER_WORD));
  }
  return [text, ...extra].join(' ');
}

function expanded(ranker: Ranker): Ranker {
  return (scope, text) => ranker(scope, expandQuery(text));
}

/** Set by --detail: one line per query and variant, with the rank of its first expected record. */
let detail: ((line: string) => void) | null = null;

async function evaluate(name: string, ranker: Ranker, queries: EvalQuery[], fixture: DemoFixture, paraphrased: Set<EvalQuery>) {
  const all: { r5: number; r10: number; rr: number }[] = [];
  const para: typeof all = [];
  for (const query of queries) {
    const scope = fixture.scopes.get(query.deployment);
    if (!scope) throw new Error(`no demo deployment ${query.deployment}`);
    const results = await ranker(scope, query.query);
    const keys = results.map((result) => fixture.keyOf.get(result.id) ?? result.id);
    const score = scoreQuery(keys, query.expected);
    detail?.(`${name.padEnd(28)} ${score.rr === 0 ? '-' : String(Math.round(1 / score.rr))}\t${paraphrased.has(query) ? 'P' : ' '} ${query.query}`);
    all.push(score);
    if (paraphrased.has(query)) para.push(score);
  }
  return { name, all: average(all), paraphrased: average(para) };
}

/** The expected records' texts, checking that every key names a demo record. */
function expectedTexts(fixture: DemoFixture, records: Map<string, string>, query: EvalQuery): string[] {
  return query.expected.map((key) => {
    const text = records.get(key);
    if (text === undefined) throw new Error(`query "${query.query}" expects ${key}, which is no demo record`);
    return text;
  });
}

async function recordTexts(fixture: DemoFixture): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const scope of fixture.scopes.values()) {
    for (const kind of ['decision', 'open_question', 'action_item', 'topic'] as const) {
      for (const record of await fixture.store.list(kind, scope, { order: 'asc', limit: 10_000 })) {
        const key = fixture.keyOf.get(record.id);
        if (key) texts.set(key, record.type === 'topic' ? record.name : record.text);
      }
    }
  }
  return texts;
}

/**
 * Runs the evaluation: the demo memory in a fresh store, embedded through the OpenAI-compatible client against the
 * deterministic embedding server (real HTTP) or a real provider when one is given, then every query through each
 * variant.
 */
export async function runEvaluation(
  queries: EvalQuery[],
  embeddings?: EmbeddingsConfig,
): Promise<{ variants: VariantResult[]; paraphrased: number; model: string }> {
  const fixture = await openDemoFixture();
  const server = embeddings ? null : await startEmbeddingServer();
  const apiKey = embeddings?.keyRef === undefined ? undefined : await resolveSecretReference(embeddings.keyRef);
  const provider = createOpenAiEmbeddings(
    embeddings ? { ...embeddings, apiKey } : { url: server!.url, model: server!.model },
  );
  try {
    await createEmbeddingWorker({ index: fixture.store.searchIndex!, provider }).drain();
    const texts = await recordTexts(fixture);
    const paraphrased = new Set(queries.filter((query) => sharesNoWord(query.query, expectedTexts(fixture, texts, query))));
    const keyword = serviceRanker(createSearchService({ store: fixture.store }));
    const hybrid = serviceRanker(createSearchService({ store: fixture.store, provider }));
    const variants = [
      await evaluate('keyword (BM25)', keyword, queries, fixture, paraphrased),
      await evaluate('keyword + synonym expansion', expanded(keyword), queries, fixture, paraphrased),
      await evaluate('semantic leg alone', semanticRanker(fixture, provider), queries, fixture, paraphrased),
      await evaluate('hybrid (RRF)', hybrid, queries, fixture, paraphrased),
      await evaluate('hybrid + synonym expansion', expanded(hybrid), queries, fixture, paraphrased),
    ];
    return { variants, paraphrased: paraphrased.size, model: provider.model };
  } finally {
    await provider.close();
    await server?.close();
    await fixture.close();
  }
}

function pct(value: number): string {
  return value.toFixed(3);
}

/** The results as a Markdown table. */
export function evaluationTable(variants: VariantResult[], total: number, paraphrased: number): string {
  const rows = variants.map(
    (v) =>
      `| ${v.name} | ${pct(v.all.recallAt5)} | ${pct(v.all.recallAt10)} | ${pct(v.all.mrr)} | ` +
      `${pct(v.paraphrased.recallAt5)} | ${pct(v.paraphrased.recallAt10)} | ${pct(v.paraphrased.mrr)} |`,
  );
  return [
    `| variant | recall@5 (all ${total}) | recall@10 | MRR | recall@5 (no shared word, ${paraphrased}) | recall@10 | MRR |`,
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** `npm run eval:search [-- --json] [-- --out file.md]` */
export async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      json: { type: 'boolean' },
      out: { type: 'string' },
      detail: { type: 'boolean' },
      'embeddings-url': { type: 'string' },
      'embeddings-model': { type: 'string' },
      'embeddings-key-ref': { type: 'string' },
      'embeddings-dimensions': { type: 'string' },
    },
  });
  const url = values['embeddings-url'];
  const model = values['embeddings-model'];
  if ((url === undefined) !== (model === undefined)) throw new Error('--embeddings-url and --embeddings-model go together');
  const dimensions = values['embeddings-dimensions'];
  const embeddings =
    url && model
      ? { url, model, keyRef: values['embeddings-key-ref'], dimensions: dimensions === undefined ? undefined : Number(dimensions) }
      : undefined;
  if (values.detail) detail = (line) => process.stderr.write(`${line}\n`);
  const queries = await loadQueries();
  const { variants, paraphrased, model: usedModel } = await runEvaluation(queries, embeddings);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ queries: queries.length, paraphrased, variants }, null, 2)}\n`);
  } else {
    process.stdout.write(`Search quality on the demo memory: ${queries.length} labelled queries, ${paraphrased} sharing no content word with what they expect.\n`);
    process.stdout.write(
      embeddings
        ? `Semantic vectors come from ${usedModel} at ${embeddings.url}.\n\n`
        : 'Semantic vectors come from the deterministic concept embedder (no model weights here): see readme-search.\n\n',
    );
    process.stdout.write(`${evaluationTable(variants, queries.length, paraphrased)}\n`);
  }
  if (values.out) await writeFile(values.out, `${evaluationTable(variants, queries.length, paraphrased)}\n`);
  return 0;
}
