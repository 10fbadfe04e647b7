// RCLONE.CRYPT_MAPPINGS for the Drive monitor: a Drive path under a mapped prefix holds an rclone crypt remote's
// encrypted names; they are decoded here (no rclone process needed) so filters and SERVER_PATH_MAPPINGS see the
// plain path, as plex_autoscan's `rclone cryptdecode` step did: "<prefix><decoded rest>".
import { configPath, ConfigStore } from '../rclone/store.js';
import { CryptNames, plainSize, type FilenameEncoding, type FilenameEncryption } from '../rclone/crypt-names.js';
import { reveal } from '../rclone/obscure.js';
import type { Logger } from '../log/logger.js';

export interface DecodedName {
  path: string;
  /** The plain file size when the stored one was encrypted; else the size given. */
  size?: number;
}

export interface DriveNames {
  /** The path unchanged outside every crypt prefix; undefined when it is under one but is not a name of its remote. */
  decode(drivePath: string, size?: number): DecodedName | undefined;
}

interface Mapping {
  prefix: string;
  remotes: { name: string; names: CryptNames }[];
}

export class CryptSetupError extends Error {}

/** The crypt remote `name` of the loaded rclone.conf as a name cipher; throws a CryptSetupError that says what to fix. */
export function cryptRemote(store: ConfigStore, name: string): CryptNames {
  const conf = store.conf;
  const where = `rclone config '${store.path}'`;
  if (!conf.has(name)) throw new CryptSetupError(`RCLONE.CRYPT_MAPPINGS names remote '${name}:', which ${where} does not have: check the name (rclone listremotes) or RCLONE.CONFIG`);
  const type = conf.get(name, 'type');
  if (type !== 'crypt') throw new CryptSetupError(`RCLONE.CRYPT_MAPPINGS names remote '${name}:', which is of type '${type ?? '?'}' in ${where}, not crypt: name the crypt remote that wraps the Drive folder`);
  const mode = (conf.get(name, 'filename_encryption') || 'standard').toLowerCase();
  if (!['standard', 'obfuscate', 'off'].includes(mode)) throw new CryptSetupError(`crypt remote '${name}:' has filename_encryption = ${mode}; expected standard, obfuscate or off`);
  const encoding = (conf.get(name, 'filename_encoding') || 'base32').toLowerCase();
  if (!['base32', 'base64'].includes(encoding)) throw new CryptSetupError(`crypt remote '${name}:' uses filename_encoding = ${encoding}, which scanrelay cannot decode (base32 and base64 only)`);
  const dirs = (conf.get(name, 'directory_name_encryption') || 'true').toLowerCase();
  const password = conf.get(name, 'password') ?? '';
  if (password === '') throw new CryptSetupError(`crypt remote '${name}:' has no password in ${where}`);
  const password2 = conf.get(name, 'password2') ?? '';
  let plain: string;
  let salt = '';
  try {
    plain = reveal(password);
    if (password2 !== '') salt = reveal(password2);
  } catch {
    throw new CryptSetupError(`crypt remote '${name}:' has a password that is not obscured the way rclone writes it: set it again with rclone config`);
  }
  return new CryptNames({
    password: plain,
    salt,
    filenameEncryption: mode as FilenameEncryption,
    directoryNameEncryption: !['false', '0', 'no'].includes(dirs),
    filenameEncoding: encoding as FilenameEncoding,
  });
}

/**
 * Reads the crypt remotes CRYPT_MAPPINGS names from rclone.conf (RCLONE.CONFIG, else rclone's default place; an
 * encrypted file opens with RCLONE_CONFIG_PASS). A remote that cannot be used is logged and left out, so the
 * rest of the monitor keeps working; files under its prefix are then skipped with a warning.
 */
export async function loadDriveNames(opts: {
  mappings: Record<string, string[]>;
  rcloneConfig: string;
  env?: NodeJS.ProcessEnv;
  logger: Logger;
}): Promise<DriveNames | undefined> {
  const entries = Object.entries(opts.mappings);
  if (entries.length === 0) return undefined;
  const { logger } = opts;
  const file = configPath(opts.rcloneConfig.trim() || undefined, opts.env ?? process.env);
  let store: ConfigStore | undefined;
  try {
    store = await ConfigStore.open(file, { env: opts.env ?? process.env });
  } catch (err) {
    logger.error(`RCLONE.CRYPT_MAPPINGS: cannot read rclone config '${file}': ${(err as Error).message}. Encrypted Drive names will not be decoded.`);
  }
  const mappings: Mapping[] = entries.map(([prefix, remotes]) => ({
    prefix,
    remotes: store
      ? remotes.flatMap((remote) => {
          const name = remote.replace(/:.*$/, '');
          try {
            return [{ name, names: cryptRemote(store, name) }];
          } catch (err) {
            logger.error(`${(err as Error).message}. Files under '${prefix}' will not be decoded.`);
            return [];
          }
        })
      : [],
  }));
  for (const m of mappings) {
    if (m.remotes.length) logger.info(`Google Drive files under '${m.prefix}' are decoded with rclone crypt remote(s) ${m.remotes.map((r) => `'${r.name}:'`).join(', ')}`);
  }
  return new CryptDrivePaths(mappings, logger);
}

class CryptDrivePaths implements DriveNames {
  private readonly warned = new Set<string>();

  constructor(
    private readonly mappings: Mapping[],
    private readonly logger: Logger,
  ) {}

  decode(drivePath: string, size?: number): DecodedName | undefined {
    // Case-insensitive, like the Drive path filters and plex_autoscan's crypt prefix match.
    const m = this.mappings.find((x) => drivePath.toLowerCase().startsWith(x.prefix.toLowerCase()));
    if (!m) return { path: drivePath, size };
    const rest = drivePath.slice(m.prefix.length);
    for (const r of m.remotes) {
      const plain = r.names.decryptPath(rest);
      if (plain === undefined) continue;
      return { path: m.prefix + plain, size: size === undefined ? undefined : plainSize(size) };
    }
    const key = m.remotes.length ? `${m.prefix}\u0000name` : m.prefix;
    if (!this.warned.has(key)) {
      this.warned.add(key);
      this.logger.warn(
        m.remotes.length
          ? `Google Drive file '${drivePath}' is under RCLONE.CRYPT_MAPPINGS prefix '${m.prefix}' but is not a name of ${m.remotes.map((r) => `'${r.name}:'`).join(' or ')}: skipped (check the mapping and the remote's password)`
          : `Google Drive file '${drivePath}' is under RCLONE.CRYPT_MAPPINGS prefix '${m.prefix}', whose crypt remote could not be loaded (see the error at start): skipped`,
      );
    }
    return undefined;
  }
}
