// The drive backend's options as the wizard asks them: the normal pass (steps 5-8 in docs/rclone.md), the
// advanced options that matter to a mount, their rclone help texts, defaults and value kinds.

export type OptionKind = 'string' | 'bool' | 'size' | 'duration' | 'int';

export interface OptionExample {
  value: string;
  help: string;
}

export interface DriveOption {
  name: string;
  help: string;
  /** The default as rclone prints it ("" when none). */
  default: string;
  kind: OptionKind;
  examples?: OptionExample[];
  /** Only an example may be chosen (no value of one's own). */
  exclusive?: boolean;
  required?: boolean;
}

export const SCOPES: OptionExample[] = [
  { value: 'drive', help: 'Full access all files, excluding Application Data Folder.' },
  { value: 'drive.readonly', help: 'Read-only access to file metadata and file contents.' },
  {
    value: 'drive.file',
    help: 'Access to files created by rclone only.\nThese are visible in the drive website.\nFile authorization is revoked when the user deauthorizes the app.',
  },
  { value: 'drive.appfolder', help: 'Allows read and write access to the Application Data folder.\nThis is not visible in the drive website.' },
  {
    value: 'drive.metadata.readonly',
    help: 'Allows read-only access to file metadata but\ndoes not allow any access to read or download file content.',
  },
];

/** The normal pass, in order. rclone 1.60 does not ask root_folder_id here; docs/rclone.md asks it at step 7. */
export const NORMAL_OPTIONS: DriveOption[] = [
  {
    name: 'client_id',
    help:
      'Google Application Client Id\nSetting your own is recommended.\nSee https://rclone.org/drive/#making-your-own-client-id for how to create your own.\n' +
      'If you leave this blank, it will use an internal key which is low performance.',
    default: '',
    kind: 'string',
  },
  { name: 'client_secret', help: 'OAuth Client Secret.\n\nLeave blank normally.', default: '', kind: 'string' },
  { name: 'scope', help: 'Scope that rclone should use when requesting access from drive.', default: '', kind: 'string', examples: SCOPES },
  {
    name: 'root_folder_id',
    help: 'ID of the root folder.\nLeave blank normally.\n\nFill in to access "Computers" folders (see docs), or for rclone to use\na non root folder as its starting point.',
    default: '',
    kind: 'string',
  },
  {
    name: 'service_account_file',
    help:
      'Service Account Credentials JSON file path.\n\nLeave blank normally.\nNeeded only if you want use SA instead of interactive login.\n\n' +
      'Leading `~` will be expanded in the file name as will environment variables such as `${RCLONE_CONFIG_DIR}`.',
    default: '',
    kind: 'string',
  },
];

/** The advanced options that matter to a mount, in rclone's declaration order. */
export const ADVANCED_OPTIONS: DriveOption[] = [
  { name: 'token', help: 'OAuth Access Token as a JSON blob.', default: '', kind: 'string' },
  { name: 'auth_url', help: 'Auth server URL.\n\nLeave blank to use the provider defaults.', default: '', kind: 'string' },
  { name: 'token_url', help: 'Token server url.\n\nLeave blank to use the provider defaults.', default: '', kind: 'string' },
  { name: 'use_trash', help: 'Send files to the trash instead of deleting permanently.\n\nDefaults to true, namely sending files to the trash.\nUse `--drive-use-trash=false` to delete files permanently instead.', default: 'true', kind: 'bool' },
  { name: 'skip_gdocs', help: 'Skip google documents in all listings.\n\nIf given, gdocs practically become invisible to rclone.', default: 'false', kind: 'bool' },
  { name: 'shared_with_me', help: 'Only show files that are shared with me.\n\nInstructs rclone to operate on your "Shared with me" folder.', default: 'false', kind: 'bool' },
  { name: 'impersonate', help: 'Impersonate this user when using a service account.', default: '', kind: 'string' },
  { name: 'chunk_size', help: 'Upload chunk size.\n\nMust a power of 2 >= 256k.\n\nEach chunk is buffered in memory one per transfer.', default: '8Mi', kind: 'size' },
  { name: 'acknowledge_abuse', help: 'Set to allow files which return cannotDownloadAbusiveFile to be downloaded.', default: 'false', kind: 'bool' },
  { name: 'pacer_min_sleep', help: 'Minimum time to sleep between API calls.', default: '100ms', kind: 'duration' },
  { name: 'pacer_burst', help: 'Number of API calls to allow without sleeping.', default: '100', kind: 'int' },
  { name: 'stop_on_upload_limit', help: 'Make upload limit errors be fatal.', default: 'false', kind: 'bool' },
  { name: 'stop_on_download_limit', help: 'Make download limit errors be fatal.', default: 'false', kind: 'bool' },
  { name: 'skip_shortcuts', help: 'If set skip shortcut files.', default: 'false', kind: 'bool' },
];

/** Every option this tool knows the default of (hidden ones included), for the authorize blob. */
export const KNOWN_DEFAULTS: Record<string, string> = Object.fromEntries(
  [...NORMAL_OPTIONS, ...ADVANCED_OPTIONS].map((o) => [o.name, o.default]).concat([['team_drive', '']]),
);

/**
 * Checks and canonicalises a typed value for its kind; returns the value to store, or an error text
 * in rclone's "Failed to parse" style.
 */
export function parseValue(kind: OptionKind, input: string): { value: string } | { error: string } {
  switch (kind) {
    case 'bool': {
      if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(input)) return { value: 'true' };
      if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(input)) return { value: 'false' };
      return { error: `strconv.ParseBool: parsing "${input}": invalid syntax` };
    }
    case 'int':
      return /^[+-]?\d+$/.test(input) ? { value: String(Number(input)) } : { error: `strconv.ParseInt: parsing "${input}": invalid syntax` };
    case 'size':
      return /^(off|\d+(\.\d+)?([bkmgtpe]i?)?)$/i.test(input) ? { value: input } : { error: `bad suffix in "${input}"` };
    case 'duration':
      return /^(off|(\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d|w|M|y))+)$/.test(input) ? { value: input } : { error: `time: invalid duration "${input}"` };
    default:
      return { value: input };
  }
}
