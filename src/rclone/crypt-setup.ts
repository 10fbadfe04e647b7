// The crypt backend's questions in the `config` wizard, as rclone 1.60 asks them: the remote to wrap, filename
// and directory name encryption, the password and salt (typed twice or generated), and the name encoding in the
// advanced options. Passwords are stored obscured, as rclone stores them.
import { randomBytes } from 'node:crypto';
import { obscure } from './obscure.js';
import type { OptionQuestion, Terminal } from './prompt.js';
import type { RemoteAccess } from './setup.js';

const REMOTE: OptionQuestion = {
  name: 'remote',
  help: 'Remote to encrypt/decrypt.\n\nNormally should contain a \':\' and a path, e.g. "myremote:path/to/dir",\n"myremote:bucket" or maybe "myremote:" (not recommended).',
  kind: 'value',
  default: '',
  required: true,
};

const FILENAME_ENCRYPTION: OptionQuestion = {
  name: 'filename_encryption',
  help: 'How to encrypt the filenames.',
  kind: 'string value',
  default: 'standard',
  examples: [
    { value: 'standard', help: 'Encrypt the filenames.\nSee the docs for the details.' },
    { value: 'obfuscate', help: 'Very simple filename obfuscation.' },
    { value: 'off', help: 'Don\'t encrypt the file names.\nAdds a ".bin" extension only.' },
  ],
  parse: (v) => (['standard', 'obfuscate', 'off'].includes(v.toLowerCase()) ? { value: v.toLowerCase() } : { error: `unknown filename encryption mode "${v}"` }),
};

const DIRECTORY_NAME_ENCRYPTION: OptionQuestion = {
  name: 'directory_name_encryption',
  help: 'Option to either encrypt directory names or leave them intact.\n\nNB If filename_encryption is "off" then this option will do nothing.',
  kind: 'boolean value (true or false)',
  default: 'true',
  examples: [
    { value: 'true', help: 'Encrypt directory names.' },
    { value: 'false', help: "Don't encrypt directory names, leave them intact." },
  ],
  parse: (v) => (/^(true|false)$/i.test(v) ? { value: v.toLowerCase() } : { error: 'invalid boolean' }),
};

const FILENAME_ENCODING: OptionQuestion = {
  name: 'filename_encoding',
  help: 'How to encode the encrypted filename to text string.\n\nThis option could help with shortening the encrypted filename. The\nsuitable option would depend on the way your remote count the filename\nlength and if it\'s case sensitive.',
  kind: 'string value',
  default: 'base32',
  examples: [
    { value: 'base32', help: 'Encode using base32. Suitable for all remote.' },
    { value: 'base64', help: 'Encode using base64. Suitable for case sensitive remote.' },
    { value: 'base32768', help: 'Encode using base32768. Suitable if your remote counts UTF-16 or\nUnicode codepoint instead of UTF-8 byte length. (Eg. Onedrive)' },
  ],
};

const PASSWORDS = [
  { name: 'password', help: 'Password or pass phrase for encryption.', required: true },
  { name: 'password2', help: 'Password or pass phrase for salt.\n\nOptional but recommended.\nShould be different to the previous password.', required: false },
] as const;

/** rclone's generated password: `bits` random bits, base64url without padding. */
export function generatePassword(bits: number): string {
  return randomBytes(Math.ceil(bits / 8)).toString('base64url');
}

async function ask(term: Terminal, remote: RemoteAccess, q: OptionQuestion, editing: boolean): Promise<void> {
  const current = remote.get(q.name);
  const offered = editing && current ? current : q.default;
  const answer = await term.option({ ...q, default: offered, kind: offered === '' ? 'value' : q.kind });
  term.println();
  const value = answer === '' ? offered : answer;
  if (value !== (current ?? q.default)) remote.set(q.name, value);
}

async function generated(term: Terminal): Promise<string> {
  for (;;) {
    term.println('Password strength in bits.\n64 is just about memorable\n128 is secure\n1024 is the maximum');
    const bits = Number((await term.readLine('Bits> ')) || '128');
    if (!Number.isInteger(bits) || bits < 64 || bits > 1024) {
      term.println('Bad bits: pick a whole number from 64 to 1024.');
      continue;
    }
    const password = generatePassword(bits);
    term.println(`Your password is: ${password}`);
    term.println('Use this password? Please note that an obscured version of this\npassword (and not the password itself) will be stored under your\nconfiguration file, so keep this generated password in a safe place.');
    if (await term.confirm(true)) return password;
  }
}

async function typed(term: Terminal): Promise<string> {
  const check = (p: string) => (p === '' ? 'empty password' : undefined);
  for (;;) {
    const a = await term.password('Enter the password:', check);
    const b = await term.password('Confirm the password:', check);
    if (a === b) return a;
    term.println('Passwords do not match!');
  }
}

/** Asks everything after "Storage> crypt" (or when editing one); each answer is saved at once, as rclone does. */
export async function configureCrypt(term: Terminal, remote: RemoteAccess, editing: boolean): Promise<void> {
  await ask(term, remote, REMOTE, editing);
  await ask(term, remote, FILENAME_ENCRYPTION, editing);
  await ask(term, remote, DIRECTORY_NAME_ENCRYPTION, editing);
  for (const p of PASSWORDS) {
    term.println(`Option ${p.name}.`);
    term.println(p.help.replaceAll('\n\n', '\n'));
    const has = editing && !!remote.get(p.name);
    const menu = ['yYes, type in my own password', 'gGenerate random password'];
    if (!p.required || has) menu.push(has ? 'nNo, leave this password as it is (default)' : 'nNo, leave this optional password blank (default)');
    term.println(menu.length === 3 ? 'Choose an alternative below. Press Enter for the default (n).' : 'Choose an alternative below.');
    const choice = await term.command(menu, menu.length === 3 ? 2 : -1);
    if (choice !== 'n') remote.set(p.name, obscure(choice === 'y' ? await typed(term) : await generated(term)));
    term.println();
  }
  term.println('Edit advanced config?');
  const advanced = await term.confirm(false);
  term.println();
  if (advanced) await ask(term, remote, FILENAME_ENCODING, editing);
}

