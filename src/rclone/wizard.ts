// The interactive `config` procedure (docs/rclone.md): rclone's main menu, new/edit/delete/rename/copy of
// remotes and the configuration password, over a Terminal so it runs on a TTY or from piped answers.
import { configPasswordMenu } from './config-password.js';
import { ADVANCED_OPTIONS, NORMAL_OPTIONS, parseValue, type DriveOption } from './drive-options.js';
import { newNameProblem } from './names.js';
import { kindWord, type OptionQuestion, type Terminal } from './prompt.js';
import { configureCrypt } from './crypt-setup.js';
import { configureDrive, type Asker, type RemoteAccess } from './setup.js';
import type { ConfigStore } from './store.js';

export interface WizardOptions {
  store: ConfigStore;
  terminal: Terminal;
  env: NodeJS.ProcessEnv;
  toolName: string;
  openBrowser: boolean;
}

/** The storage types this tool configures (rclone's list has every backend): the Drive and a crypt remote over it. */
const STORAGE: OptionQuestion = {
  name: 'Storage',
  help: 'Type of storage to configure.',
  kind: 'value',
  default: '',
  required: true,
  // Drive stays number 1, as it was before crypt joined (scripts answer "1").
  examples: [
    { value: 'drive', help: 'Google Drive' },
    { value: 'crypt', help: 'Encrypt/Decrypt a remote' },
  ],
};

export class Wizard implements Asker {
  readonly interactive = true;
  private readonly store: ConfigStore;
  private readonly term: Terminal;

  constructor(private readonly options: WizardOptions) {
    this.store = options.store;
    this.term = options.terminal;
  }

  // --- Asker, for the backend's own questions ---

  async confirm(_name: string, question: string, defaultYes: boolean): Promise<boolean> {
    this.term.println(question);
    return this.term.confirm(defaultYes);
  }

  option(question: OptionQuestion): Promise<string> {
    return this.term.option(question);
  }

  say(text: string): void {
    this.term.println(text);
  }

  section(): void {
    this.term.println();
  }

  // --- the procedure ---

  private get conf() {
    return this.store.conf;
  }

  private remote(name: string): RemoteAccess {
    return {
      name,
      get: (key) => this.conf.get(name, key),
      set: (key, value) => {
        this.conf.set(name, key, value);
        this.store.save();
      },
      entries: () => this.conf.entries(name),
    };
  }

  /** The main menu until q (steps 2 and 19 in docs/rclone.md). */
  async run(): Promise<void> {
    const all = ['eEdit existing remote', 'nNew remote', 'dDelete remote', 'rRename remote', 'cCopy remote', 'sSet configuration password', 'qQuit config'];
    for (;;) {
      const names = this.conf.remoteNames();
      let menu = all;
      if (names.length > 0) {
        this.term.print('Current remotes:\n\n');
        this.showRemotes(names);
        this.term.println();
      } else {
        this.term.println('No remotes found, make a new one?');
        menu = [all[1], ...all.slice(-2)];
      }
      const choice = await this.term.command(menu);
      if (choice === 'q') return;
      this.section();
      switch (choice) {
        case 'e': {
          const name = await this.chooseRemote();
          this.section();
          await this.editRemote(name);
          break;
        }
        case 'n': {
          const name = await this.newRemoteName();
          this.section();
          await this.newRemote(name);
          break;
        }
        case 'd': {
          const name = await this.chooseRemote();
          this.section();
          this.conf.deleteSection(name);
          this.store.save();
          break;
        }
        case 'r': {
          const name = await this.chooseRemote();
          this.section();
          this.term.println(`Enter new name for "${name}" remote.`);
          const newName = await this.copyRemote(name);
          if (newName !== name) {
            this.conf.deleteSection(name);
            this.store.save();
          }
          break;
        }
        case 'c': {
          const name = await this.chooseRemote();
          this.section();
          this.term.println(`Enter name for copy of "${name}" remote.`);
          await this.copyRemote(name);
          this.store.save();
          break;
        }
        case 's':
          await configPasswordMenu(this.store, this.term);
          break;
      }
      this.section();
    }
  }

  private showRemotes(names: string[]): void {
    this.term.println(`${'Name'.padEnd(20)} Type`);
    this.term.println(`${'===='.padEnd(20)} ====`);
    for (const name of [...names].sort()) this.term.println(`${name.padEnd(20)} ${this.conf.get(name, 'type') ?? ''}`);
  }

