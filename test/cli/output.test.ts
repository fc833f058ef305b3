import { describe, expect, it } from 'vitest';
import { printResult } from '../../src/cli/output/render.js';
import { renderTable } from '../../src/cli/output/table.js';
import { columnsFor } from '../../src/cli/output/columns.js';
import { colorAllowed, type Terminal } from '../../src/cli/output/terminal.js';

const ESC = '\u001b[';

function fakeTerminal(options: Partial<Pick<Terminal, 'isTTY' | 'columns' | 'color'>> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const terminal: Terminal = {
    isTTY: options.isTTY ?? true,
    columns: options.columns ?? 120,
    color: options.color ?? false,
    out: (text) => void out.push(text),
    err: (text) => void err.push(text),
  };
  return { terminal, stdout: () => out.join(''), stderr: () => err.join('') };
}

const decision = (id: string, status: string, text: string) => ({
  id,
  type: 'decision',
  deployment_id: 'd1',
  meeting_id: 'm1',
  text,
  decided_at: '2025-03-04T10:15:00Z',
  status,
  note: null,
  attribution: { kind: 'platform_identity', display_name: 'Ann Lee', idp_id: 'oid-ann' },
  created_at: '2025-03-04T10:15:00Z',
  updated_at: null,
  updated_by: null,
});

const ID_A = '0190f3a2-7c1e-7d4b-9a51-3b2c1d0e9f8a';
const ID_B = '0190f3a2-7c1e-7d4b-9a51-ffffffffffff';
const page = {
  items: [decision(ID_A, 'confirmed', 'Ship v2 on Friday after the security review'), decision(ID_B, 'superseded', 'Ship v2 Monday')],
  next_cursor: null,
};

describe('printResult', () => {
  it('prints a table on a terminal, with whole ids when they fit', () => {
    const { terminal, stdout, stderr } = fakeTerminal({ columns: 140 });
    printResult(page, terminal, { json: false, noun: 'decisions' });
    const lines = stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+DECIDED\s+BY\s+TEXT$/);
    expect(lines[1]).toContain(ID_A);
    expect(lines[1]).toContain('confirmed');
    expect(lines[1]).toContain('2025-03-04 10:15');
    expect(lines[1]).toContain('Ann Lee');
    expect(lines[1]).toContain('Ship v2 on Friday after the security review');
    expect(stdout()).not.toContain(ESC);
    expect(stderr()).toBe('');
  });

  it('fits a narrow terminal: shortened ids (said on stderr) and truncated text', () => {
    const { terminal, stdout, stderr } = fakeTerminal({ columns: 80 });
    printResult(page, terminal, { json: false, noun: 'decisions' });
    const lines = stdout().trimEnd().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    expect(lines[1]).toContain(`…${ID_A.slice(-8)}`);
    expect(stderr()).toMatch(/Ids are shortened/);
  });

  it('truncates long text with an ellipsis to the terminal width', () => {
    const long = { items: [decision('d-1', 'confirmed', 'word '.repeat(100))], next_cursor: null };
    const { terminal, stdout } = fakeTerminal({ columns: 70 });
    printResult(long, terminal, { json: false, noun: 'decisions' });
    const row = stdout().split('\n')[1]!;
    expect([...row].length).toBe(70);
    expect(row.endsWith('…')).toBe(true);
  });

  it('prints JSON when stdout is not a terminal, and when --json is given', () => {
    for (const [isTTY, json] of [
      [false, false],
      [true, true],
    ] as const) {
      const { terminal, stdout } = fakeTerminal({ isTTY });
      printResult(page, terminal, { json, noun: 'decisions' });
      expect(JSON.parse(stdout())).toEqual(page);
    }
  });

  it('colours status and header only when colour is on', () => {
    const coloured = fakeTerminal({ color: true });
    printResult(page, coloured.terminal, { json: false, noun: 'decisions' });
    expect(coloured.stdout()).toContain(`${ESC}32mconfirmed`);
    expect(coloured.stdout()).toContain(`${ESC}1mID`);
    const plain = fakeTerminal({ color: false });
    printResult(page, plain.terminal, { json: false, noun: 'decisions' });
    expect(plain.stdout()).not.toContain(ESC);
  });

  it('respects NO_COLOR and TERM=dumb', () => {
    expect(colorAllowed({})).toBe(true);
    expect(colorAllowed({ NO_COLOR: '1' })).toBe(false);
    expect(colorAllowed({ NO_COLOR: '' })).toBe(true);
    expect(colorAllowed({ TERM: 'dumb' })).toBe(false);
  });

  it('says on stderr when nothing was found, and when there are more pages', () => {
    const empty = fakeTerminal();
    printResult({ items: [], next_cursor: null }, empty.terminal, { json: false, noun: 'action items' });
    expect(empty.stdout()).toBe('');
    expect(empty.stderr()).toBe('No action items found.\n');
    const more = fakeTerminal();
    printResult({ ...page, next_cursor: 'abc' }, more.terminal, { json: false, noun: 'decisions' });
    expect(more.stderr()).toContain('--cursor abc');
  });

  it('prints search results with score and type, and warns when the search was capped', () => {
    const { terminal, stdout, stderr } = fakeTerminal();
    const result = { results: [{ ...decision('d-1', 'confirmed', 'Budget approved'), score: 0.875 }], next_cursor: null, was_capped: true };
    printResult(result, terminal, { json: false, noun: 'results' });
    expect(stdout()).toMatch(/^SCORE\s+TYPE\s+ID\s+WHEN\s+TEXT/);
    expect(stdout()).toContain('0.88');
    expect(stdout()).toContain('decision');
    expect(stderr()).toMatch(/narrow the query/);
  });

  it('prints one record as fields, with attribution and the change note', () => {
    const { terminal, stdout, stderr } = fakeTerminal();
    printResult(decision('d-1', 'superseded', 'Ship Monday'), terminal, { json: false, noun: 'decisions', done: 'Decision superseded.' });
    expect(stdout()).toMatch(/^id\s+d-1$/m);
    expect(stdout()).toMatch(/^attribution\s+Ann Lee \(platform_identity, oid-ann\)$/m);
    expect(stdout()).toMatch(/^note\s+-$/m);
    expect(stderr()).toBe('Decision superseded.\n');
  });

  it('strips control characters from text the core sent', () => {
    const { terminal, stdout } = fakeTerminal();
    printResult({ items: [decision('d-1', 'confirmed', 'evil\u001b[2Jtext\nnext line')], next_cursor: null }, terminal, {
      json: false,
      noun: 'decisions',
    });
    expect(stdout()).not.toContain('\u001b');
    expect(stdout()).toContain('evil[2Jtext next line');
  });
});

describe('columns', () => {
  it('has columns for every listed kind and for deployments', () => {
    for (const type of ['decision', 'open_question', 'action_item', 'statement', 'topic', 'deployment', 'search']) {
      const { text } = renderTable([{ id: 'x', type }], columnsFor(type), { width: 100, color: false });
      expect(text.split('\n')[0]).toMatch(/[A-Z]/);
    }
    const topic = { id: 't1', type: 'topic', name: 'Acme renewal', kind: 'account', last_discussed_at: '2025-01-01T00:00:00Z', meetings: [{}, {}] };
    expect(renderTable([topic], columnsFor('topic'), { width: 100, color: false }).text).toMatch(/account\s+2025-01-01 00:00\s+2\s+Acme renewal/);
  });
});
