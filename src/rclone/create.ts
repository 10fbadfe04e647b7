// `config create NAME drive key=value…`: the non-interactive form. Plain keys are written into the
// remote, config_* keys answer the backend's questions, and unanswered questions take their
// defaults — exactly the rclone behaviour, pitfalls included (config_is_local defaults to true).
import { nameError } from './names.js';
import type { OptionQuestion } from './prompt.js';
import { configureDrive, type Asker, type RemoteAccess } from './setup.js';
import type { ConfigStore } from './store.js';

export class CreateError extends Error {}

/** `key=value` words, or rclone's older alternating `key value` form. */
export function parsePairs(words: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    const eq = word.indexOf('=');
    if (eq > 0) pairs.push([word.slice(0, eq), word.slice(eq + 1)]);
    else if (i + 1 < words.length) pairs.push([word, words[++i]]);
    else throw new CreateError(`found key "${word}" without value`);
  }
  return pairs;
}

class Answers implements Asker {
  readonly interactive = false;
  constructor(
    private readonly answers: Map<string, string>,
    private readonly err: (text: string) => void,
  ) {}

  async confirm(name: string, _question: string, defaultYes: boolean): Promise<boolean> {
    const answer = this.answers.get(name);
    if (answer === undefined) return defaultYes;
    if (/^(1|t|true|y|yes)$/i.test(answer)) return true;
    if (/^(0|f|false|n|no)$/i.test(answer)) return false;
    throw new CreateError(`${name}: "${answer}" is not true or false`);
  }

  async option(question: OptionQuestion): Promise<string> {
    return this.answers.get(question.name) ?? question.default;
  }

  say(text: string): void {
    this.err(`${text.replace(/\n+$/, '')}\n`);
  }

  section(): void {}
}

export interface CreateOptions {
  store: ConfigStore;
  name: string;
  type: string;
  pairs: Array<[string, string]>;
  env: NodeJS.ProcessEnv;
  toolName: string;
  openBrowser: boolean;
  log: (text: string) => void;
}

export async function createRemote(options: CreateOptions): Promise<void> {
  const { store, name } = options;
  const problem = nameError(name);
  if (problem) throw new CreateError(problem);
  if (options.type !== 'drive') throw new CreateError(`didn't find backend called "${options.type}"`);
  for (const [key, value] of options.pairs) {
    // A line break would end the INI line and corrupt the file.
    if (/[\r\n]/.test(key) || /[\r\n]/.test(value)) throw new CreateError(`key or value of "${key}" contains a line break`);
    if (key === '' || /[=:[\]]/.test(key)) throw new CreateError(`bad key "${key}"`);
  }

  const answers = new Map<string, string>();
  store.conf.deleteSection(name);
  const remote: RemoteAccess = {
    name,
    get: (key) => store.conf.get(name, key),
    set: (key, value) => {
      store.conf.set(name, key, value);
      store.save();
    },
    entries: () => store.conf.entries(name),
  };
  remote.set('type', 'drive');
  for (const [key, value] of options.pairs) {
    if (key.startsWith('config_')) answers.set(key, value);
    else if (key !== 'type') remote.set(key, value);
  }
  await configureDrive({
    remote,
    asker: new Answers(answers, options.log),
    env: options.env,
    toolName: options.toolName,
    openBrowser: options.openBrowser,
    log: options.log,
  });
  store.save();
}

/** A remote in file form without the closing blank line, as `config create` and `config show NAME` print it. */
export function remoteText(store: ConfigStore, name: string): string {
  return `[${name}]\n${store.conf.entries(name).map(([k, v]) => `${k} = ${v}\n`).join('')}`;
}