  private async chooseRemote(): Promise<string> {
    this.term.println('Select remote.');
    const names = [...this.conf.remoteNames()].sort();
    return this.term.choose('remote', 'value', names, undefined, '', true, false);
  }

  private async newRemoteName(): Promise<string> {
    for (;;) {
      this.term.println('Enter name for new remote.');
      const name = await this.term.readLine('name> ');
      const problem = newNameProblem(name, (n) => this.conf.has(n));
      if (!problem) return name;
      this.term.println(problem);
    }
  }

  private async copyRemote(name: string): Promise<string> {
    const newName = await this.newRemoteName();
    for (const [key, value] of this.conf.entries(name)) this.conf.set(newName, key, value);
    return newName;
  }

  /** Steps 3-18: type, options, advanced, token, shared drive, then keep/edit/delete. */
  private async newRemote(name: string): Promise<void> {
    let type: string;
    for (;;) {
      type = await this.term.option(STORAGE);
      if (type === 'drive' || type === 'crypt') break;
      this.term.println(`Bad remote "${type}": didn't find backend called "${type}"`);
    }
    this.remote(name).set('type', type);
    this.section();
    if (type === 'crypt') await configureCrypt(this.term, this.remote(name), false);
    else await this.askOptions(name, false);
    if (await this.okRemote(name)) return;
    this.section();
    await this.editRemote(name);
  }

  private async editRemote(name: string): Promise<void> {
    const type = this.conf.get(name, 'type');
    if (type !== 'drive' && type !== 'crypt') {
      this.term.println(`Only drive and crypt remotes can be edited here; use rclone config for "${name}" (type ${type ?? 'unknown'}).`);
      return;
    }
    this.term.println(`Editing existing "${name}" remote with options:`);
    this.listOptions(name);
    this.section();
    do {
      if (type === 'crypt') await configureCrypt(this.term, this.remote(name), true);
      else await this.askOptions(name, true);
    } while (!(await this.okRemote(name)));
  }

  /** The option pass, the advanced question and the backend's questions. */
  private async askOptions(name: string, editing: boolean): Promise<void> {
    const remote = this.remote(name);
    for (;;) {
      for (const option of NORMAL_OPTIONS) await this.askOption(remote, option, editing);
      const id = remote.get('client_id') ?? '';
      const secret = remote.get('client_secret') ?? '';
      if (!!id === !!secret) break;
      this.term.println('Enter both client_id and client_secret, or leave both blank.');
      this.section();
    }
    this.term.println('Edit advanced config?');
    const advanced = await this.term.confirm(false);
    this.section();
    if (advanced) for (const option of ADVANCED_OPTIONS) await this.askOption(remote, option, editing);
    await configureDrive({
      remote,
      asker: this,
      env: this.options.env,
      toolName: this.options.toolName,
      openBrowser: this.options.openBrowser,
      log: (text) => this.term.printErr(text),
    });
  }

  /** One option; written only when the answer differs from the value in effect (as rclone does). */
  private async askOption(remote: RemoteAccess, option: DriveOption, editing: boolean): Promise<void> {
    const current = remote.get(option.name);
    const offered = editing && current !== undefined && current !== '' ? current : option.default;
    const answer = await this.term.option({
      name: option.name,
      help: option.help,
      kind: kindWord(option.kind, offered),
      default: offered,
      required: option.required,
      examples: option.examples,
      exclusive: option.exclusive,
      parse: (input) => parseValue(option.kind, input),
    });
    this.section();
    const value = answer === '' ? offered : answer;
    if (value !== (current ?? option.default)) remote.set(option.name, value);
  }

  private listOptions(name: string): void {
    for (const [key, value] of this.conf.entries(name)) this.term.println(`- ${key}: ${value}`);
  }

  /** Step 18. */
  private async okRemote(name: string): Promise<boolean> {
    this.term.println('Configuration complete.');
    this.term.println('Options:');
    this.listOptions(name);
    this.term.println(`Keep this "${name}" remote?`);
    const choice = await this.term.command(['yYes this is OK', 'eEdit this remote', 'dDelete this remote'], 0);
    if (choice === 'e') return false;
    if (choice === 'd') this.conf.deleteSection(name);
    this.store.save();
    return true;
  }
}
