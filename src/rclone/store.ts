// The rclone config file on disk: which path rclone would use, reading it (asking for the password
// when it is encrypted) and saving it the way rclone does (temp file beside it, then rename; 0600 for
// a new file, the old mode and group for an existing one).
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Conf } from './conf.js';
import { ConfigPasswordError, configKey, decryptConfig, encryptConfig, isEncrypted } from './crypt.js';

/**
 * rclone's choice of config path on Linux/macOS: --config, else RCLONE_CONFIG, else the first existing
 * of $XDG_CONFIG_HOME/rclone/rclone.conf, ~/.config/rclone/rclone.conf, ~/.rclone.conf, else the
 * first of those two XDG-style paths (the one a new file goes to).
 */
export function configPath(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return explicit;
  if (env.RCLONE_CONFIG) return env.RCLONE_CONFIG;
  const home = env.HOME || homedir();
  const xdg = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'rclone', 'rclone.conf') : undefined;
  const dotConfig = join(home, '.config', 'rclone', 'rclone.conf');
  const legacy = join(home, '.rclone.conf');
  const candidates = [xdg, dotConfig, legacy].filter((p): p is string => !!p);
  return candidates.find((p) => existsSync(p)) ?? xdg ?? dotConfig;
}

/** Asks for the password of an encrypted file; undefined means the person gave up. */
export type PasswordSource = (prompt: string) => Promise<string | undefined>;

export class ConfigStore {
  /** The secretbox key while the file is (to be) encrypted; undefined for a plain file. */
  private key: Uint8Array | undefined;

  private constructor(
    readonly path: string,
    public conf: Conf,
    key: Uint8Array | undefined,
  ) {
    this.key = key;
  }

  /**
   * Loads the file (an absent file is an empty config). An encrypted file is opened with
   * RCLONE_CONFIG_PASS, else with passwords from `askPassword` until one fits.
   */
  static async open(path: string, options: { env?: NodeJS.ProcessEnv; askPassword?: PasswordSource; onError?: (text: string) => void } = {}): Promise<ConfigStore> {
    const env = options.env ?? process.env;
    if (!existsSync(path)) return new ConfigStore(path, new Conf(), undefined);
    const text = readFileSync(path, 'utf8');
    if (!isEncrypted(text)) return new ConfigStore(path, Conf.parse(text), undefined);

    const fromEnv = env.RCLONE_CONFIG_PASS;
    if (fromEnv) {
      const key = configKey(fromEnv);
      const plain = decryptConfig(text, key);
      if (plain === undefined) throw new ConfigPasswordError('using RCLONE_CONFIG_PASS env password, unable to decrypt configuration');
      return new ConfigStore(path, Conf.parse(plain), key);
    }
    if (!options.askPassword) {
      throw new ConfigPasswordError('unable to decrypt configuration and not allowed to ask for password - set RCLONE_CONFIG_PASS to your configuration password');
    }
    for (;;) {
      const password = await options.askPassword('Enter configuration password:');
      if (password === undefined) throw new ConfigPasswordError('unable to decrypt configuration: no password given');
      let key: Uint8Array;
      try {
        key = configKey(password);
      } catch (err) {
        options.onError?.(`Error: ${(err as Error).message}`);
        continue;
      }
      const plain = decryptConfig(text, key);
      if (plain !== undefined) return new ConfigStore(path, Conf.parse(plain), key);
      options.onError?.("Couldn't decrypt configuration, most likely wrong password.");
    }
  }

  get encrypted(): boolean {
    return this.key !== undefined;
  }

  /** Encrypts from the next save on (an empty password is refused with rclone's wording). */
  setPassword(password: string): void {
    this.key = configKey(password);
  }

  clearPassword(): void {
    this.key = undefined;
  }

  /** Writes the whole file, as rclone does on every change. */
  save(): void {
    const target = followLink(this.path);
    const dir = dirname(target);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const previous = existsSync(target) ? statSync(target) : undefined;
    const text = this.key ? encryptConfig(this.conf.serialize(), this.key) : this.conf.serialize();
    const temp = join(dir, `${basename(target)}${randomBytes(6).toString('hex')}`);
    try {
      writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
      // An explicit chmod, because the create mode is filtered by the umask.
      chmodSync(temp, previous ? previous.mode & 0o7777 : 0o600);
      if (previous) {
        try {
          chownSync(temp, previous.uid, previous.gid);
        } catch {
          // Keeping the group is best effort, as in rclone: only the owner or root may change it.
        }
      }
      renameSync(temp, target);
    } catch (err) {
      rmSync(temp, { force: true });
      throw err;
    }
  }
}

/** Saves through a symlinked config to the file it points at, as recent rclone does. */
function followLink(path: string): string {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
  } catch {
    return path;
  }
}
