import type { Command } from 'commander';
import type { Shell } from './completion.js';

/** One command of the tree as completion needs it. */
export interface CompletionNode {
  /** Words after the program name, space-separated; '' for the program itself. */
  path: string;
  name: string;
  description: string;
  children: CompletionNode[];
  options: CompletionOption[];
}

export interface CompletionOption {
  long?: string;
  short?: string;
  description: string;
  takesValue: boolean;
  /** The value is a file path: complete file names. */
  takesPath: boolean;
  choices?: readonly string[];
}

const HELP: CompletionOption = { long: '--help', short: '-h', description: 'show help', takesValue: false, takesPath: false };

/** The command tree under `command`, with each command's flags (plus --help). */
export function completionTree(command: Command, path = ''): CompletionNode {
  return {
    path,
    name: command.name(),
    description: command.description(),
    children: command.commands.map((child) => completionTree(child, path === '' ? child.name() : `${path} ${child.name()}`)),
    options: [
      ...command.options.map((option) => ({
        long: option.long,
        short: option.short,
        description: option.description,
        takesValue: option.required || option.optional,
        takesPath: option.flags.includes('<path>'),
        ...(option.argChoices ? { choices: option.argChoices } : {}),
      })),
      HELP,
    ],
  };
}

/** A completion script for `shell` covering every command and flag under `program`. */
export function completionScript(shell: Shell, program: Command): string {
  const tree = completionTree(program);
  const nodes = flatten(tree);
  const names = [program.name(), ...(program.name() === 'memory' ? ['meeting-memory'] : [])];
  if (shell === 'bash') return bashScript(nodes, names);
  if (shell === 'zsh') return zshScript(nodes, names);
  return fishScript(nodes, names);
}

function flatten(node: CompletionNode): CompletionNode[] {
  return [node, ...node.children.flatMap(flatten)];
}

function flagsOf(option: CompletionOption): string[] {
  return [option.long, option.short].filter((flag): flag is string => flag !== undefined);
}

/** Single-quoted for bash and zsh. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The shell loop (same in bash and zsh) that walks the words typed so far and keeps in `cmdpath` the deepest known
 * command path, skipping flags and their values.
 */
function pathLoop(nodes: CompletionNode[], range: string, word: string): string {
  const known = nodes
    .filter((node) => node.path !== '')
    .map((node) => quote(node.path))
    .join('|');
  return `  for ((${range})); do
    word="\${${word}}"
    case "\${cmdpath:+$cmdpath }$word" in
      ${known}) cmdpath="\${cmdpath:+$cmdpath }$word" ;;
    esac
  done`;
}

function valueCases(nodes: CompletionNode[], action: (option: CompletionOption) => string | undefined): string[] {
  return nodes.flatMap((node) =>
    node.options
      .filter((option) => option.takesValue)
      .map((option) => [option, action(option)] as const)
      .map(([option, body]) => `    ${flagsOf(option).map((flag) => quote(`${node.path}:${flag}`)).join('|')}) ${body ?? ''}return ;;`),
  );
}

function bashScript(nodes: CompletionNode[], names: string[]): string {
  const words = nodes.map(
    (node) =>
      `    ${quote(node.path)}) words=${quote([...node.children.map((child) => child.name), ...node.options.flatMap(flagsOf)].join(' '))} ;;`,
  );
  return `# bash completion for ${names.join(' and ')}. Load it with:
#   source <(memory completion bash)
_memory_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmdpath="" word i words=""
${pathLoop(nodes, 'i = 1; i < COMP_CWORD; i++', 'COMP_WORDS[i]')}
  case "$cmdpath:$prev" in
${valueCases(nodes, (option) =>
  option.choices
    ? `COMPREPLY=($(compgen -W ${quote(option.choices.join(' '))} -- "$cur")); `
    : option.takesPath
      ? 'COMPREPLY=($(compgen -f -- "$cur")); '
      : 'COMPREPLY=(); ',
).join('\n')}
  esac
  case "$cmdpath" in
${words.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _memory_complete ${names.join(' ')}
`;
}

function zshScript(nodes: CompletionNode[], names: string[]): string {
  const describe = (name: string, description: string) => quote(`${name.replaceAll(':', '\\:')}:${description}`);
  const items = nodes.map((node) => {
    const entries = [
      ...node.children.map((child) => describe(child.name, child.description)),
      ...node.options.flatMap((option) => flagsOf(option).map((flag) => describe(flag, option.description))),
    ];
    return `    ${quote(node.path)}) items=(${entries.join(' ')}) ;;`;
  });
  return `#compdef ${names.join(' ')}
# zsh completion for ${names.join(' and ')}. Load it (after compinit) with:
#   source <(memory completion zsh)
_memory() {
  local cmdpath="" word i
  local -a items
${pathLoop(nodes, 'i = 2; i < CURRENT; i++', 'words[i]')}
  case "$cmdpath:\${words[CURRENT-1]}" in
${valueCases(nodes, (option) =>
  option.choices ? `compadd -- ${option.choices.map(quote).join(' ')}; ` : option.takesPath ? '_files; ' : undefined,
).join('\n')}
  esac
  case "$cmdpath" in
${items.join('\n')}
  esac
  _describe -t commands 'memory' items
}
compdef _memory ${names.join(' ')}
`;
}

/** Single-quoted for fish, where a backslash escapes inside single quotes too. */
function fishQuote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function fishScript(nodes: CompletionNode[], names: string[]): string {
  const root = 'memory';
  const full = (node: CompletionNode) => (node.path === '' ? root : `${root} ${node.path}`);
  const lines = nodes.flatMap((node) => {
    const at = `-n ${fishQuote(`__memory_at "${full(node)}"`)}`;
    return [
      ...node.children.map((child) => `    complete -c $cmd ${at} -a ${child.name} -d ${fishQuote(child.description)}`),
      ...node.options.map((option) => {
        const flags = [option.long && `-l ${option.long.slice(2)}`, option.short && `-s ${option.short.slice(1)}`].filter(Boolean);
        const value = option.choices
          ? ` -x -a ${fishQuote(option.choices.join(' '))}`
          : option.takesPath
            ? ' -r -F'
            : option.takesValue
              ? ' -x'
              : '';
        return `    complete -c $cmd ${at} ${flags.join(' ')}${value} -d ${fishQuote(option.description)}`;
      }),
    ];
  });
  const known = nodes.filter((node) => node.path !== '').map((node) => fishQuote(full(node)));
  return `# fish completion for ${names.join(' and ')}. Load it with:
#   memory completion fish | source
function __memory_path
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cmdpath ${root}
    for word in $tokens
        if contains -- "$cmdpath $word" ${known.join(' ')}
            set cmdpath "$cmdpath $word"
        end
    end
    echo $cmdpath
end
function __memory_at
    test (__memory_path) = "$argv[1]"
end
for cmd in ${names.join(' ')}
    complete -c $cmd -f
${lines.join('\n')}
end
`;
}
