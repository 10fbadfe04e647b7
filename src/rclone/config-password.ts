// The wizard's "Set configuration password" menu: add, change or remove the password that encrypts the whole
// rclone config file, as rclone's own menu does (docs/rclone.md).
import { checkPassword, ConfigPasswordError } from './crypt.js';
import type { Terminal } from './prompt.js';
import type { ConfigStore } from './store.js';

/** Runs the menu until the user quits to the main menu; every change is saved at once. */
export async function configPasswordMenu(store: ConfigStore, term: Terminal): Promise<void> {
  for (;;) {
    if (store.encrypted) {
      term.println('Your configuration is encrypted.');
      const choice = await term.command(['cChange Password', 'uUnencrypt configuration', 'qQuit to main menu']);
      if (choice === 'q') return;
      if (choice === 'c') {
        store.setPassword(await newPassword(term));
        store.save();
        term.println('Password changed');
      } else {
        store.clearPassword();
        store.save();
      }
    } else {
      term.println('Your configuration is not encrypted.');
      term.println('If you add a password, you will protect your login information to cloud services.');
      const choice = await term.command(['aAdd Password', 'qQuit to main menu']);
      if (choice === 'q') return;
      store.setPassword(await newPassword(term));
      store.save();
      term.println('Password set');
    }
  }
}

/** Asks twice until both answers match; rclone's rules for a password are checked as it is typed. */
async function newPassword(term: Terminal): Promise<string> {
  const check = (p: string): string | undefined => {
    try {
      checkPassword(p);
      return undefined;
    } catch (err) {
      if (err instanceof ConfigPasswordError) return err.message;
      throw err;
    }
  };
  for (;;) {
    const a = await term.password('Enter NEW configuration password:', check);
    const b = await term.password('Confirm NEW configuration password:', check);
    if (a === b) return a;
    term.println('Passwords do not match!');
  }
}
