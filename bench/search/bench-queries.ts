import type { SearchableType } from '../../src/contract/index.js';
import { ACCOUNTS, PROJECTS, THEMES } from '../vocabulary.js';

/** One benchmark search: what is typed, the filters sent with it, and what kind of search it stands for. */
export interface BenchQuery {
  label: string;
  text: string;
  types?: SearchableType[];
  since?: string;
  until?: string;
}

function term(project: number, index: number): string {
  const terms = PROJECTS[project % PROJECTS.length]!.terms;
  return terms[index % terms.length]!;
}

/**
 * The searches the benchmark times on a generated deployment: questions as people type them (most words are
 * stopwords, one or two are topical), bare terms from the most and least discussed projects, phrases, prefixes,
 * an account and a theme, a ticket number, and the filters (types, a month, a year) on common terms.
 */
export function benchQueries(): BenchQuery[] {
  const artifact = PROJECTS[1]!.artifacts[0]!;
  return [
    { label: 'common term', text: term(0, 0) },
    { label: 'common term', text: term(1, 2) },
    { label: 'rare term', text: term(PROJECTS.length - 1, 7) },
    { label: 'rare term', text: ACCOUNTS[ACCOUNTS.length - 1]! },
    { label: 'two terms', text: `${term(0, 1)} ${term(0, 3)}` },
    { label: 'two terms', text: `${term(2, 0)} ${term(3, 1)}` },
    { label: 'question', text: `what did we decide about the ${term(0, 0)}?` },
    { label: 'question', text: `who is writing the ${artifact} and when is it due` },
    { label: 'question', text: `why are ${ACCOUNTS[0]} unhappy with the ${term(2, 3)}` },
    { label: 'question', text: `is there an open question about ${term(4, 2)} for ${ACCOUNTS[3]}?` },
    { label: 'phrase', text: `"${term(0, 8)}"` },
    { label: 'phrase', text: `"${term(5, 0)}"` },
    { label: 'prefix', text: `${term(0, 4).slice(0, 5)}*` },
    { label: 'prefix', text: `${term(6, 1).slice(0, 4)}*` },
    { label: 'account', text: `${ACCOUNTS[1]} renewal` },
    { label: 'theme', text: THEMES[0]! },
    { label: 'ticket number', text: 'BILL-4242' },
    { label: 'no match', text: 'zanzibar quokka' },
    { label: 'types: decision', text: term(0, 0), types: ['decision'] },
    { label: 'types: actions+questions', text: `${term(1, 0)} ${term(1, 1)}`, types: ['action_item', 'open_question'] },
    { label: 'one month', text: term(0, 0), since: '2024-03-01', until: '2024-03-31' },
    { label: 'one year, decisions', text: `${term(2, 1)} ${term(2, 2)}`, types: ['decision'], since: '2025-01-01', until: '2025-12-31' },
  ];
}
